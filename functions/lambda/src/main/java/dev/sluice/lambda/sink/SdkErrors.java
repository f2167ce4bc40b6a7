package dev.sluice.lambda.sink;

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
    static boolean retryable(SdkException e) {
        if (e instanceof AwsServiceException service) {
            return service.isThrottlingException() || service.statusCode() >= 500;
        }
        return e instanceof SdkClientException || e.retryable();
    }
}
