package dev.sluice.core.definition;

/**
 * A Kinesis stream.
 *
 * @param shards provisioned shard count; {@code null} when {@code onDemand}
 * @param onDemand on-demand capacity mode instead of provisioned shards
 * @param retentionHours data retention, 24 to 8760 hours
 * @param classification who may read the raw records
 * @param schema the event schema the stream carries, a file name in {@code schemas/} without
 *     {@code .json}
 */
public record StreamDefinition(
        Integer shards, Boolean onDemand, Integer retentionHours, Classification classification, String schema) {

    public StreamDefinition {
        onDemand = onDemand != null && onDemand;
        retentionHours = retentionHours == null ? 24 : retentionHours;
        classification = classification == null ? Classification.INTERNAL : classification;
    }
}
