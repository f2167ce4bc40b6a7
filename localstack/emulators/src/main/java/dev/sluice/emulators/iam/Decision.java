package dev.sluice.emulators.iam;

/** An authorizer's answer for a {@link ServiceCall}. */
public sealed interface Decision {

    /** Every authorization of the call is allowed. */
    record Allowed() implements Decision {}

    /**
     * The first authorization that is not allowed.
     *
     * @param caller the caller as AWS names it in the message ({@code
     *     arn:aws:sts::<account>:assumed-role/<role>/<session>})
     * @param action the denied action ({@code kms:Decrypt} when the implied KMS call was denied)
     * @param resource the denied resource ARN
     * @param reason AWS's reason text, e.g. {@code no identity-based policy allows the
     *     dynamodb:GetItem action}
     * @param kms whether the implied KMS call (not the service action itself) was denied
     */
    record Denied(String caller, String action, String resource, String reason, boolean kms) implements Decision {

        /** AWS's message: {@code User: <caller> is not authorized to perform: <action> on resource: <arn> because <reason>}. */
        public String message() {
            String because = reason.startsWith("with ") ? " " + reason : " because " + reason;
            return "User: " + caller + " is not authorized to perform: " + action + " on resource: " + resource
                    + because;
        }
    }

    /** The access key id is not one the stack knows. */
    record UnknownKey(String accessKeyId) implements Decision {}

    /**
     * The request's SigV4 signature was refused ({@link SignatureVerifier}): it does not match, its
     * date is too far off, or it cannot be verified.
     *
     * @param accessKeyId the access key id the request names, or null
     * @param failure why
     * @param message AWS's message
     */
    record BadSignature(String accessKeyId, SignatureVerifier.Failure failure, String message) implements Decision {}

    Decision ALLOWED = new Allowed();
}
