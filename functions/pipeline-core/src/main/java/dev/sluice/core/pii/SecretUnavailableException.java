package dev.sluice.core.pii;

import dev.sluice.core.SluiceException;

/**
 * A secret could not be produced: it does not exist, is empty, may not be read or its store could
 * not be reached. The message names the secret and the reason, never the secret's value.
 *
 * <p>{@link #isRetryable()} classifies the failure: {@code true} for transient causes (throttling, a
 * network error, a store that is briefly unavailable), where retrying the batch may succeed; {@code
 * false} for configuration errors (missing secret, no permission), which no retry repairs.
 */
public class SecretUnavailableException extends SluiceException {

    private static final long serialVersionUID = 1L;

    private final String secretName;
    private final boolean retryable;

    /** A non-retryable failure. */
    public SecretUnavailableException(String secretName, String reason) {
        this(secretName, reason, false, null);
    }

    /**
     * A failure with its cause. The cause's message must not contain the secret's value either: pass
     * only causes whose messages are known to be safe (I/O errors, SDK service errors).
     */
    public SecretUnavailableException(String secretName, String reason, boolean retryable, Throwable cause) {
        super("secret '" + secretName + "' is unavailable: " + reason, cause);
        this.secretName = secretName;
        this.retryable = retryable;
    }

    /** The name of the secret that could not be produced. */
    public String secretName() {
        return secretName;
    }

    /** Whether retrying later may succeed (throttling, network); {@code false} for configuration errors. */
    public boolean isRetryable() {
        return retryable;
    }
}
