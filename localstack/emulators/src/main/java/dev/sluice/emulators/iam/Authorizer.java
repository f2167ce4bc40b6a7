package dev.sluice.emulators.iam;

/**
 * Decides whether the principal behind an access key id may make a {@link ServiceCall}. The local
 * runtime implements it from a synthesized template and a real policy evaluator; the emulators only
 * ask.
 */
@FunctionalInterface
public interface Authorizer {

    /**
     * @param accessKeyId the access key id of the request's SigV4 signature, or null for an unsigned
     *     request
     */
    Decision authorize(String accessKeyId, ServiceCall call);

    /**
     * The secret access key of a key this authorizer knows, to verify a request's signature with;
     * null when it does not know the key (the request is refused as an unknown key).
     */
    default String secretAccessKey(String accessKeyId) {
        return null;
    }
}
