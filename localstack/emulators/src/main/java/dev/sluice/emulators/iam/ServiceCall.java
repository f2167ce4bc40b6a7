package dev.sluice.emulators.iam;

import java.util.List;

/**
 * One HTTP request to a service, as IAM sees it: the operation and the authorizations it needs (a
 * batch needs one per table or key; a copy needs the source and the target).
 *
 * @param service the service
 * @param operation the API operation ({@code PutRecords}, {@code GetObject}, ...)
 * @param requests the authorizations, all of which must be allowed
 */
public record ServiceCall(AwsService service, String operation, List<AccessRequest> requests) {

    public ServiceCall {
        requests = List.copyOf(requests);
    }
}
