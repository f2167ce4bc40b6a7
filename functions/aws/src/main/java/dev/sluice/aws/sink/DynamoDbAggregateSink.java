package dev.sluice.aws.sink;

import dev.sluice.aws.access.Access;
import dev.sluice.aws.access.DynamoDb;
import dev.sluice.core.stage.AggregateSink;
import dev.sluice.core.stage.SinkException;
import dev.sluice.core.stage.SinkReport;
import dev.sluice.core.window.PartialAggregate;
import dev.sluice.core.window.SequenceNumbers;
import dev.sluice.core.window.TumblingWindows;
import java.math.BigDecimal;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BinaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
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
 * <p>A partial that computes only a count (clickstream's views per page per minute) takes one
 * request instead: an UpdateItem that {@code ADD}s its count and version, on condition that the
 * shard's watermark on the item is before the partial's first record. That holds for every first
 * delivery, whatever other shards wrote; a redelivery fails the condition and takes the
 * read-then-write path above, which absorbs what was counted and counts what was not.
 *
 * <h2>Records the store refuses</h2>
 *
 * A total that would not fit what a DynamoDB number holds ({@value TumblingWindows#PRECISION}
 * digits: an overflow) is refused here, before any request; DynamoDB may refuse an update for good
 * too (HTTP 400 {@code ValidationException}, {@link SdkErrors#rejectsRecord}). Either way the sink
 * finds the records that make the update unacceptable instead of failing the batch: it writes the
 * longest acceptable prefix of the partial's records (in sequence order), halving the prefix after
 * each refusal, until a single record is refused alone; that record is left out and reported
 * {@linkplain SinkReport#refused() refused} with the store's message (the batch processor
 * dead-letters it as {@code SINK_REJECTED}), and the rest is counted. A refused record's sequence
 * number and message are stored on the item ({@code rj_<shardId>}, a map) in the same conditional
 * write that moves the watermark past it, so a redelivery of the batch refuses it again, with the
 * same message, rather than counting it or forgetting it. A refusal no single record explains (the
 * item key itself is refused, so not even the refusal can be stored) leaves out every record of the
 * partial: each is dead-lettered with the message, nothing is stored, and a redelivery decides the
 * same way again; the shard is never blocked. Cost: nothing when nothing is refused; about two
 * requests per halving otherwise.
 *
 * <p>Correct as long as one shard's records reach an item in sequence order, which holds for one
 * batch at a time per shard; with a parallelization factor above one, the definition checks require
 * the aggregate key to be the stream's partition key, so concurrent batches of a shard never share
 * an item.
 */
public final class DynamoDbAggregateSink implements AggregateSink {

    /** What the sink calls on an aggregate table: a consistent {@code GetItem}, then a conditional {@code UpdateItem}. */
    public static List<Access> access(String table) {
        return List.of(Access.table(table, "dynamodb:GetItem", "dynamodb:UpdateItem"), DynamoDb.WRITE_KEY);
    }

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
    /**
     * Prefix of the per-shard refusal attributes: {@code rj_shardId-000000000001}, a map from the
     * fixed-width sequence number of each record of that shard the store refused to its message.
     */
    public static final String REFUSED_PREFIX = "rj_";

    /** The longest refusal message kept on an item. */
    static final int MAX_REASON = 400;

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

    /** The attribute holding the records of a shard the store refused for this item. */
    public static String refusedAttribute(String shardId) {
        return REFUSED_PREFIX + shardId;
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
        Queue<SinkReport.Refused> refused = new ConcurrentLinkedQueue<>();
        List<CompletableFuture<Void>> writes = new ArrayList<>(partials.size());
        for (PartialAggregate partial : partials) {
            String table = table(partial.aggregate());
            writes.add(CompletableFuture.runAsync(
                    () -> {
                        Outcome outcome = apply(table, partial);
                        applied.addAndGet(outcome.counted);
                        absorbed.addAndGet(outcome.absorbed);
                        refused.addAll(outcome.refused);
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
            if (cause instanceof Unattributable unattributable) {
                throw new SinkException(unattributable.getMessage(), false, unattributable);
            }
            throw new SinkException("update aggregates in " + name() + ": " + cause, false, cause);
        }
        List<SinkReport.Refused> sorted = new ArrayList<>(refused);
        sorted.sort(Comparator.comparing(SinkReport.Refused::shardId)
                .thenComparing(SinkReport.Refused::sequenceNumber, SequenceNumbers::compare));
        return new SinkReport(Math.toIntExact(applied.get()), Math.toIntExact(absorbed.get()), List.of(), sorted);
    }

    private String table(String aggregate) throws SinkException {
        String table = tables.getOrDefault(aggregate, defaultTable);
        if (table == null) {
            throw new SinkException(
                    "no table for aggregate '" + aggregate + "' (aggregates: " + tables.keySet() + ")", false, null);
        }
        return table;
    }

    /** What one partial came to: records counted now, counted before, and refused. */
    private static final class Outcome {
        long counted;
        long absorbed;
        final List<SinkReport.Refused> refused = new ArrayList<>();
    }

    /** The store refuses an update for good; the message says why. */
    private static final class Refusal extends Exception {
        private static final long serialVersionUID = 1L;

        Refusal(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * Applies the part of the partial the item has not counted, leaving out (and reporting) the
     * records the store refuses.
     */
    private Outcome apply(String table, PartialAggregate partial) {
        Map<String, AttributeValue> key = Map.of(PARTITION_KEY, AttributeValue.fromS(itemKey(partial)));
        if (countsOnly(partial) && addedBlind(table, key, partial)) {
            Outcome outcome = new Outcome();
            outcome.counted = partial.count();
            return outcome;
        }
        for (int attempt = 1; ; attempt++) {
            Map<String, AttributeValue> item;
            try {
                item = read(table, key);
            } catch (AwsServiceException e) {
                if (!SdkErrors.rejectsRecord(e)) {
                    throw e;
                }
                return refusedItem(table, partial, refusal(e), new Outcome(), Map.of());
            }
            Outcome outcome = new Outcome();
            Optional<PartialAggregate> rest = uncounted(item, partial, outcome);
            if (rest.isEmpty()) {
                return outcome;
            }
            try {
                dynamoDb.updateItem(update(table, key, item, partial, rest.get(), null));
                outcome.counted = rest.get().count();
                return outcome;
            } catch (ConditionalCheckFailedException changed) {
                contended(partial, table, attempt);
            } catch (Refusal refusal) {
                return isolate(table, key, partial, refusal);
            } catch (AwsServiceException e) {
                if (!SdkErrors.rejectsRecord(e)) {
                    throw e;
                }
                return isolate(table, key, partial, refusal(e));
            }
        }
    }

    /**
     * Whether the one-request path applies: a partial that computes only a count. Its update commutes
     * with every other writer's (an {@code ADD}), and no count is ever refused. Sums, minima and maxima
     * are read first: a sum is checked against what a DynamoDB number holds before it is written, so
     * that a redelivery refuses exactly what the first delivery refused, and DynamoDB has no min or max.
     */
    private static boolean countsOnly(PartialAggregate partial) {
        return partial.sum() == null && partial.min() == null && partial.max() == null;
    }

    /**
     * The one-request path: adds the whole partial to the item in one conditional {@code UpdateItem},
     * on condition that the shard's watermark is before the partial's first record (or that the shard
     * has none on the item): then none of its records was counted, whatever other shards did. {@code
     * ADD} also raises the version, so a concurrent read-then-write by another shard sees the change.
     *
     * @return {@code false} when the condition fails (a redelivery, a longer redelivery straddling the
     *     watermark, a record refused before) or DynamoDB refuses the update (e.g. an item key over
     *     its limit): the read-then-write path decides, as it always did
     */
    private boolean addedBlind(String table, Map<String, AttributeValue> key, PartialAggregate partial) {
        Map<String, String> names = new LinkedHashMap<>();
        Map<String, AttributeValue> values = new HashMap<>();
        List<String> sets = new ArrayList<>();
        setIdentity(sets, names, values, partial);
        String watermark = "#a" + sets.size();
        set(
                sets,
                names,
                values,
                watermarkAttribute(partial.shardId()),
                AttributeValue.fromS(SequenceNumbers.fixedWidth(partial.lastSequenceNumber())));
        set(
                sets,
                names,
                values,
                UPDATED_AT,
                AttributeValue.fromS(clock.instant().toString()));
        names.put("#count", COUNT);
        names.put("#version", VERSION);
        values.put(":count", AttributeValue.fromN(Long.toString(partial.count())));
        values.put(":one", AttributeValue.fromN("1"));
        values.put(":first", AttributeValue.fromS(SequenceNumbers.fixedWidth(partial.firstSequenceNumber())));
        try {
            dynamoDb.updateItem(b -> b.tableName(table)
                    .key(key)
                    .updateExpression("SET " + String.join(", ", sets) + " ADD #count :count, #version :one")
                    .conditionExpression("attribute_not_exists(" + watermark + ") OR " + watermark + " < :first")
                    .expressionAttributeNames(names)
                    .expressionAttributeValues(values));
            return true;
        } catch (ConditionalCheckFailedException seen) {
            return false;
        } catch (AwsServiceException e) {
            if (!SdkErrors.rejectsRecord(e)) {
                throw e;
            }
            return false;
        }
    }

    /**
     * The partial's records after the shard's watermark; those at or before it are counted into
     * {@code outcome} as absorbed duplicates, or as refused again when the item remembers refusing
     * them (with the message it gave then).
     */
    private static Optional<PartialAggregate> uncounted(
            Map<String, AttributeValue> item, PartialAggregate partial, Outcome outcome) {
        AttributeValue stored = item == null ? null : item.get(watermarkAttribute(partial.shardId()));
        String mark = stored == null ? null : SequenceNumbers.fromFixedWidth(stored.s());
        Optional<PartialAggregate> rest = partial.after(mark);
        long behind = partial.count() - rest.map(PartialAggregate::count).orElse(0L);
        if (behind == 0) {
            return rest;
        }
        Map<String, AttributeValue> refusals = refusals(item, partial.shardId());
        if (refusals.isEmpty() || partial.contributions() == null) {
            outcome.absorbed = behind;
            return rest;
        }
        java.util.Set<String> reported = new java.util.HashSet<>();
        for (int i = 0; i < partial.contributions().size(); i++) {
            String sequence = partial.contributions().sequenceNumber(i);
            if (SequenceNumbers.compare(sequence, mark) > 0) {
                continue;
            }
            AttributeValue reason = refusals.get(SequenceNumbers.fixedWidth(sequence));
            if (reason == null) {
                outcome.absorbed++;
            } else if (reported.add(sequence)) {
                outcome.refused.add(new SinkReport.Refused(partial.shardId(), sequence, reason.s()));
            }
        }
        return rest;
    }

    /**
     * Finds the records of {@code partial} that the store refuses: writes the longest acceptable
     * prefix of what the item has not counted (records in sequence order, those sharing a sequence
     * number together), halving it after each refusal; a single record refused alone is left out
     * and remembered on the item with the next write, which also moves the watermark past it.
     */
    private Outcome isolate(String table, Map<String, AttributeValue> key, PartialAggregate partial, Refusal first) {
        if (partial.contributions() == null) {
            throw new Unattributable("aggregate item " + itemKey(partial) + " in " + table
                    + " refuses the update and the partial's records are unknown: " + first.getMessage());
        }
        LOG.warn(
                "aggregate item {} in {} refuses an update ({}); finding the records it refuses",
                itemKey(partial),
                table,
                first.getMessage());
        Outcome total = null;
        Map<String, String> refusedNow = new LinkedHashMap<>();
        int attempt = 0;
        int take = Integer.MAX_VALUE;
        while (true) {
            Map<String, AttributeValue> item;
            try {
                item = read(table, key);
            } catch (AwsServiceException e) {
                if (!SdkErrors.rejectsRecord(e)) {
                    throw e;
                }
                return refusedItem(table, partial, refusal(e), total == null ? new Outcome() : total, refusedNow);
            }
            Outcome seen = new Outcome();
            Optional<PartialAggregate> rest = uncounted(item, partial, seen);
            if (total == null) {
                // what was counted or refused before this write began; later rounds only see our own writes
                total = seen;
            }
            List<String> pending = sequences(rest);
            pending.removeIf(refusedNow::containsKey);
            if (pending.isEmpty() && refusedNow.isEmpty()) {
                return total;
            }
            take = Math.min(take, pending.size());
            java.util.Set<String> prefix = new java.util.HashSet<>(pending.subList(0, take));
            Optional<PartialAggregate> part = rest.flatMap(r -> r.only(prefix::contains));
            try {
                dynamoDb.updateItem(
                        update(table, key, item, partial, part.orElse(null), remember(item, partial, refusedNow)));
                total.counted += part.map(PartialAggregate::count).orElse(0L);
                report(total, partial, refusedNow);
                if (part.isEmpty()) {
                    return total;
                }
                refusedNow.clear();
                take = Integer.MAX_VALUE;
            } catch (ConditionalCheckFailedException changed) {
                contended(partial, table, ++attempt);
            } catch (Refusal | AwsServiceException e) {
                if (e instanceof AwsServiceException service && !SdkErrors.rejectsRecord(service)) {
                    throw service;
                }
                String reason = e instanceof Refusal
                        ? e.getMessage()
                        : refusal((AwsServiceException) e).getMessage();
                if (part.isEmpty()) {
                    // not even the refusals can be stored: the item itself is refused (e.g. its key is
                    // too long); leave out every record, remember nothing, decide the same way next time
                    LOG.warn(
                            "aggregate item {} in {} refuses even an update that counts nothing: {}",
                            itemKey(partial),
                            table,
                            reason);
                    report(total, partial, refusedNow);
                    return total;
                }
                if (take == 1) {
                    refusedNow.put(pending.get(0), truncate(reason));
                    take = Integer.MAX_VALUE;
                } else {
                    take = (take + 1) / 2;
                }
            }
        }
    }

    /**
     * The item itself is refused (e.g. its key is over DynamoDB's 2,048-byte limit), so nothing of
     * this partial can be counted or remembered: every record not yet reported is refused with the
     * store's message, and a redelivery decides the same way.
     */
    private static Outcome refusedItem(
            String table, PartialAggregate partial, Refusal refusal, Outcome total, Map<String, String> refusedNow) {
        if (partial.contributions() == null) {
            throw new Unattributable("aggregate item " + itemKey(partial) + " in " + table
                    + " is refused and the partial's records are unknown: " + refusal.getMessage());
        }
        LOG.warn("aggregate item {} in {} is refused: {}", itemKey(partial), table, refusal.getMessage());
        report(total, partial, refusedNow);
        java.util.Set<String> reported = new java.util.HashSet<>();
        total.refused.forEach(r -> reported.add(r.sequenceNumber()));
        for (String sequence : sequences(Optional.of(partial))) {
            if (reported.add(sequence)) {
                total.refused.add(new SinkReport.Refused(partial.shardId(), sequence, truncate(refusal.getMessage())));
            }
        }
        return total;
    }

    private static void report(Outcome total, PartialAggregate partial, Map<String, String> refused) {
        refused.forEach(
                (sequence, reason) -> total.refused.add(new SinkReport.Refused(partial.shardId(), sequence, reason)));
    }

    /** The distinct sequence numbers of a partial's records, in sequence order. */
    private static List<String> sequences(Optional<PartialAggregate> partial) {
        java.util.TreeSet<String> sequences = new java.util.TreeSet<>(SequenceNumbers::compare);
        partial.ifPresent(p -> {
            for (int i = 0; i < p.contributions().size(); i++) {
                sequences.add(p.contributions().sequenceNumber(i));
            }
        });
        return new ArrayList<>(sequences);
    }

    /** The shard's stored refusals merged with the new ones, as the item's map; {@code null} if none are new. */
    private static Map<String, AttributeValue> remember(
            Map<String, AttributeValue> item, PartialAggregate partial, Map<String, String> refusedNow) {
        if (refusedNow.isEmpty()) {
            return null;
        }
        Map<String, AttributeValue> merged = new LinkedHashMap<>(refusals(item, partial.shardId()));
        refusedNow.forEach(
                (sequence, reason) -> merged.put(SequenceNumbers.fixedWidth(sequence), AttributeValue.fromS(reason)));
        return merged;
    }

    private static Map<String, AttributeValue> refusals(Map<String, AttributeValue> item, String shardId) {
        AttributeValue stored = item == null ? null : item.get(refusedAttribute(shardId));
        return stored == null || !stored.hasM() ? Map.of() : stored.m();
    }

    private static Refusal refusal(AwsServiceException e) {
        String message = e.awsErrorDetails() != null && e.awsErrorDetails().errorMessage() != null
                ? e.awsErrorDetails().errorMessage()
                : e.getMessage();
        return new Refusal("DynamoDB refused the update (ValidationException): " + message);
    }

    private static String truncate(String reason) {
        return reason.length() <= MAX_REASON ? reason : reason.substring(0, MAX_REASON - 1) + "…";
    }

    private Map<String, AttributeValue> read(String table, Map<String, AttributeValue> key) {
        Map<String, AttributeValue> item = dynamoDb.getItem(
                        b -> b.tableName(table).key(key).consistentRead(true))
                .item();
        return item == null || item.isEmpty() ? null : item;
    }

    private static void contended(PartialAggregate partial, String table, int attempt) {
        if (attempt >= MAX_ATTEMPTS) {
            throw new Contention("aggregate item " + itemKey(partial) + " in " + table + " changed under "
                    + MAX_ATTEMPTS + " consecutive writes; the batch is delivered again");
        }
        LOG.debug("aggregate item {} changed since read (attempt {}); reading again", itemKey(partial), attempt);
        pause(attempt);
    }

    /**
     * The conditional update that adds {@code rest} (or nothing) to the item and moves the shard's
     * watermark past it and past the {@code refused} records (the shard's whole refusal map, or
     * {@code null} when no record is newly refused).
     *
     * @throws Refusal if a total would not fit what a DynamoDB number holds
     */
    private UpdateItemRequest update(
            String table,
            Map<String, AttributeValue> key,
            Map<String, AttributeValue> item,
            PartialAggregate identity,
            PartialAggregate rest,
            Map<String, AttributeValue> refused)
            throws Refusal {
        String watermark = watermarkAttribute(identity.shardId());
        Map<String, String> names = new LinkedHashMap<>();
        Map<String, AttributeValue> values = new HashMap<>();
        List<String> sets = new ArrayList<>();
        setIdentity(sets, names, values, identity);
        long count = (rest == null ? 0 : rest.count())
                + (item == null ? 0 : number(item, COUNT).longValueExact());
        set(sets, names, values, COUNT, AttributeValue.fromN(Long.toString(count)));
        if (rest != null) {
            combine(sets, names, values, item, SUM, rest.sum(), BigDecimal::add);
            combine(sets, names, values, item, MIN, rest.min(), BigDecimal::min);
            combine(sets, names, values, item, MAX, rest.max(), BigDecimal::max);
        }
        String last = rest == null ? null : rest.lastSequenceNumber();
        if (refused != null) {
            for (String sequence : refused.keySet()) {
                String plain = SequenceNumbers.fromFixedWidth(sequence);
                if (last == null || SequenceNumbers.compare(plain, last) > 0) {
                    last = plain;
                }
            }
            set(sets, names, values, refusedAttribute(identity.shardId()), AttributeValue.fromM(refused));
        }
        AttributeValue stored = item == null ? null : item.get(watermark);
        if (stored != null
                && (last == null || SequenceNumbers.compare(SequenceNumbers.fromFixedWidth(stored.s()), last) > 0)) {
            last = SequenceNumbers.fromFixedWidth(stored.s());
        }
        set(sets, names, values, watermark, AttributeValue.fromS(SequenceNumbers.fixedWidth(last)));
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

    /**
     * Sets {@code attribute} to the stored value combined with the partial's, when computed.
     *
     * @throws Refusal if the result would not fit a DynamoDB number: more than {@value
     *     TumblingWindows#PRECISION} digits, or that many before the decimal point (an overflow)
     */
    private static void combine(
            List<String> sets,
            Map<String, String> names,
            Map<String, AttributeValue> values,
            Map<String, AttributeValue> item,
            String attribute,
            BigDecimal partial,
            BinaryOperator<BigDecimal> with)
            throws Refusal {
        if (partial == null) {
            return;
        }
        BigDecimal result =
                item == null || !item.containsKey(attribute) ? partial : with.apply(number(item, attribute), partial);
        int digits = Math.max(result.precision(), result.precision() - result.scale());
        if (digits > TumblingWindows.PRECISION) {
            throw new Refusal("the " + attribute + " would be " + result + ", " + digits + " digits; an aggregate"
                    + " keeps at most " + TumblingWindows.PRECISION + " (what a DynamoDB number holds)");
        }
        set(sets, names, values, attribute, AttributeValue.fromN(result.toPlainString()));
    }

    /** Sets the item's aggregate, key and window from the partial (the same on every write of the item). */
    private static void setIdentity(
            List<String> sets,
            Map<String, String> names,
            Map<String, AttributeValue> values,
            PartialAggregate partial) {
        set(sets, names, values, AGGREGATE, AttributeValue.fromS(partial.aggregate()));
        set(sets, names, values, KEY, AttributeValue.fromS(partial.key()));
        set(
                sets,
                names,
                values,
                WINDOW_START,
                AttributeValue.fromS(partial.windowStart().toString()));
        set(
                sets,
                names,
                values,
                WINDOW_END,
                AttributeValue.fromS(partial.windowEnd().toString()));
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

    /** A refusal the sink cannot pin on records: fatal for the batch. */
    private static final class Unattributable extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Unattributable(String message) {
            super(message);
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
