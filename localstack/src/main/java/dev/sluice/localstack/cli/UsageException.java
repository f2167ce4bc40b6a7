package dev.sluice.localstack.cli;

/** A bad command line: reported in one line, with the usage, and exit status 2. */
final class UsageException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    UsageException(String message) {
        super(message);
    }
}
