package dev.sluice.core.schema.fast;

/**
 * Thrown (one shared instance, without a stack trace) when the fast path cannot decide an input; {@link
 * FastValidator#isValid} then answers "not valid" so that networknt decides. It happens only for nodes JSON text does
 * not produce (binary, POJO) and for NaN, which networknt itself cannot compare.
 */
final class Unsure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    static final Unsure INSTANCE = new Unsure();

    private Unsure() {
        super("left to the reference validator", null, false, false);
    }
}
