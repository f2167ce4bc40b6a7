package dev.sluice.core.definition;

/**
 * Where a consumer starts reading a shard it has no checkpoint for. ({@code AT_TIMESTAMP} needs a
 * timestamp in the definition and comes with the hardened event-source mapping.)
 */
public enum StartingPosition {
    /** The oldest record still in the shard. */
    TRIM_HORIZON,
    /** Only records written after the consumer starts. */
    LATEST
}
