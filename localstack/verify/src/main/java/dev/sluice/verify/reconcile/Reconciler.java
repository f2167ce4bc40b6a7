package dev.sluice.verify.reconcile;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.definition.FieldPaths;
import dev.sluice.core.definition.SinkDefinition;
import dev.sluice.core.definition.StageDefinition;
import dev.sluice.core.stage.Timestamps;
import dev.sluice.local.provision.PipelineResources;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.zip.GZIPInputStream;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * Reads every target of a lake + table + dead-letter pipeline and checks it against the
 * producer's ledger: each valid event exactly once in the lake and in the table, each invalid one
 * in the dead-letter queue with the expected reason code, nothing else anywhere. The dead-letter
 * queue is at least once (a standard SQS queue may deliver a message twice by itself): a record
 * dead lettered again with a redelivered batch counts once. A producer's re-send of an event (same
 * {@code eventId}, another position) is one event: once in each target.
 * With an {@link AggregateCheck}, also the aggregate table: for each (key, window), the item's
 * count and sum equal those of the ledger's valid events that were not reported {@code LATE} (a
 * late valid event is reported once on the dead-letter queue as a side output and still lands in
 * the lake and the table).
 */
public final class Reconciler {

    private static final int MAX_PROBLEMS = 10;

    private final S3Client s3;
    private final DynamoDbClient dynamoDb;
    private final SqsClient sqs;
    private final ObjectMapper mapper = new ObjectMapper();
    private final ObjectMapper decimals = new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

    public Reconciler(S3Client s3, DynamoDbClient dynamoDb, SqsClient sqs) {
        this.s3 = s3;
        this.dynamoDb = dynamoDb;
        this.sqs = sqs;
    }

    /**
     * Reconciles a lake + table stage as provisioned: its lake, its table, its dead-letter queue
     * and, if it aggregates, its aggregate table.
     */
    public Reconciliation reconcile(List<LedgerEntry> ledger, PipelineResources resources, StageDefinition stage) {
        return reconcile(ledger, resources, stage, Set.of());
    }

    /**
     * Reconciles a lake + table stage as provisioned, where the aggregate store refuses the valid
     * events {@code refusedByAggregate} (by {@code eventId}): each must be in the lake and the table,
     * in the dead-letter queue with reason {@code SINK_REJECTED} and its payload, and counted in no
     * aggregate.
     */
    public Reconciliation reconcile(
            List<LedgerEntry> ledger,
            PipelineResources resources,
            StageDefinition stage,
            Set<String> refusedByAggregate) {
        return reconcile(
                ledger,
                resources.bucket(),
                lakePrefix(resources, stage),
                resources.tables().get(sink(stage, SinkDefinition.Kind.TABLE)),
                resources.queueUrls().get(stage.failure().deadLetterQueue()),
                AggregateCheck.of(stage, resources.tables()),
                refusedByAggregate);
    }

    /** The prefix of the stage's lake. */
    public static String lakePrefix(PipelineResources resources, StageDefinition stage) {
        return resources
                .definition()
                .lakes()
                .get(sink(stage, SinkDefinition.Kind.LAKE))
                .prefix();
    }

