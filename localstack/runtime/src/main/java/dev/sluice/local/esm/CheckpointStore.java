package dev.sluice.local.esm;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;

/**
 * Per-shard checkpoints of a local event-source mapping, in a DynamoDB table (hash key
 * {@code lease}), so that a restarted runner resumes after the last acknowledged record.
 */
public final class CheckpointStore {

    /**
     * A shard's checkpoint.
     *
     * @param sequenceNumber the last record acknowledged, or {@code null} if none yet
     * @param shardEnded whether the shard is closed and fully processed
     */
    public record Checkpoint(String sequenceNumber, boolean shardEnded) {}

    private final DynamoDbClient dynamoDb;
    private final String table;

    public CheckpointStore(DynamoDbClient dynamoDb, String table) {
        this.dynamoDb = dynamoDb;
        this.table = table;
    }

    public Optional<Checkpoint> get(String lease) {
        GetItemResponse item = dynamoDb.getItem(b -> b.tableName(table)
                .key(Map.of("lease", AttributeValue.fromS(lease)))
                .consistentRead(true));
        if (!item.hasItem() || item.item().isEmpty()) {
            return Optional.empty();
        }
        AttributeValue sequence = item.item().get("sequenceNumber");
        AttributeValue ended = item.item().get("shardEnded");
        return Optional.of(new Checkpoint(
                sequence == null ? null : sequence.s(), ended != null && Boolean.TRUE.equals(ended.bool())));
    }

    public void put(String lease, String sequenceNumber, boolean shardEnded) {
        Map<String, AttributeValue> item = new java.util.HashMap<>();
        item.put("lease", AttributeValue.fromS(lease));
        item.put("shardEnded", AttributeValue.fromBool(shardEnded));
        item.put("updatedAt", AttributeValue.fromS(Instant.now().toString()));
        if (sequenceNumber != null) {
            item.put("sequenceNumber", AttributeValue.fromS(sequenceNumber));
        }
        dynamoDb.putItem(b -> b.tableName(table).item(item));
    }
}
