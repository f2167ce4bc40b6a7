package dev.sluice.planner;

/** A price table that cannot be used: unreadable, not JSON, or missing a price, its source or its date. */
public final class PriceTableException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    PriceTableException(String message) {
        super(message);
    }

    PriceTableException(String message, Throwable cause) {
        super(message, cause);
    }
}
