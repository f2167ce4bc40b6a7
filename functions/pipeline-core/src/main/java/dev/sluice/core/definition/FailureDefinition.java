package dev.sluice.core.definition;

/**
 * What happens when a batch fails. Records that cannot be processed at all never fail a batch:
 * they go to the dead-letter queue with a reason code.
 *
 * @param deadLetterQueue logical name of the queue for records that cannot be processed
 * @param maxRetryAttempts retries of a failing batch before it is given up, 0 to 10,000 (default 3)
 * @param maxRecordAgeSeconds records older than this are given up, 60 to 604,800, or -1 for
 *     never (default -1)
 * @param bisectOnError split a failing batch in two before retrying (default true)
 */
public record FailureDefinition(
        String deadLetterQueue, Integer maxRetryAttempts, Integer maxRecordAgeSeconds, Boolean bisectOnError) {

    public static final FailureDefinition DEFAULTS = new FailureDefinition(null, null, null, null);

    public FailureDefinition {
        maxRetryAttempts = maxRetryAttempts == null ? 3 : maxRetryAttempts;
        maxRecordAgeSeconds = maxRecordAgeSeconds == null ? -1 : maxRecordAgeSeconds;
        bisectOnError = bisectOnError == null || bisectOnError;
    }
}
