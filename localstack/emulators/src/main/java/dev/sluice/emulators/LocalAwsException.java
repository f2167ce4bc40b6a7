package dev.sluice.emulators;

/**
 * The local AWS stack could not be located, started or reached. The message names the emulator
 * and, for the Node emulators, the log file to read.
 */
public class LocalAwsException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** An exception with a message only. */
    public LocalAwsException(String message) {
        super(message);
    }

    /** An exception with a message and its cause. */
    public LocalAwsException(String message, Throwable cause) {
        super(message, cause);
    }
}
