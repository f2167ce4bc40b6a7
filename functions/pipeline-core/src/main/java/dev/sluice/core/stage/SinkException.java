package dev.sluice.core.stage;

/** A sink could not make a batch durable. */
public class SinkException extends Exception {

    private static final long serialVersionUID = 1L;

    private final boolean retryable;

    public SinkException(String message, boolean retryable, Throwable cause) {
        super(message, cause);
        this.retryable = retryable;
    }

    /** Whether delivering the batch again may succeed (throttling, 5xx, time-outs). */
    public boolean retryable() {
        return retryable;
    }
}
