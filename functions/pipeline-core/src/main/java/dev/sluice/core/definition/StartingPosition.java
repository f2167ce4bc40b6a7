package dev.sluice.core.definition;

/** Where a consumer starts reading a shard it has no checkpoint for. */
public enum StartingPosition {
    TRIM_HORIZON,
    LATEST,
    AT_TIMESTAMP
}
