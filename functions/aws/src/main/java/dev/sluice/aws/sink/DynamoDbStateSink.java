package dev.sluice.aws.sink;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.sluice.aws.access.Access;
import dev.sluice.aws.access.DynamoDb;
import dev.sluice.core.definition.FieldPaths;
import dev.sluice.core.event.Position;
import dev.sluice.core.event.ProcessedEvent;
import dev.sluice.core.stage.DeduplicatingSink;
import dev.sluice.core.stage.SinkException;
import dev.sluice.core.stage.SinkReport;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
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
 * <p>As a stage's de-duplicating table ({@code deduplicate:} in the definition; keyed by
 * {@code eventId}) the first position wins instead: a replay finds its own position on the item,
 * a producer re-send finds another one and is reported, so that the stage keeps it out of its
 * other sinks. Only refused writes cost the extra (consistent) read that tells the two apart.
 *
 * <p>Items: {@code pk} (the key), {@code position} (sortable), {@code shardId},
 * {@code sequenceNumber}, {@code eventId}, {@code occurredAt}, {@code ingestedAt} and {@code event}
 * (the event as JSON).
 */
public final class DynamoDbStateSink implements DeduplicatingSink {

    /**
     * What the sink calls on {@code table}: a conditional {@code PutItem} per event and, when it
     * deduplicates producer re-sends, a consistent {@code GetItem} after each refused put.
     */
    public static List<Access> access(String table, boolean deduplicates) {
        return List.of(
                deduplicates
                        ? Access.table(table, "dynamodb:PutItem", "dynamodb:GetItem")
                        : Access.table(table, "dynamodb:PutItem"),
                DynamoDb.WRITE_KEY);
    }

    public static final String PARTITION_KEY = "pk";
    public static final String POSITION = "position";

    private static final String CONDITION = "attribute_not_exists(#pk) OR #position < :position";
    private static final String FIRST_WINS = "attribute_not_exists(#pk)";

    private final DynamoDbClient dynamoDb;
    private final String table;
    private static final JsonPointer EVENT_ID = JsonPointer.compile("/eventId");

    private final JsonPointer keyField;
    private final ExecutorService writers;
    private final boolean firstPositionWins;

    /**
     * A latest-state table: the newest position per key wins.
     *
     * @param table the physical table name
     * @param keyField the event field holding the key, dotted ({@code eventId}, {@code payload.customerId})
     * @param writers runs the single-item writes of a batch concurrently
     */
    public DynamoDbStateSink(DynamoDbClient dynamoDb, String table, String keyField, ExecutorService writers) {
        this(dynamoDb, table, keyField, writers, false);
    }

    /**
     * @param firstPositionWins the stage's de-duplicating table (keyed by {@code eventId}): the
     *     first position an event arrived at wins, the same event at another position is a
     *     producer re-send, reported by {@link #writeAndGate}
     */
    public DynamoDbStateSink(
            DynamoDbClient dynamoDb,
            String table,
            String keyField,
            ExecutorService writers,
            boolean firstPositionWins) {
        this.dynamoDb = dynamoDb;
        this.table = table;
        this.keyField = FieldPaths.pointer(keyField);
        this.writers = writers;
        this.firstPositionWins = firstPositionWins;
    }

    @Override
    public String name() {
        return "table:" + table;
    }

    @Override
    public Gated writeAndGate(List<ProcessedEvent> events) throws SinkException {
        AtomicInteger applied = new AtomicInteger();
        AtomicInteger absorbed = new AtomicInteger();
        Set<Position> resent = ConcurrentHashMap.newKeySet();
        List<SinkReport.Rejected> rejected = java.util.Collections.synchronizedList(new ArrayList<>());
        List<CompletableFuture<Void>> writes = new ArrayList<>(events.size());
        Set<String> inBatch = new java.util.HashSet<>();
        for (ProcessedEvent event : events) {
            if (firstPositionWins && !inBatch.add(event.eventId())) {
                // sent twice within the batch: the earlier position wins without asking the table
                absorbed.incrementAndGet();
                resent.add(event.position());
                continue;
            }
            PutItemRequest put = put(event);
            writes.add(CompletableFuture.runAsync(
                    () -> {
                        try {
                            dynamoDb.putItem(put);
                            applied.incrementAndGet();
                        } catch (ConditionalCheckFailedException replay) {
                            absorbed.incrementAndGet();
                            if (firstPositionWins
                                    && !storedAt(put).equals(event.position().sortable())) {
                                resent.add(event.position());
                            }
                        } catch (AwsServiceException e) {
                            if (!SdkErrors.rejectsRecord(e)) {
                                throw e;
                            }
                            rejected.add(new SinkReport.Rejected(
                                    event, e.awsErrorDetails().errorMessage()));
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
        return new Gated(new SinkReport(applied.get(), absorbed.get(), rejected), resent);
    }

    /** The position stored on the item a put was refused for (consistent read). */
    private String storedAt(PutItemRequest put) {
        Map<String, AttributeValue> item = dynamoDb.getItem(b -> b.tableName(table)
                        .key(Map.of(PARTITION_KEY, put.item().get(PARTITION_KEY)))
                        .consistentRead(true)
                        .projectionExpression("#position")
                        .expressionAttributeNames(Map.of("#position", POSITION)))
                .item();
        AttributeValue position = item == null ? null : item.get(POSITION);
        return position == null ? "" : position.s();
    }

    private PutItemRequest put(ProcessedEvent event) throws SinkException {
        // keyed by eventId (the usual case), the event's tree is not needed at all
        JsonNode key = keyField.equals(EVENT_ID)
                ? TextNode.valueOf(event.eventId())
                : event.event().at(keyField);
        if (key.isMissingNode() || key.isNull() || key.isContainerNode()) {
            // the definition names a key field every valid event has; a miss is a definition bug
            throw new SinkException(
                    "event " + event.eventId() + " has no key field " + keyField + " for table " + table, false, null);
        }
        String pos = event.position().sortable();
        Map<String, AttributeValue> item = new java.util.HashMap<>(Map.of(
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
                AttributeValue.fromS(event.ingestedAt()),
                "event",
                AttributeValue.fromS(new String(event.json(), StandardCharsets.UTF_8))));
        if (event.position().subSequence() != 0) {
            // a user record of a KPL aggregate (the position above holds it too)
            item.put(
                    "subSequenceNumber",
                    AttributeValue.fromN(Long.toString(event.position().subSequence())));
        }
        return PutItemRequest.builder()
                .tableName(table)
                .item(item)
                .conditionExpression(firstPositionWins ? FIRST_WINS : CONDITION)
                .expressionAttributeNames(
                        firstPositionWins
                                ? Map.of("#pk", PARTITION_KEY)
                                : Map.of("#pk", PARTITION_KEY, "#position", POSITION))
                .expressionAttributeValues(firstPositionWins ? null : Map.of(":position", AttributeValue.fromS(pos)))
                .build();
    }
}
