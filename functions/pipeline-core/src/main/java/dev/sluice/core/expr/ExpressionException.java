package dev.sluice.core.expr;

/** An expression that does not compile against its event schema: the message says why and where. */
public final class ExpressionException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public ExpressionException(String message, Throwable cause) {
        super(message, cause);
    }
}
