package dev.sluice.aws.sink;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.sluice.aws.access.Access;
import dev.sluice.aws.access.DynamoDb;
import dev.sluice.core.definition.FieldPaths;
import dev.sluice.core.event.Position;
import dev.sluice.core.event.ProcessedEvent;
import dev.sluice.core.stage.ClaimingSink;
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
        return access(table, deduplicates, false);
    }

    /**
     * @param claimsLake the stage also writes a lake, whose objects the items name: a replayed event
     *     whose object is a tombstone is re-pointed with a conditional {@code UpdateItem}
     */
    public static List<Access> access(String table, boolean deduplicates, boolean claimsLake) {
        return List.of(
                claimsLake
                        ? Access.table(table, "dynamodb:PutItem", "dynamodb:GetItem", "dynamodb:UpdateItem")
                        : deduplicates
                                ? Access.table(table, "dynamodb:PutItem", "dynamodb:GetItem")
                                : Access.table(table, "dynamodb:PutItem"),
                DynamoDb.WRITE_KEY);
    }

    /** Attribute (claim mode): the key of the lake object the event is in, or is being written to. */
    public static final String LAKE = "lake";

    private static final int MAX_REPOINTS = 8;

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
        return gate(events, null, null);
    }

    /**
     * Claim mode: each new item also stores {@code lake} = the plan's key for the event (it is
     * assigned to it). A replay (same position stored) whose item names the plan's key is assigned
     * too (the SDK repeated our own put); one whose item names another object {@code K_old} asks the
     * lake once per batch whether {@code K_old} holds records: yes, the event is in the lake already
     * ({@link Gated#inLake}); no (a tombstone, claimed now if it was missing), the item is re-pointed
     * ({@code UpdateItem lake = K} on condition {@code lake = K_old}; a refused condition reads and
     * decides again) and the event is assigned. Items written before claim mode have no {@code lake}:
     * a replay of one fails the batch for good (switch modes on a drained stream only).
     */
    @Override
    public Gated writeAndGate(List<ProcessedEvent> events, ClaimingSink claims, ClaimingSink.Plan plan)
            throws SinkException {
        return gate(events, claims, plan);
    }

    /** A checked failure carried out of a write task. */
    private static final class Failed extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Failed(SinkException cause) {
            super(cause);
        }
    }

    private Gated gate(List<ProcessedEvent> events, ClaimingSink claims, ClaimingSink.Plan plan) throws SinkException {
        Set<Position> inLake = ConcurrentHashMap.newKeySet();
        Map<String, Boolean> holds = new ConcurrentHashMap<>();
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
            PutItemRequest put = put(event, plan == null ? null : plan.keyOf(event));
            writes.add(CompletableFuture.runAsync(
                    () -> {
                        try {
                            dynamoDb.putItem(put);
                            applied.incrementAndGet();
                        } catch (ConditionalCheckFailedException replay) {
                            absorbed.incrementAndGet();
                            Map<String, AttributeValue> stored = firstPositionWins ? stored(put) : Map.of();
                            if (firstPositionWins
                                    && !text(stored, POSITION)
                                            .equals(event.position().sortable())) {
                                resent.add(event.position());
                            } else if (plan != null && plan.keyOf(event) != null) {
                                try {
                                    if (!claim(put, event, plan.keyOf(event), stored, claims, holds)) {
                                        inLake.add(event.position());
                                    }
                                } catch (SinkException e) {
                                    throw new Failed(e);
                                }
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
            if (e.getCause() instanceof Failed failed) {
                throw (SinkException) failed.getCause();
            }
            if (e.getCause() instanceof SdkException sdk) {
                throw SdkErrors.classify("put into " + table, sdk);
            }
            throw new SinkException("put into " + table + ": " + e.getCause(), false, e.getCause());
        }
        return new Gated(new SinkReport(applied.get(), absorbed.get(), rejected), resent, inLake);
    }

    /**
     * Claims a replayed event for the plan's object {@code key}; {@code false} if it is in the lake
     * already, in the object its item names.
     */
    private boolean claim(
            PutItemRequest put,
            ProcessedEvent event,
            String key,
            Map<String, AttributeValue> stored,
            ClaimingSink claims,
            Map<String, Boolean> holds)
            throws SinkException {
        Map<String, AttributeValue> item = stored;
        for (int round = 0; round < MAX_REPOINTS; round++) {
            String old = text(item, LAKE);
            if (old.isEmpty()) {
                throw new SinkException(
                        "item " + event.eventId() + " in " + table + " names no lake object (written before the"
                                + " lake was claimed through this table); switch modes on a drained stream only",
                        false,
                        null);
            }
            if (old.equals(key)) {
                return true; // our own put, repeated by the SDK
            }
            Boolean holdsRecords = holds.get(old);
            if (holdsRecords == null) {
                holdsRecords = claims.holdsRecords(old);
                holds.put(old, holdsRecords);
            }
            if (holdsRecords) {
                return false;
            }
            try {
                dynamoDb.updateItem(b -> b.tableName(table)
                        .key(Map.of(PARTITION_KEY, put.item().get(PARTITION_KEY)))
                        .updateExpression("SET #lake = :new")
                        .conditionExpression("#lake = :old")
                        .expressionAttributeNames(Map.of("#lake", LAKE))
                        .expressionAttributeValues(
                                Map.of(":new", AttributeValue.fromS(key), ":old", AttributeValue.fromS(old))));
                return true;
            } catch (ConditionalCheckFailedException moved) {
                item = stored(put); // another invocation re-pointed it first: decide again
            }
        }
        throw new SinkException(
                "item " + event.eventId() + " in " + table + " kept being re-pointed (" + MAX_REPOINTS + " rounds)",
                true,
                null);
    }

    private static String text(Map<String, AttributeValue> item, String attribute) {
        AttributeValue value = item == null ? null : item.get(attribute);
        return value == null || value.s() == null ? "" : value.s();
    }

    /** The position and lake object stored on the item a put was refused for (consistent read). */
    private Map<String, AttributeValue> stored(PutItemRequest put) {
        Map<String, AttributeValue> item = dynamoDb.getItem(b -> b.tableName(table)
                        .key(Map.of(PARTITION_KEY, put.item().get(PARTITION_KEY)))
                        .consistentRead(true)
                        .projectionExpression("#position, #lake")
                        .expressionAttributeNames(Map.of("#position", POSITION, "#lake", LAKE)))
                .item();
        return item == null ? Map.of() : item;
    }

    private PutItemRequest put(ProcessedEvent event, String lake) throws SinkException {
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
        if (lake != null) {
            item.put(LAKE, AttributeValue.fromS(lake));
        }
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
