package dev.sluice.emulators.iam;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One IAM authorization AWS makes for a request: an action on a resource ARN with the request's
 * context keys, and what the service does with the resource's KMS key (if it has one) on the
 * caller's behalf.
 *
 * @param action e.g. {@code dynamodb:GetItem}
 * @param resource the resource ARN ({@code *} for actions without a resource)
 * @param context request context keys (e.g. {@code s3:prefix}); the authorizer adds the principal's
 * @param keyUse the implied KMS call on the resource's key
 */
public record AccessRequest(String action, String resource, Map<String, List<String>> context, KeyUse keyUse) {

    public AccessRequest {
        Objects.requireNonNull(action, "action");
        Objects.requireNonNull(resource, "resource");
        context = Map.copyOf(context);
        Objects.requireNonNull(keyUse, "keyUse");
    }

    /** Without context keys or KMS use. */
    public static AccessRequest of(String action, String resource) {
        return new AccessRequest(action, resource, Map.of(), KeyUse.NONE);
    }

    /** Without context keys. */
    public static AccessRequest of(String action, String resource, KeyUse keyUse) {
        return new AccessRequest(action, resource, Map.of(), keyUse);
    }
}
