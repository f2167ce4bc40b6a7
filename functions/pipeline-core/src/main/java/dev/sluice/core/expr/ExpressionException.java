package dev.sluice.core.expr;

import dev.sluice.core.ConfigurationException;

/** An expression that does not compile against its event schema: the message says why and where. */
public final class ExpressionException extends ConfigurationException {

    private static final long serialVersionUID = 1L;

    public ExpressionException(String message, Throwable cause) {
        super(message, cause);
    }
}
