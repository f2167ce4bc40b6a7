package dev.sluice.core;

/**
 * The unchecked root of Sluice's own exceptions: catch it to tell a failure Sluice diagnosed (its
 * message is one line a person can act on) from any other.
 *
 * <p>Two kinds stand apart: {@link ConfigurationException} (a missing or bad setting: no retry
 * repairs it) and the checked {@link dev.sluice.core.stage.SinkException}, which a sink throws with
 * a retryable flag and which is deliberately not unchecked. The emulators ({@code
 * dev.sluice.emulators.LocalAwsException}) and the planner ({@code PriceTableException}) know nothing
 * of the core and keep their own roots.
 */
public class SluiceException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public SluiceException(String message) {
        super(message);
    }

    public SluiceException(String message, Throwable cause) {
        super(message, cause);
    }
}
