package dev.sluice.core.definition;

/**
 * How a stage's consumer batches records. Every field has the default Lambda's event-source mapping
 * uses.
 *
 * @param batchSize most records per batch, 1 to 10,000 (default 100)
 * @param batchingWindowSeconds how long to gather records before invoking, 0 to 300 (default 0)
 * @param parallelizationFactor concurrent batches per shard, 1 to 10 (default 1)
 * @param startingPosition where to start a shard without a checkpoint (default TRIM_HORIZON)
 * @param startingPositionTimestamp with {@code AT_TIMESTAMP}: the RFC 3339 instant to start from
 */
public record BatchingDefinition(
        Integer batchSize,
        Integer batchingWindowSeconds,
        Integer parallelizationFactor,
        StartingPosition startingPosition,
        String startingPositionTimestamp) {

    public static final BatchingDefinition DEFAULTS = new BatchingDefinition(null, null, null, null, null);

    /** The instant of {@code startingPositionTimestamp}; the loader has checked it parses. */
    public java.time.Instant startingInstant() {
        return startingPositionTimestamp == null
                ? null
                : java.time.OffsetDateTime.parse(startingPositionTimestamp).toInstant();
    }

    public BatchingDefinition {
        batchSize = batchSize == null ? 100 : batchSize;
        batchingWindowSeconds = batchingWindowSeconds == null ? 0 : batchingWindowSeconds;
        parallelizationFactor = parallelizationFactor == null ? 1 : parallelizationFactor;
        startingPosition = startingPosition == null ? StartingPosition.TRIM_HORIZON : startingPosition;
    }

    /** This batching with another batch size. */
    public BatchingDefinition withBatchSize(int size) {
        return new BatchingDefinition(
                size, batchingWindowSeconds, parallelizationFactor, startingPosition, startingPositionTimestamp);
    }
}
