package dev.sluice.aws.kpl;

/** The record starts with the KPL magic bytes but cannot be de-aggregated. */
public final class MalformedAggregateException extends Exception {
    private static final long serialVersionUID = 1L;

    MalformedAggregateException(String message) {
        super(message);
    }

    MalformedAggregateException(String message, Throwable cause) {
        super(message, cause);
    }
}
