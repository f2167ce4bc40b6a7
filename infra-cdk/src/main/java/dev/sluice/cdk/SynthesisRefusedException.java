package dev.sluice.cdk;

import dev.sluice.core.SluiceException;

/**
 * A pipeline cannot be synthesized as asked, for a reason the user fixes (a missing or malformed
 * context value): the message is one line saying what to do. {@link SluiceApp#main} prints it
 * alone, without a stack trace, and exits non-zero, so {@code cdk synth} and {@code cdk deploy}
 * stop before anything is deployed.
 */
public final class SynthesisRefusedException extends SluiceException {

    private static final long serialVersionUID = 1L;

    public SynthesisRefusedException(String message) {
        super(message);
    }
}
