package dev.sluice.core.window;

/**
 * What a windowed aggregate computes per (key, window). The count is carried by every
 * {@link PartialAggregate} whatever is requested; {@link #SUM}, {@link #MIN} and {@link #MAX} need
 * a value per event and are computed with {@link java.math.BigDecimal} arithmetic, never doubles.
 */
public enum AggregateFunction {
    /** Number of events. */
    COUNT,
    /** Exact decimal sum of the events' values. */
    SUM,
    /** Smallest value (by {@link java.math.BigDecimal#compareTo}). */
    MIN,
    /** Largest value (by {@link java.math.BigDecimal#compareTo}). */
    MAX;

    /** Whether this function reads the event's value. */
    public boolean needsValue() {
        return this != COUNT;
    }
}
