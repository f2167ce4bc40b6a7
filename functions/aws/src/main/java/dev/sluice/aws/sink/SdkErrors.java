package dev.sluice.aws.sink;

import dev.sluice.core.stage.SinkException;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;

/** Turns SDK failures into {@link SinkException}s, classified as retryable or fatal. */
final class SdkErrors {

    private SdkErrors() {}

    static SinkException classify(String what, SdkException e) {
        return new SinkException(what + ": " + e.getMessage(), retryable(e), e);
    }

    /**
     * Throttling, 5xx and client-side failures (time-outs, connection resets: the write may or may
     * not have happened, and the idempotent write is simply made again) are retryable; other
     * service errors are not.
     */
    /**
     * Whether the service refused one record for good — a validation error, such as an item over
     * the size limit — which makes that record a dead letter rather than failing its batch. Other
     * client errors (access denied, missing table) are about the deployment, not the record: they
     * fail the batch, which is delivered again once someone fixes them.
     */
    static boolean rejectsRecord(AwsServiceException e) {
        return e.statusCode() == 400
                && !e.isThrottlingException()
                && e.awsErrorDetails() != null
                && "ValidationException".equals(e.awsErrorDetails().errorCode());
    }

    static boolean retryable(SdkException e) {
        if (e instanceof AwsServiceException service) {
            return service.isThrottlingException() || service.statusCode() >= 500;
        }
        return e instanceof SdkClientException || e.retryable();
    }
}
