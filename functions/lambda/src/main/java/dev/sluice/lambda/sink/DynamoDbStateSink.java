package dev.sluice.lambda.sink;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.core.definition.FieldPaths;
import dev.sluice.core.event.ProcessedEvent;
import dev.sluice.core.stage.EventSink;
import dev.sluice.core.stage.SinkException;
import dev.sluice.core.stage.SinkReport;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;

/**
 * Latest state per key in a DynamoDB table. A write applies only if the event's position is newer
 * than the one stored on the item, so a replayed record is a conditional-check failure: counted as
 * an absorbed duplicate, not an error. Positions are compared as fixed-width strings.
 *
 * <p>Items: {@code pk} (the key), {@code position} (sortable), {@code shardId},
 * {@code sequenceNumber}, {@code eventId}, {@code occurredAt}, {@code ingestedAt} and {@code event}
 * (the event as JSON).
 */
public final class DynamoDbStateSink implements EventSink {

    public static final String PARTITION_KEY = "pk";
    public static final String POSITION = "position";

    private static final String CONDITION = "attribute_not_exists(#pk) OR #position < :position";

    private final DynamoDbClient dynamoDb;
    private final String table;
    private final JsonPointer keyField;
    private final ExecutorService writers;

    /**
     * @param table the physical table name
     * @param keyField the event field holding the key, dotted ({@code eventId}, {@code payload.customerId})
     * @param writers runs the single-item writes of a batch concurrently
     */
    public DynamoDbStateSink(DynamoDbClient dynamoDb, String table, String keyField, ExecutorService writers) {
        this.dynamoDb = dynamoDb;
        this.table = table;
        this.keyField = FieldPaths.pointer(keyField);
        this.writers = writers;
    }

    @Override
    public String name() {
        return "table:" + table;
    }

    @Override
    public SinkReport write(List<ProcessedEvent> events) throws SinkException {
        AtomicInteger applied = new AtomicInteger();
        AtomicInteger absorbed = new AtomicInteger();
        List<CompletableFuture<Void>> writes = new ArrayList<>(events.size());
        for (ProcessedEvent event : events) {
            PutItemRequest put = put(event);
            writes.add(CompletableFuture.runAsync(
                    () -> {
                        try {
                            dynamoDb.putItem(put);
                            applied.incrementAndGet();
                        } catch (ConditionalCheckFailedException replay) {
                            absorbed.incrementAndGet();
                        }
                    },
                    writers));
        }
        try {
            CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)).join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof SdkException sdk) {
                throw SdkErrors.classify("put into " + table, sdk);
            }
            throw new SinkException("put into " + table + ": " + e.getCause(), false, e.getCause());
        }
        return new SinkReport(applied.get(), absorbed.get());
    }

    private PutItemRequest put(ProcessedEvent event) throws SinkException {
        JsonNode key = event.event().at(keyField);
        if (key.isMissingNode() || key.isNull() || key.isContainerNode()) {
            // the definition names a key field every valid event has; a miss is a definition bug
            throw new SinkException(
                    "event " + event.eventId() + " has no key field " + keyField + " for table " + table, false, null);
        }
        String pos = event.position().sortable();
        return PutItemRequest.builder()
                .tableName(table)
                .item(Map.of(
                        PARTITION_KEY,
                        AttributeValue.fromS(key.asText()),
                        POSITION,
                        AttributeValue.fromS(pos),
                        "shardId",
                        AttributeValue.fromS(event.position().shardId()),
                        "sequenceNumber",
                        AttributeValue.fromS(event.position().sequenceNumber()),
                        "eventId",
                        AttributeValue.fromS(event.eventId()),
                        "occurredAt",
                        AttributeValue.fromS(event.occurredAt().toString()),
                        "ingestedAt",
                        AttributeValue.fromS(event.event().path("ingestedAt").asText()),
                        "event",
                        AttributeValue.fromS(event.event().toString())))
                .conditionExpression(CONDITION)
                .expressionAttributeNames(Map.of("#pk", PARTITION_KEY, "#position", POSITION))
                .expressionAttributeValues(Map.of(":position", AttributeValue.fromS(pos)))
                .build();
    }
}
