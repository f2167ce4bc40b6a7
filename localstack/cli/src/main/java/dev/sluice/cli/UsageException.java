package dev.sluice.cli;

import dev.sluice.core.SluiceException;

/** A bad command line: reported in one line, with the usage, and exit status 2. */
final class UsageException extends SluiceException {

    private static final long serialVersionUID = 1L;

    UsageException(String message) {
        super(message);
    }
}