    /** The stage's first sink of a kind (its logical target name). */
    public static String sink(StageDefinition stage, SinkDefinition.Kind kind) {
        return stage.sinks().stream()
                .filter(s -> s.kind() == kind)
                .map(SinkDefinition::target)
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("the stage has no " + kind + " sink to reconcile"));
    }

    /**
     * Where a pipeline's events take effect, for {@link #ownEvents}.
     *
     * @param bucket the lake bucket, or {@code null} when no stage writes a lake
     * @param lakePrefix the lake's prefix
     * @param table the serving table, or {@code null} when no stage writes one
     * @param tableKey the table's key attribute: with {@code eventId} each event is read by key,
     *     else the table is scanned
     * @param deadLetterQueueUrl the dead-letter queue
     * @param aggregate the aggregate to check, if any
     */
    public record Targets(
            String bucket,
            String lakePrefix,
            String table,
            String tableKey,
            String deadLetterQueueUrl,
            Optional<AggregateCheck> aggregate) {}

    /**
     * Starts a reconciliation of only the events a run is about to put, in targets that hold other
     * records too (a deployed pipeline, {@code ./sluice smoke}): call it before producing (it reads
     * the aggregate's counts as the baseline), then {@link OwnEvents#check} with the ledger, as
     * often as needed while waiting.
     */
    public OwnEvents ownEvents(Targets targets) {
        return new OwnEvents(
                targets, targets.aggregate().map(this::aggregateCounts).orElse(Map.of()), Instant.now());
    }

    /** Each (key, window) item of an aggregate, as {@code "<key> <windowStart>"}, with its count. */
    public Map<String, Long> aggregateCounts(AggregateCheck check) {
        Map<String, Long> counts = new TreeMap<>();
        for (Map<String, AttributeValue> item :
                dynamoDb.scanPaginator(b -> b.tableName(check.table())).items()) {
            if (item.containsKey("aggregate")
                    && check.aggregate().equals(item.get("aggregate").s())) {
                counts.put(
                        item.get("key").s() + " " + item.get("windowStart").s(),
                        Long.parseLong(item.get("count").n()));
            }
        }
        return counts;
    }

    /**
     * The reconciliation of a run's own events: the lake's lines, the table's items and the
     * dead-letter queue's messages of other events are left out; the lake is read only in objects
     * written since the run started; the aggregate only in the (key, window) items the run's events
     * belong in, less the counts they held before (so other events counted there during the run
     * show as duplicates: run it before other traffic). Dead letters read stay counted across
     * checks: a message read is invisible to the next read for its visibility timeout.
     */
    public final class OwnEvents {

        /** S3's LastModified has a second's precision and clocks differ: objects this much older count too. */
        private static final java.time.Duration CLOCK_SKEW = java.time.Duration.ofMinutes(5);

        private final Targets targets;
        private final Map<String, Long> baseline;
        private final Instant since;
        private final Map<String, List<String>> deadLetters = new HashMap<>();
        private final Map<String, String> deadLetterPayloads = new HashMap<>();
        private final Set<String> messagesSeen = new java.util.HashSet<>();

        private OwnEvents(Targets targets, Map<String, Long> baseline, Instant since) {
            this.targets = targets;
            this.baseline = Map.copyOf(baseline);
            this.since = since.minus(CLOCK_SKEW);
        }

        /** The aggregate's counts before the run. */
        public Map<String, Long> baseline() {
            return baseline;
        }

        /** Reads the targets and compares what they hold of the ledger's events with it. */
        public Reconciliation check(List<LedgerEntry> ledger) {
            Set<String> ids = new java.util.HashSet<>();
            Set<String> positions = new java.util.HashSet<>();
            for (LedgerEntry entry : ledger) {
                ids.add(entry.event().eventId());
                positions.add(entry.position());
            }
            boolean lakeChecked = targets.bucket() != null;
            Map<String, Integer> lake = new HashMap<>();
            if (lakeChecked) {
                lakeEventIds(targets.bucket(), targets.lakePrefix(), since).forEach((id, n) -> {
                    if (ids.contains(id)) {
                        lake.put(id, n);
                    }
                });
            }
            boolean tableChecked = targets.table() != null;
            Map<String, Integer> items = new HashMap<>();
            if (tableChecked && "eventId".equals(targets.tableKey())) {
                for (LedgerEntry entry : ledger) {
                    String id = entry.event().eventId();
                    if (entry.event().valid()
                            && dynamoDb.getItem(b -> b.tableName(targets.table())
                                            // the state sink keys an item by the definition's key field's value
                                            .key(Map.of(
                                                    dev.sluice.aws.sink.DynamoDbStateSink.PARTITION_KEY,
                                                    AttributeValue.fromS(id)))
                                            .consistentRead(true))
                                    .hasItem()) {
                        items.put(id, 1);
                    }
                }
            } else if (tableChecked) {
                tableEventIds(targets.table()).forEach((id, n) -> {
                    if (ids.contains(id)) {
                        items.put(id, n);
                    }
                });
            }
            Map<String, String> payloads = new HashMap<>();
            deadLetterReasons(targets.deadLetterQueueUrl(), payloads, messagesSeen, OWN_VISIBILITY_SECONDS)
                    .forEach((position, reasons) -> {
                        if (positions.contains(position)) {
                            deadLetters
                                    .computeIfAbsent(position, p -> new ArrayList<>())
                                    .addAll(reasons);
                            if (payloads.containsKey(position)) {
                                deadLetterPayloads.put(position, payloads.get(position));
                            }
                        }
                    });
            Map<String, List<String>> letters = new HashMap<>();
            deadLetters.forEach((position, reasons) -> letters.put(position, List.copyOf(reasons)));
            return compare(
                    ledger,
                    new Observed(lakeChecked, lake, tableChecked, items, letters, Map.copyOf(deadLetterPayloads)),
                    targets.aggregate(),
                    baseline,
                    Set.of());
        }
    }

    /**
     * How long a dead letter read by {@link OwnEvents} stays invisible to other readers (of a queue
     * that may hold other messages too).
     */
    private static final int OWN_VISIBILITY_SECONDS = 120;

    /** Reconciles the lake, the table and the dead-letter queue, without an aggregate. */
    public Reconciliation reconcile(
            List<LedgerEntry> ledger, String bucket, String lakePrefix, String table, String deadLetterQueueUrl) {
        return reconcile(ledger, bucket, lakePrefix, table, deadLetterQueueUrl, Optional.empty());
    }

    /**
     * Reconciles the lake, the table, the dead-letter queue and, if given, an aggregate table. With
     * {@code bucket} null the lake is not checked (a stage without one); {@link
     * Reconciliation#reconciled()} then does not apply, check the figures.
     */
    public Reconciliation reconcile(
            List<LedgerEntry> ledger,
            String bucket,
            String lakePrefix,
            String table,
            String deadLetterQueueUrl,
            Optional<AggregateCheck> aggregate) {
        return reconcile(ledger, bucket, lakePrefix, table, deadLetterQueueUrl, aggregate, Set.of());
    }

    private Reconciliation reconcile(
            List<LedgerEntry> ledger,
            String bucket,
            String lakePrefix,
            String table,
            String deadLetterQueueUrl,
            Optional<AggregateCheck> aggregate,
            Set<String> refusedByAggregate) {
        // a stage without a lake: bucket null, the lake is not checked
        boolean lakeChecked = bucket != null;
        Map<String, Integer> lake = lakeChecked ? lakeEventIds(bucket, lakePrefix) : Map.of();
        Map<String, Integer> items = tableEventIds(table);
        Map<String, String> deadLetterPayloads = new HashMap<>();
        Map<String, List<String>> deadLetters = deadLetterReasons(deadLetterQueueUrl, deadLetterPayloads);
        return compare(
                ledger,
                new Observed(lakeChecked, lake, true, items, deadLetters, deadLetterPayloads),
                aggregate,
                null,
                refusedByAggregate);
    }

    /**
     * What was read from the targets.
     *
     * @param lakeChecked whether there is a lake to check
     * @param lake eventId → lake lines holding it
     * @param tableChecked whether there is a table to check
     * @param items eventId → table items holding it
     * @param deadLetters position → reason codes of its dead letters
     * @param deadLetterPayloads position → the record's text, when its message carries it
     */
    private record Observed(
            boolean lakeChecked,
            Map<String, Integer> lake,
            boolean tableChecked,
            Map<String, Integer> items,
            Map<String, List<String>> deadLetters,
            Map<String, String> deadLetterPayloads) {}

    /**
     * Compares what the targets hold with the ledger.
     *
     * @param baseline null: every item of the aggregate is compared; else only the (key, window)
     *     items the ledger's events belong in, each counted minus its count here (read before the
     *     events were put)
     */
    private Reconciliation compare(
            List<LedgerEntry> ledger,
            Observed observed,
            Optional<AggregateCheck> aggregate,
            Map<String, Long> baseline,
            Set<String> refusedByAggregate) {
        boolean lakeChecked = observed.lakeChecked();
        Map<String, Integer> lake = observed.lake();
        Map<String, Integer> items = observed.items();
        Map<String, String> deadLetterPayloads = observed.deadLetterPayloads();
        Map<String, List<String>> deadLetters = new HashMap<>(observed.deadLetters());
        // batches the event-source mapping gave up on: their records may be in the targets, at most once
        List<String[]> givenUpRanges = new ArrayList<>();
        deadLetters.entrySet().removeIf(e -> {
            if (!e.getValue().stream().allMatch(GIVEN_UP::equals)) {
                return false;
            }
            int slash = e.getKey().indexOf('/');
            int dots = e.getKey().indexOf("..");
            givenUpRanges.add(new String[] {
                e.getKey().substring(0, slash),
                e.getKey().substring(slash + 1, dots),
                e.getKey().substring(dots + 2)
            });
            return true;
        });
        Set<String> givenUpIds = new java.util.HashSet<>();
        for (LedgerEntry entry : ledger) {
            if (givenUp(entry, givenUpRanges)) {
                givenUpIds.add(entry.event().eventId());
            }
        }

        List<String> problems = new ArrayList<>();
        long lost = 0;
        long unexpected = 0;
        Map<String, Boolean> validIds = new HashMap<>();
        Map<String, LedgerEntry> invalidPositions = new HashMap<>();
        Map<String, LedgerEntry> validPositions = new HashMap<>();
        for (LedgerEntry entry : ledger) {
            if (givenUpIds.contains(entry.event().eventId())) {
                // reported to the on-failure destination: accounted for; at most once in each target
                if (entry.event().valid()) {
                    validIds.put(entry.event().eventId(), true);
                    validPositions.put(entry.position(), entry);
                } else {
                    invalidPositions.put(entry.position(), entry);
                }
                continue;
            }
            if (entry.event().valid()) {
                validIds.put(entry.event().eventId(), true);
                validPositions.put(entry.position(), entry);
                boolean missing = false;
                if (lakeChecked && !lake.containsKey(entry.event().eventId())) {
                    note(problems, "lost from the lake: " + entry.event().eventId());
                    missing = true;
                }
                if (observed.tableChecked() && !items.containsKey(entry.event().eventId())) {
                    note(problems, "lost from the table: " + entry.event().eventId());
                    missing = true;
                }
                lost += missing ? 1 : 0;
            } else {
                invalidPositions.put(entry.position(), entry);
                List<String> reasons = deadLetters.get(entry.position());
                if (reasons == null) {
                    note(problems, "lost, not dead lettered: " + entry.event().eventId() + " at " + entry.position());
                    lost++;
                } else if (!reasons.get(0).equals(entry.event().expectedReason())) {
                    note(
                            problems,
                            "dead lettered as " + reasons.get(0) + ", expected "
                                    + entry.event().expectedReason() + ": "
                                    + entry.event().eventId());
                    unexpected++;
                }
            }
        }
        long duplicates = 0;
        for (var e : lake.entrySet()) {
            duplicates += e.getValue() - 1;
            if (e.getValue() > 1) {
                note(problems, "in the lake " + e.getValue() + " times: " + e.getKey());
            }
            if (!validIds.containsKey(e.getKey())) {
                note(problems, "in the lake but never produced as valid: " + e.getKey());
                unexpected++;
            }
        }
        for (var e : items.entrySet()) {
            duplicates += e.getValue() - 1;
            if (!validIds.containsKey(e.getKey())) {
                note(problems, "in the table but never produced as valid: " + e.getKey());
                unexpected++;
            }
        }
        java.util.Set<String> invalidPayloads = new java.util.HashSet<>();
        invalidPositions
                .values()
                .forEach(entry -> invalidPayloads.add(new String(entry.event().data(), StandardCharsets.UTF_8)));
        long deadLettered = 0;
        Map<String, Boolean> latePositions = new HashMap<>();
        Set<String> refusedSeen = new java.util.HashSet<>();
        Map<String, String> refusedPayloads = new HashMap<>();
        for (LedgerEntry entry : ledger) {
            if (refusedByAggregate.contains(entry.event().eventId())) {
                refusedPayloads.put(
                        new String(entry.event().data(), StandardCharsets.UTF_8),
                        entry.event().eventId());
            }
        }
        for (var e : deadLetters.entrySet()) {
            LedgerEntry valid = validPositions.get(e.getKey());
            String refusedCopy = refusedPayloads.get(deadLetterPayloads.get(e.getKey()));
            if (valid == null && refusedCopy != null && e.getValue().stream().allMatch(SINK_REJECTED::equals)) {
                // the copy of a refused payment whose put got no answer and was sent again: the copy the
                // stream holds first is the one the stage kept (and the aggregate store refused)
                refusedSeen.add(refusedCopy);
                continue;
            }
            if (valid != null
                    && refusedByAggregate.contains(valid.event().eventId())
                    && e.getValue().stream().allMatch(SINK_REJECTED::equals)) {
                // the aggregate store refused it: still in the lake and the table, dead lettered with its payload
                if (!new String(valid.event().data(), StandardCharsets.UTF_8)
                        .equals(deadLetterPayloads.get(e.getKey()))) {
                    note(problems, "refused by the aggregate but dead lettered without its payload: " + e.getKey());
                    unexpected++;
                }
                refusedSeen.add(valid.event().eventId());
                continue;
            }
            // a dead letter sent again with a redelivered batch is not a duplicate effect: SQS standard
            // queues deliver at least once anyway, and each message names its record's position
            if (validPositions.containsKey(e.getKey()) && e.getValue().stream().allMatch(LATE::equals)) {
                latePositions.put(e.getKey(), true); // a side output: the event carried on to the other sinks
                continue;
            }
            if (!invalidPositions.containsKey(e.getKey())
                    && invalidPayloads.contains(deadLetterPayloads.get(e.getKey()))) {
                // the copy of a bad record whose put got no answer and was sent again: the ledger knows
                // the copy it saw acknowledged; this one is the same record, dead lettered once more
                continue;
            }
            LedgerEntry invalid = invalidPositions.get(e.getKey());
            if (invalid != null && givenUpIds.contains(invalid.event().eventId())) {
                continue; // a bad record of a given-up batch, dead lettered by an invocation that timed out
            }
            deadLettered++;
            if (!invalidPositions.containsKey(e.getKey())) {
                note(problems, "dead lettered but produced as valid: " + e.getKey());
                unexpected++;
            }
        }
        for (String refused : refusedByAggregate) {
            if (validIds.containsKey(refused) && !refusedSeen.contains(refused)) {
                note(problems, "refused by the aggregate but not dead lettered as SINK_REJECTED: " + refused);
                lost++;
            }
        }
        long aggregated = 0;
        if (aggregate.isPresent()) {
            AggregateTotals totals = reconcileAggregate(
                    aggregate.get(), ledger, latePositions, refusedByAggregate, givenUpIds, baseline, problems);
            aggregated = totals.counted;
            lost += totals.lost;
            duplicates += totals.duplicates;
            unexpected += totals.unexpected;
        }
        long givenUpInLake = givenUpIds.stream().filter(lake::containsKey).count();
        long givenUpInTable = givenUpIds.stream().filter(items::containsKey).count();
        return new Reconciliation(
                // a producer re-send of a valid event is one event; each bad record is dead lettered on its own
                validIds.size() + invalidPositions.size(),
                lake.values().stream().mapToLong(Integer::longValue).sum(),
                items.values().stream().mapToLong(Integer::longValue).sum(),
                aggregated,
                deadLettered,
                latePositions.size(),
                lost,
                duplicates,
                unexpected,
                givenUpIds.size(),
                givenUpInLake,
                observed.tableChecked() ? givenUpInTable : 0,
                List.copyOf(problems));
    }

    /** Whether the entry's record is in a batch the event-source mapping gave up on. */
    private static boolean givenUp(LedgerEntry entry, List<String[]> ranges) {
        for (String[] range : ranges) {
            if (range[0].equals(entry.shardId())) {
                BigInteger sequence = new BigInteger(entry.sequenceNumber());
                if (sequence.compareTo(new BigInteger(range[1])) >= 0
                        && sequence.compareTo(new BigInteger(range[2])) <= 0) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The reason code of a side output for an event that missed its window. */
    private static final String LATE = "LATE";

    /**
     * The reason code given here to an on-failure record of the event-source mapping (a batch it gave
     * up: its position is {@code shard/first..last sequence number}).
     */
    public static final String GIVEN_UP = "BATCH_GIVEN_UP";

    /** The reason code of a record a target refused for good. */
    private static final String SINK_REJECTED = "SINK_REJECTED";

    /** What the aggregate comparison found. */
    private static final class AggregateTotals {
        long counted;
        long lost;
        long duplicates;
        long unexpected;
    }

    /**
     * The ledger's expected count and sum per (key, window start) of an aggregate: its valid events,
     * neither late nor refused by the store, each event id once.
     */
    static Map<String, Tally> expectedTallies(
            AggregateCheck check,
            List<LedgerEntry> ledger,
            Map<String, Boolean> late,
            Set<String> refused,
            ObjectMapper decimals) {
        long windowMillis = check.window().toMillis();
        var keyPointer = FieldPaths.pointer(check.keyField());
        var valuePointer = check.valueField() == null ? null : FieldPaths.pointer(check.valueField());
        Map<String, Tally> expected = new TreeMap<>();
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (LedgerEntry entry : ledger) {
            if (!entry.event().valid()
                    || late.containsKey(entry.position())
                    || refused.contains(entry.event().eventId())
                    || !seen.add(entry.event().eventId())) {
                continue; // bad, late, refused by the aggregate store, or a re-send of an event counted already
            }
            JsonNode event;
            try {
                event = decimals.readTree(entry.event().data());
            } catch (IOException e) {
                throw new UncheckedIOException(
                        "a valid ledger event does not parse: " + entry.event().eventId(), e);
            }
            // the pipeline's own reading of event time (a leap second is the last second of its minute)
            Instant occurredAt = Timestamps.parse(event.path("occurredAt").asText());
            if (occurredAt == null) {
                throw new IllegalStateException("a valid ledger event has no RFC 3339 occurredAt: "
                        + entry.event().eventId());
            }
            Instant windowStart =
                    Instant.ofEpochMilli(Math.floorDiv(occurredAt.toEpochMilli(), windowMillis) * windowMillis);
            Tally tally = expected.computeIfAbsent(event.at(keyPointer).asText() + " " + windowStart, k -> new Tally());
            tally.count++;
            if (valuePointer != null) {
                tally.sum = tally.sum.add(event.at(valuePointer).decimalValue());
            }
        }
        return expected;
    }

    /** One (key, window)'s count and sum. */
    static final class Tally {
        long count;
        BigDecimal sum = BigDecimal.ZERO;
    }

    /**
     * Compares each (key, window) item of the aggregate with the ledger's valid, non-late events:
     * fewer counted than the ledger holds is loss, more is a duplicate effect.
     */
    private AggregateTotals reconcileAggregate(
            AggregateCheck check,
            List<LedgerEntry> ledger,
            Map<String, Boolean> late,
            Set<String> refused,
            Map<String, Long> baseline,
            List<String> problems) {
        return reconcileAggregate(check, ledger, late, refused, Set.of(), baseline, problems);
    }

    /**
     * As above; the events {@code givenUp} (batches the mapping gave up on) may be counted or not, once
     * at most: an item may count up to their number in its window beyond the others.
     */
    private AggregateTotals reconcileAggregate(
            AggregateCheck check,
            List<LedgerEntry> ledger,
            Map<String, Boolean> late,
            Set<String> refused,
            Set<String> givenUp,
            Map<String, Long> baseline,
            List<String> problems) {
        var valuePointer = check.valueField() == null ? null : FieldPaths.pointer(check.valueField());
        Set<String> leftOut = new java.util.HashSet<>(refused);
        leftOut.addAll(givenUp);
        Map<String, Tally> expected = expectedTallies(check, ledger, late, leftOut, decimals);
        Map<String, Tally> mayCount = givenUp.isEmpty()
                ? Map.of()
                : expectedTallies(
                        check,
                        ledger.stream()
                                .filter(e -> givenUp.contains(e.event().eventId()))
                                .toList(),
                        late,
                        refused,
                        decimals);
        AggregateTotals totals = new AggregateTotals();
        Map<String, Map<String, AttributeValue>> items = new TreeMap<>();
        for (Map<String, AttributeValue> item :
                dynamoDb.scanPaginator(b -> b.tableName(check.table())).items()) {
            if (item.containsKey("aggregate")
                    && check.aggregate().equals(item.get("aggregate").s())) {
                String window =
                        item.get("key").s() + " " + item.get("windowStart").s();
                if (baseline == null || expected.containsKey(window)) {
                    items.put(window, item);
                }
            }
        }
        for (var e : items.entrySet()) {
            long before = baseline == null ? 0 : baseline.getOrDefault(e.getKey(), 0L);
            long counted = Long.parseLong(e.getValue().get("count").n()) - before;
            totals.counted += counted;
            Tally tally = expected.getOrDefault(e.getKey(), new Tally());
            String what = "aggregate " + check.aggregate() + " (" + e.getKey() + ")";
            long optional = mayCount.containsKey(e.getKey()) ? mayCount.get(e.getKey()).count : 0;
            if (optional > 0 && counted >= tally.count && counted <= tally.count + optional) {
                continue; // some of a given-up batch's events counted, once each
            }
            if (counted < tally.count) {
                totals.lost += tally.count - counted;
                note(problems, what + " counts " + counted + ", the ledger " + tally.count + ": events lost");
            } else if (counted > tally.count) {
                totals.duplicates += counted - tally.count;
                note(problems, "duplicate effect: " + what + " counts " + counted + ", the ledger " + tally.count);
            } else if (valuePointer != null
                    && baseline == null // another event's sum may be in it: a baseline covers counts only
                    && e.getValue().containsKey("sum")
                    && new BigDecimal(e.getValue().get("sum").n()).compareTo(tally.sum) != 0) {
                totals.unexpected++;
                note(
                        problems,
                        what + " sums " + e.getValue().get("sum").n() + ", the ledger " + tally.sum.toPlainString());
            }
        }
        for (var e : expected.entrySet()) {
            if (!items.containsKey(e.getKey())) {
                totals.lost += e.getValue().count;
                note(
                        problems,
                        "lost from aggregate " + check.aggregate() + ": no item for (" + e.getKey() + "), the"
                                + " ledger has " + e.getValue().count + " events");
            }
        }
        return totals;
    }

    private static void note(List<String> problems, String problem) {
        if (problems.size() < MAX_PROBLEMS) {
            problems.add(problem);
        }
    }

    /** eventId → how many lines of the lake hold it. */
    public Map<String, Integer> lakeEventIds(String bucket, String prefix) {
        return lakeEventIds(bucket, prefix, null);
    }

    /** eventId → how many lines of the lake's objects written since {@code since} (null: all) hold it. */
    private Map<String, Integer> lakeEventIds(String bucket, String prefix, Instant since) {
        Map<String, Integer> ids = new HashMap<>();
        for (S3Object object :
                s3.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(prefix)).contents()) {
            if (since != null
                    && object.lastModified() != null
                    && object.lastModified().isBefore(since)) {
                continue;
            }
            try (ResponseInputStream<GetObjectResponse> in =
                            s3.getObject(b -> b.bucket(bucket).key(object.key()));
                    BufferedReader lines = new BufferedReader(
                            new InputStreamReader(new GZIPInputStream(in), StandardCharsets.UTF_8))) {
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                    if (!line.isBlank()) {
                        ids.merge(mapper.readTree(line).path("eventId").asText(), 1, Integer::sum);
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read s3://" + bucket + "/" + object.key(), e);
            }
        }
        return ids;
    }

    /** eventId → how many items of the table hold it. */
    private Map<String, Integer> tableEventIds(String table) {
        Map<String, Integer> ids = new HashMap<>();
        for (Map<String, AttributeValue> item :
                dynamoDb.scanPaginator(b -> b.tableName(table)).items()) {
            ids.merge(item.get("eventId").s(), 1, Integer::sum);
        }
        return ids;
    }

    /**
     * shard/sequence[.sub-sequence] → reason codes of the dead letters for it (and, into {@code payloads}, the
     * record's text when the message carries it). Messages are read, not deleted:
     * they stay for people to inspect once their visibility timeout passes.
     */
    public Map<String, List<String>> deadLetterReasons(String queueUrl, Map<String, String> payloads) {
        return deadLetterReasons(queueUrl, payloads, new java.util.HashSet<>(), 600);
    }

    /**
     * As {@link #deadLetterReasons(String, Map)}, skipping the messages in {@code seen} (and adding
     * those read to it), each read message invisible for {@code visibilitySeconds}.
     */
    private Map<String, List<String>> deadLetterReasons(
            String queueUrl, Map<String, String> payloads, Set<String> seen, int visibilitySeconds) {
        Map<String, List<String>> reasons = new HashMap<>();
        for (DeadLetterMessage letter : deadLetterMessages(queueUrl, seen, visibilitySeconds)) {
            reasons.computeIfAbsent(letter.position(), p -> new ArrayList<>()).add(letter.reasonCode());
            if (letter.payload() != null) {
                payloads.put(letter.position(), letter.payload());
            }
        }
        return reasons;
    }

    /**
     * One dead letter as a stage wrote it.
     *
     * @param stage the stage that wrote it ({@code ?} when the message does not say)
     * @param stream the stream its record was read from ({@code ?} when it does not say)
     * @param position shard/sequence[.sub-sequence] of its record in that stream
     * @param reasonCode its reason code
     * @param payload the record's text, or null when the message does not carry it
     */
    public record DeadLetterMessage(String stage, String stream, String position, String reasonCode, String payload) {}

    /**
     * Every message on a dead-letter queue, read and not deleted (each invisible to other readers for
     * ten minutes, then there again for people to inspect). An unreadable message is one with stage
     * {@code ?} and reason {@code ?}.
     */
    public List<DeadLetterMessage> deadLetterMessages(String queueUrl) {
        return deadLetterMessages(queueUrl, new java.util.HashSet<>(), 600);
    }

    private List<DeadLetterMessage> deadLetterMessages(String queueUrl, Set<String> seen, int visibilitySeconds) {
        List<DeadLetterMessage> letters = new ArrayList<>();
        int emptyReads = 0;
        while (emptyReads < 2) {
            int wait = emptyReads == 0 ? 0 : 1;
            List<Message> messages = sqs.receiveMessage(b -> b.queueUrl(queueUrl)
                            .maxNumberOfMessages(10)
                            .visibilityTimeout(visibilitySeconds)
                            .waitTimeSeconds(wait))
                    .messages();
            messages = messages.stream().filter(m -> seen.add(m.messageId())).toList();
            if (messages.isEmpty()) {
                emptyReads++;
                continue;
            }
            emptyReads = 0;
            for (Message message : messages) {
                try {
                    JsonNode body = mapper.readTree(message.body());
                    JsonNode batch = body.path("KinesisBatchInfo");
                    if (batch.isObject()) {
                        // the event-source mapping's on-failure record of a batch it gave up
                        letters.add(new DeadLetterMessage(
                                "?",
                                "?",
                                batch.path("shardId").asText() + "/"
                                        + batch.path("startSequenceNumber").asText() + ".."
                                        + batch.path("endSequenceNumber").asText(),
                                GIVEN_UP,
                                null));
                        continue;
                    }
                    String position = LedgerEntry.position(
                            body.path("shardId").asText(),
                            body.path("sequenceNumber").asText(),
                            body.path("subSequenceNumber").asLong(0));
                    letters.add(new DeadLetterMessage(
                            body.path("stage").asText("?"),
                            body.path("stream").asText("?"),
                            position,
                            body.path("reasonCode").asText(),
                            body.has("payload") ? body.path("payload").asText() : null));
                } catch (IOException e) {
                    letters.add(new DeadLetterMessage("?", "?", "unreadable/" + message.messageId(), "?", null));
                }
            }
        }
        return letters;
    }

    /**
     * An aggregate's reconciliation against the events that should be in it.
     *
     * @param expected events the aggregate should count
     * @param counted events it counts
     * @param lost counts short of the expected ones, summed over its (key, window) items
     * @param duplicates counts beyond them, summed
     * @param unexpected sums that differ though the counts match
     * @param problems the first few differences, in words
     */
    public record AggregateReconciliation(
            long expected, long counted, long lost, long duplicates, long unexpected, List<String> problems) {
        public AggregateReconciliation {
            problems = List.copyOf(problems);
        }

        public boolean reconciled() {
            return lost == 0 && duplicates == 0 && unexpected == 0;
        }
    }

    /**
     * Reconciles an aggregate written by a stage further down a pipeline (behind a re-key hop, where
     * positions are the hop's, not the ledger's): every item of the aggregate against {@code counted},
     * the ledger events that reached that stage, less those it reported late (by event id).
     */
    public AggregateReconciliation reconcileAggregate(
            AggregateCheck check, List<LedgerEntry> counted, Set<String> lateEventIds) {
        List<String> problems = new ArrayList<>();
        AggregateTotals totals = reconcileAggregate(check, counted, Map.of(), lateEventIds, null, problems);
        long expected = expectedTallies(check, counted, Map.of(), lateEventIds, decimals).values().stream()
                .mapToLong(t -> t.count)
                .sum();
        return new AggregateReconciliation(
                expected, totals.counted, totals.lost, totals.duplicates, totals.unexpected, problems);
    }
}
