package dev.sluice.aws.sink;

import dev.sluice.core.stage.AggregateSink;
import dev.sluice.core.stage.SinkException;
import dev.sluice.core.stage.SinkReport;
import dev.sluice.core.window.PartialAggregate;
import dev.sluice.core.window.SequenceNumbers;
import java.math.BigDecimal;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BinaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * Windowed aggregates in DynamoDB, exactly once under redelivery: one item per (aggregate, key,
 * window), updated once per batch, guarded by a per-shard watermark stored on the item.
 *
 * <h2>Item layout</h2>
 *
 * <ul>
 *   <li>{@code pk} (the table's partition key): {@code <aggregate>#<key>#<windowStart>}, e.g.
 *       {@code spend-per-currency-per-hour#EUR#2026-11-30T10:00:00Z} (aggregate names hold no
 *       {@code #} and the window start is last, so a key containing {@code #} stays unambiguous);
 *   <li>{@code aggregate}, {@code key}, {@code windowStart}, {@code windowEnd} (ISO-8601 instants);
 *   <li>{@code count}, and {@code sum}, {@code min}, {@code max} when computed: DynamoDB numbers,
 *       exact decimals;
 *   <li>{@code wm_<shardId>}: per shard, the sequence number of the last record of that shard
 *       counted in this item, zero-padded to 129 digits ({@link SequenceNumbers#fixedWidth}), so it
 *       compares as a fixed-width string;
 *   <li>{@code version}: incremented by every write (optimistic locking);
 *   <li>{@code updatedAt}: when the item was last written.
 * </ul>
 *
 * <h2>Writing a partial</h2>
 *
 * A consistent GetItem reads the item; {@link PartialAggregate#after} restricts the partial to the
 * records after the shard's watermark (whole, nothing — an absorbed duplicate — or, for a longer
 * redelivery straddling the watermark, only its newer records); an UpdateItem then sets the new
 * count, sum, min, max, watermark and version, on condition that the version is still the one read
 * (or that the item still does not exist). A condition failure means another writer (another shard,
 * or this write's own earlier attempt whose response was lost) got there first: the item is read
 * again and the partial re-restricted, up to {@value #MAX_ATTEMPTS} times. Two requests per item per
 * batch; items of a batch are written concurrently.
 *
 * <p>Correct as long as one shard's records reach an item in sequence order, which holds for one
 * batch at a time per shard; with a parallelization factor above one, the definition checks require
 * the aggregate key to be the stream's partition key, so concurrent batches of a shard never share
 * an item.
 */
public final class DynamoDbAggregateSink implements AggregateSink {

    public static final String PARTITION_KEY = "pk";
    public static final String AGGREGATE = "aggregate";
    public static final String KEY = "key";
    public static final String WINDOW_START = "windowStart";
    public static final String WINDOW_END = "windowEnd";
    public static final String COUNT = "count";
    public static final String SUM = "sum";
    public static final String MIN = "min";
    public static final String MAX = "max";
    public static final String VERSION = "version";
    public static final String UPDATED_AT = "updatedAt";
    /** Prefix of the per-shard watermark attributes: {@code wm_shardId-000000000001}. */
    public static final String WATERMARK_PREFIX = "wm_";

    /** Read-compute-write rounds per item before the batch is failed (and delivered again). */
    static final int MAX_ATTEMPTS = 10;

    private static final Logger LOG = LoggerFactory.getLogger(DynamoDbAggregateSink.class);

    private final DynamoDbClient dynamoDb;
    private final Map<String, String> tables;
    private final String defaultTable;
    private final ExecutorService writers;
    private final Clock clock;

    /**
     * @param tables physical table name by aggregate name
     * @param writers runs the writes of a batch's items concurrently
     */
    public DynamoDbAggregateSink(DynamoDbClient dynamoDb, Map<String, String> tables, ExecutorService writers) {
        this(dynamoDb, Map.copyOf(tables), null, writers, Clock.systemUTC());
    }

    /** Every aggregate into one physical table. */
    public DynamoDbAggregateSink(DynamoDbClient dynamoDb, String table, ExecutorService writers) {
        this(dynamoDb, Map.of(), table, writers, Clock.systemUTC());
    }

    private DynamoDbAggregateSink(
            DynamoDbClient dynamoDb,
            Map<String, String> tables,
            String defaultTable,
            ExecutorService writers,
            Clock clock) {
        this.dynamoDb = dynamoDb;
        this.tables = tables;
        this.defaultTable = defaultTable;
        this.writers = writers;
        this.clock = clock;
    }

    /** The item key of a partial's (aggregate, key, window). */
    public static String itemKey(PartialAggregate partial) {
        return partial.aggregate() + "#" + partial.key() + "#" + partial.windowStart();
    }

    /** The attribute holding a shard's watermark. */
    public static String watermarkAttribute(String shardId) {
        return WATERMARK_PREFIX + shardId;
    }

    @Override
    public String name() {
        return "aggregates:" + (defaultTable != null ? defaultTable : String.join(",", tables.values()));
    }

    @Override
    public SinkReport write(List<PartialAggregate> partials) throws SinkException {
        AtomicLong applied = new AtomicLong();
        AtomicLong absorbed = new AtomicLong();
        List<CompletableFuture<Void>> writes = new ArrayList<>(partials.size());
        for (PartialAggregate partial : partials) {
            String table = table(partial.aggregate());
            writes.add(CompletableFuture.runAsync(
                    () -> {
                        long counted = apply(table, partial);
                        applied.addAndGet(counted);
                        absorbed.addAndGet(partial.count() - counted);
                    },
                    writers));
        }
        try {
            CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)).join();
        } catch (CompletionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof SdkException sdk) {
                throw SdkErrors.classify("update aggregates in " + name(), sdk);
            }
            if (cause instanceof Contention contention) {
                throw new SinkException(contention.getMessage(), true, contention);
            }
            throw new SinkException("update aggregates in " + name() + ": " + cause, false, cause);
        }
        return new SinkReport(Math.toIntExact(applied.get()), Math.toIntExact(absorbed.get()));
    }

    private String table(String aggregate) throws SinkException {
        String table = tables.getOrDefault(aggregate, defaultTable);
        if (table == null) {
            throw new SinkException(
                    "no table for aggregate '" + aggregate + "' (aggregates: " + tables.keySet() + ")", false, null);
        }
        return table;
    }

    /** Applies the part of the partial the item has not counted; returns how many events that was. */
    private long apply(String table, PartialAggregate partial) {
        Map<String, AttributeValue> key = Map.of(PARTITION_KEY, AttributeValue.fromS(itemKey(partial)));
        String watermark = watermarkAttribute(partial.shardId());
        for (int attempt = 1; ; attempt++) {
            Map<String, AttributeValue> item = dynamoDb.getItem(
                            b -> b.tableName(table).key(key).consistentRead(true))
                    .item();
            boolean exists = item != null && !item.isEmpty();
            AttributeValue stored = exists ? item.get(watermark) : null;
            Optional<PartialAggregate> rest =
                    partial.after(stored == null ? null : SequenceNumbers.fromFixedWidth(stored.s()));
            if (rest.isEmpty()) {
                return 0;
            }
            try {
                dynamoDb.updateItem(update(table, key, exists ? item : null, rest.get(), watermark));
                return rest.get().count();
            } catch (ConditionalCheckFailedException changed) {
                if (attempt >= MAX_ATTEMPTS) {
                    throw new Contention("aggregate item " + itemKey(partial) + " in " + table + " changed under "
                            + MAX_ATTEMPTS + " consecutive writes; the batch is delivered again");
                }
                LOG.debug(
                        "aggregate item {} changed since read (attempt {}); reading again", itemKey(partial), attempt);
                pause(attempt);
            }
        }
    }

    private UpdateItemRequest update(
            String table,
            Map<String, AttributeValue> key,
            Map<String, AttributeValue> item,
            PartialAggregate rest,
            String watermark) {
        Map<String, String> names = new LinkedHashMap<>();
        Map<String, AttributeValue> values = new HashMap<>();
        List<String> sets = new ArrayList<>();
        set(sets, names, values, AGGREGATE, AttributeValue.fromS(rest.aggregate()));
        set(sets, names, values, KEY, AttributeValue.fromS(rest.key()));
        set(
                sets,
                names,
                values,
                WINDOW_START,
                AttributeValue.fromS(rest.windowStart().toString()));
        set(
                sets,
                names,
                values,
                WINDOW_END,
                AttributeValue.fromS(rest.windowEnd().toString()));
        long count = rest.count() + (item == null ? 0 : number(item, COUNT).longValueExact());
        set(sets, names, values, COUNT, AttributeValue.fromN(Long.toString(count)));
        combine(sets, names, values, item, SUM, rest.sum(), BigDecimal::add);
        combine(sets, names, values, item, MIN, rest.min(), BigDecimal::min);
        combine(sets, names, values, item, MAX, rest.max(), BigDecimal::max);
        set(
                sets,
                names,
                values,
                watermark,
                AttributeValue.fromS(SequenceNumbers.fixedWidth(rest.lastSequenceNumber())));
        long version = item == null ? 0 : number(item, VERSION).longValueExact();
        set(sets, names, values, VERSION, AttributeValue.fromN(Long.toString(version + 1)));
        set(
                sets,
                names,
                values,
                UPDATED_AT,
                AttributeValue.fromS(clock.instant().toString()));
        String condition;
        if (item == null) {
            names.put("#pk", PARTITION_KEY);
            condition = "attribute_not_exists(#pk)";
        } else {
            names.put("#expectedVersion", VERSION);
            values.put(":expectedVersion", AttributeValue.fromN(Long.toString(version)));
            condition = "#expectedVersion = :expectedVersion";
        }
        return UpdateItemRequest.builder()
                .tableName(table)
                .key(key)
                .updateExpression("SET " + String.join(", ", sets))
                .conditionExpression(condition)
                .expressionAttributeNames(names)
                .expressionAttributeValues(values)
                .build();
    }

    /** Sets {@code attribute} to the stored value combined with the partial's, when computed. */
    private static void combine(
            List<String> sets,
            Map<String, String> names,
            Map<String, AttributeValue> values,
            Map<String, AttributeValue> item,
            String attribute,
            BigDecimal partial,
            BinaryOperator<BigDecimal> with) {
        if (partial == null) {
            return;
        }
        BigDecimal result =
                item == null || !item.containsKey(attribute) ? partial : with.apply(number(item, attribute), partial);
        set(sets, names, values, attribute, AttributeValue.fromN(result.toPlainString()));
    }

    private static void set(
            List<String> sets,
            Map<String, String> names,
            Map<String, AttributeValue> values,
            String attribute,
            AttributeValue value) {
        String placeholder = "a" + sets.size();
        names.put("#" + placeholder, attribute);
        values.put(":" + placeholder, value);
        sets.add("#" + placeholder + " = :" + placeholder);
    }

    private static BigDecimal number(Map<String, AttributeValue> item, String attribute) {
        AttributeValue value = item.get(attribute);
        if (value == null || value.n() == null) {
            throw new IllegalStateException(
                    "aggregate item " + item.get(PARTITION_KEY) + " has no number " + attribute);
        }
        return new BigDecimal(value.n());
    }

    private static void pause(int attempt) {
        long millis = ThreadLocalRandom.current().nextLong(1, 10L * Math.min(attempt, 5) + 1);
        try {
            TimeUnit.MILLISECONDS.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Contention("interrupted while retrying a contended aggregate item");
        }
    }

    /** Too many concurrent writers on one item: retryable by delivering the batch again. */
    private static final class Contention extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Contention(String message) {
            super(message);
        }
    }
}
