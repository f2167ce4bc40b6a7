package dev.sluice.aws.sink;

import dev.sluice.aws.access.Access;
import dev.sluice.aws.access.DynamoDb;
import dev.sluice.core.definition.LakeDefinition;
import dev.sluice.core.stage.SinkException;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * The lake's commit ledger: one DynamoDB item per lake prefix, stream, shard and event hour, with
 * the last position durably in an object of that hour ({@value #COMMITTED}) and the object being
 * written ({@value #OPEN}: its key, first and last position), recorded before the object is put.
 *
 * <p>Every update is conditional, so a concurrent or late writer cannot move {@value #COMMITTED}
 * backwards nor replace another writer's intent. Opening and committing also set {@link
 * LakeDefinition#LEDGER_EXPIRES_AT} to now plus {@code keep} (the input stream's retention and a
 * day): the table's time to live removes an item once no record it guards can be delivered again. Positions are sortable strings ({@link
 * dev.sluice.core.event.Position#sortable()}), compared as strings.
 */
final class LakeLedger {

    /** What the ledger calls on its table: a consistent {@code GetItem} and conditional {@code UpdateItem}s. */
    static List<Access> access() {
        return List.of(Access.ledger("dynamodb:GetItem", "dynamodb:UpdateItem"), DynamoDb.WRITE_KEY);
    }

    /** Hash key: {@code <prefix>dt=YYYY-MM-DD/hr=HH/<stream>/<shard>}. */
    static final String PARTITION_KEY = "pk";
    /** The last position durably in an object of this hour partition. */
    static final String COMMITTED = "committed";
    /** The object being written: a map of {@value #KEY}, {@value #FIRST} and {@value #LAST}. */
    static final String OPEN = "open";
    /**
     * How many intents of this partition were abandoned (absent: none). An abandoned intent's key is
     * claimed with a tombstone object, so every new intent's key carries the current generation and
     * never meets a tombstone.
     */
    static final String GENERATION = "generation";

    static final String KEY = "key";
    static final String FIRST = "first";
    static final String LAST = "last";

    /** What the ledger says about one hour partition of one shard. */
    record State(String committed, Intent open, long generation) {

        State(String committed, Intent open) {
            this(committed, open, 0);
        }

        /** Whether a record at this sortable position is already in an object. */
        boolean covers(String position) {
            return committed != null && position.compareTo(committed) <= 0;
        }
    }

    /** An object about to be written: its key and the positions of its first and last records. */
    record Intent(String key, String first, String last) {}

    private final DynamoDbClient dynamoDb;
    private final String table;
    private final Duration keep;
    private final Clock clock;

    LakeLedger(DynamoDbClient dynamoDb, String table, Duration keep, Clock clock) {
        this.dynamoDb = dynamoDb;
        this.table = table;
        this.keep = keep;
        this.clock = clock;
    }

    private AttributeValue expiresAt() {
        return AttributeValue.fromN(Long.toString(clock.instant().plus(keep).getEpochSecond()));
    }

    String table() {
        return table;
    }

    /**
     * Records the intent to write an object, if no other object is being written in this partition
     * and nothing at or after its first position is committed, and the partition is still at
     * {@code generation} (the one the intent's key was made for).
     *
     * @return {@code false} if the condition failed: read the state and resolve it
     */
    boolean open(String pk, Intent intent, long generation) throws SinkException {
        Map<String, AttributeValue> values = new HashMap<>(Map.of(
                ":expires",
                expiresAt(),
                ":open",
                AttributeValue.fromM(Map.of(
                        KEY, AttributeValue.fromS(intent.key()),
                        FIRST, AttributeValue.fromS(intent.first()),
                        LAST, AttributeValue.fromS(intent.last()))),
                ":first",
                AttributeValue.fromS(intent.first())));
        String sameGeneration;
        if (generation == 0) {
            sameGeneration = "attribute_not_exists(#generation)";
        } else {
            sameGeneration = "#generation = :generation";
            values.put(":generation", AttributeValue.fromN(Long.toString(generation)));
        }
        return update(UpdateItemRequest.builder()
                .tableName(table)
                .key(key(pk))
                .updateExpression("SET #open = :open, #expires = :expires")
                .conditionExpression("attribute_not_exists(#open) AND (attribute_not_exists(#committed) OR"
                        + " #committed < :first) AND " + sameGeneration)
                .expressionAttributeNames(Map.of(
                        "#open",
                        OPEN,
                        "#committed",
                        COMMITTED,
                        "#expires",
                        LakeDefinition.LEDGER_EXPIRES_AT,
                        "#generation",
                        GENERATION))
                .expressionAttributeValues(values)
                .build());
    }

    /**
     * Commits the object {@code key}: {@value #COMMITTED} becomes {@code last} and the intent is
     * removed, if the intent is still for that object and {@code last} is after what is committed.
     *
     * @return {@code false} if the condition failed
     */
    boolean commit(String pk, String key, String last) throws SinkException {
        return update(UpdateItemRequest.builder()
                .tableName(table)
                .key(key(pk))
                .updateExpression("SET #committed = :last, #expires = :expires REMOVE #open")
                .conditionExpression("#open.#key = :key AND (attribute_not_exists(#committed) OR #committed < :last)")
                .expressionAttributeNames(Map.of(
                        "#open",
                        OPEN,
                        "#key",
                        KEY,
                        "#committed",
                        COMMITTED,
                        "#expires",
                        LakeDefinition.LEDGER_EXPIRES_AT))
                .expressionAttributeValues(Map.of(
                        ":key",
                        AttributeValue.fromS(key),
                        ":last",
                        AttributeValue.fromS(last),
                        ":expires",
                        expiresAt()))
                .build());
    }

    /**
     * Removes the intent for object {@code key}, whose key the caller claimed with a tombstone (so its
     * object can never be written), and moves the partition to its next {@value #GENERATION}.
     *
     * @return {@code false} if the intent was no longer there (another writer resolved it)
     */
    boolean abandon(String pk, String key) throws SinkException {
        return update(UpdateItemRequest.builder()
                .tableName(table)
                .key(key(pk))
                .updateExpression("SET #generation = if_not_exists(#generation, :zero) + :one REMOVE #open")
                .conditionExpression("#open.#key = :key")
                .expressionAttributeNames(Map.of("#open", OPEN, "#key", KEY, "#generation", GENERATION))
                .expressionAttributeValues(Map.of(
                        ":key", AttributeValue.fromS(key),
                        ":zero", AttributeValue.fromN("0"),
                        ":one", AttributeValue.fromN("1")))
                .build());
    }

    /** The partition's state, read consistently. */
    State read(String pk) throws SinkException {
        Map<String, AttributeValue> item;
        try {
            item = dynamoDb.getItem(b -> b.tableName(table).key(key(pk)).consistentRead(true))
                    .item();
        } catch (SdkException e) {
            throw SdkErrors.classify("read ledger " + table + " " + pk, e);
        }
        if (item == null || item.isEmpty()) {
            return new State(null, null);
        }
        AttributeValue committed = item.get(COMMITTED);
        AttributeValue open = item.get(OPEN);
        AttributeValue generation = item.get(GENERATION);
        Intent intent = null;
        if (open != null && open.hasM()) {
            Map<String, AttributeValue> m = open.m();
            intent = new Intent(m.get(KEY).s(), m.get(FIRST).s(), m.get(LAST).s());
        }
        return new State(
                committed == null ? null : committed.s(),
                intent,
                generation == null ? 0 : Long.parseLong(generation.n()));
    }

    private boolean update(UpdateItemRequest request) throws SinkException {
        try {
            dynamoDb.updateItem(request);
            return true;
        } catch (ConditionalCheckFailedException e) {
            return false;
        } catch (SdkException e) {
            throw SdkErrors.classify(
                    "update ledger " + table + " "
                            + request.key().get(PARTITION_KEY).s(),
                    e);
        }
    }

    private static Map<String, AttributeValue> key(String pk) {
        Map<String, AttributeValue> key = new HashMap<>(1);
        key.put(PARTITION_KEY, AttributeValue.fromS(pk));
        return key;
    }
}
