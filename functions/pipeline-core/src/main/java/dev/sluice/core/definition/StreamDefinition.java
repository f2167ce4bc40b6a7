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
 * @param partitionKey the event field (dotted path) whose value is the record's partition key;
 *     default {@code key}, the envelope's. Records of one key share a shard, so an enrichment
 *     joining on this field finds its reference partition locally.
 */
public record StreamDefinition(
        Integer shards,
        Boolean onDemand,
        Integer retentionHours,
        Classification classification,
        String schema,
        String partitionKey) {

    public StreamDefinition {
        onDemand = onDemand != null && onDemand;
        partitionKey = partitionKey == null ? "key" : partitionKey;
        retentionHours = retentionHours == null ? 24 : retentionHours;
        classification = classification == null ? Classification.INTERNAL : classification;
    }
}
