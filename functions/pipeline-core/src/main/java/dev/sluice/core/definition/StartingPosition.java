package dev.sluice.core.definition;

/** Where a consumer starts reading a shard it has no checkpoint for. */
public enum StartingPosition {
    /** The oldest record still in the shard. */
    TRIM_HORIZON,
    /** Only records written after the consumer starts. */
    LATEST,
    /** Records from {@code startingPositionTimestamp} on. */
    AT_TIMESTAMP
}
