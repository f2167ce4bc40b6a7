package dev.sluice.aws.sink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.stage.SinkException;
import dev.sluice.core.stage.SinkReport;
import dev.sluice.core.window.AggregateFunction;
import dev.sluice.core.window.PartialAggregate;
import dev.sluice.core.window.SequenceNumbers;
import dev.sluice.core.window.TumblingWindows;
import dev.sluice.emulators.FaultInjector;
import dev.sluice.emulators.FaultInjector.Fault;
import dev.sluice.emulators.LocalAws;
import dev.sluice.emulators.LocalAwsExtension;
import dev.sluice.emulators.ResourceNames;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The DynamoDB aggregate sink against dynalite: whatever the event-source mapping redelivers
 * (replays, bisected halves, longer batches, lost responses), each record is counted once.
 */
@ExtendWith(LocalAwsExtension.class)
class AggregateSinkIT {

    private static final ExecutorService WRITERS = Executors.newFixedThreadPool(4);

    private static final String SHARD_A = "shardId-000000000000";
    private static final String SHARD_B = "shardId-000000000001";
    /** Realistic 56-digit sequence numbers: sequence {@code i} of a test is {@code BASE + i}. */
    private static final BigDecimal BASE = new BigDecimal("49590338271490256608559692538361571095921575989136588000");

    private static final Instant HOUR = Instant.parse("2026-11-30T10:00:00Z");
    private static final TumblingWindows WINDOWS = new TumblingWindows(
            "spend-per-currency-per-hour",
            Duration.ofHours(1),
            Duration.ofHours(24),
            EnumSet.allOf(AggregateFunction.class));

    @AfterAll
    static void stopWriters() {
        WRITERS.shutdownNow();
    }

    private static String table(LocalAws aws, ResourceNames names) {
        return Tables.create(aws, names.name("aggregates"), DynamoDbAggregateSink.PARTITION_KEY);
    }

    private static String sequence(int i) {
        return BASE.add(BigDecimal.valueOf(i)).toPlainString();
    }

    /** The value of record {@code i}: distinct, with cents, some negative. */
    private static BigDecimal value(int i) {
        return BigDecimal.valueOf(i * 137L % 1000 - 300, 2);
    }

    /** The partials of one delivered batch: records {@code from..to} (inclusive) of a shard, all EUR. */
    private static List<PartialAggregate> batch(String shard, int from, int to) {
        TumblingWindows.Batch batch = WINDOWS.startBatch();
        for (int i = from; i <= to; i++) {
            Instant at = HOUR.plusSeconds(i);
            batch.add("EUR", at, value(i), at.plusSeconds(1), shard, sequence(i));
        }
        return batch.finish();
    }

    private static BigDecimal sum(int from, int to) {
        BigDecimal sum = BigDecimal.ZERO;
        for (int i = from; i <= to; i++) {
            sum = sum.add(value(i));
        }
        return sum;
    }

    private static Map<String, AttributeValue> item(LocalAws aws, String table, String key) {
        return item(aws, table, "spend-per-currency-per-hour", key);
    }

    private static Map<String, AttributeValue> item(LocalAws aws, String table, String aggregate, String key) {
        String pk = aggregate + "#" + key + "#" + HOUR;
        return aws.dynamoDb()
                .getItem(b -> b.tableName(table)
                        .key(Map.of(DynamoDbAggregateSink.PARTITION_KEY, AttributeValue.fromS(pk)))
                        .consistentRead(true))
                .item();
    }

    /** A client of the local DynamoDB whose requests pass {@code faults} (which also counts them). */
    private static DynamoDbClient client(LocalAws aws, FaultInjector faults) {
        return DynamoDbClient.builder()
                .endpointOverride(aws.dynamoDbEndpoint())
                .region(aws.region())
                .credentialsProvider(aws.credentialsProvider())
                .httpClient(UrlConnectionHttpClient.create())
                .overrideConfiguration(c -> c.addExecutionInterceptor(faults))
                .build();
    }

    private static long count(Map<String, AttributeValue> item) {
        return Long.parseLong(item.get(DynamoDbAggregateSink.COUNT).n());
    }

    private static BigDecimal number(Map<String, AttributeValue> item, String attribute) {
        return new BigDecimal(item.get(attribute).n());
    }

    @Test
    void replayedBatchAddsNothing(LocalAws aws, ResourceNames names) throws SinkException {
        String table = table(aws, names);
        DynamoDbAggregateSink sink = new DynamoDbAggregateSink(aws.dynamoDb(), table, WRITERS);

        SinkReport first = sink.write(batch(SHARD_A, 1, 10));
        SinkReport replay = sink.write(batch(SHARD_A, 1, 10));

        assertThat(first).isEqualTo(new SinkReport(10, 0));
        assertThat(replay).isEqualTo(new SinkReport(0, 10));
        Map<String, AttributeValue> item = item(aws, table, "EUR");
        assertThat(count(item)).isEqualTo(10);
        assertThat(number(item, "sum")).isEqualByComparingTo(sum(1, 10));
        assertThat(item.get("wm_" + SHARD_A).s()).isEqualTo(SequenceNumbers.fixedWidth(sequence(10)));
        assertThat(item.get("aggregate").s()).isEqualTo("spend-per-currency-per-hour");
        assertThat(item.get("key").s()).isEqualTo("EUR");
        assertThat(item.get("windowStart").s()).isEqualTo("2026-11-30T10:00:00Z");
        assertThat(item.get("windowEnd").s()).isEqualTo("2026-11-30T11:00:00Z");
        assertThat(item.get("version").n()).isEqualTo("1");
    }

    @Test
    void bisectedHalvesOfAnAppliedBatchAddNothing(LocalAws aws, ResourceNames names) throws SinkException {
        String table = table(aws, names);
        DynamoDbAggregateSink sink = new DynamoDbAggregateSink(aws.dynamoDb(), table, WRITERS);
        sink.write(batch(SHARD_A, 1, 10));

        SinkReport firstHalf = sink.write(batch(SHARD_A, 1, 5));
        SinkReport secondHalf = sink.write(batch(SHARD_A, 6, 10));

        assertThat(firstHalf).isEqualTo(new SinkReport(0, 5));
        assertThat(secondHalf).isEqualTo(new SinkReport(0, 5));
        Map<String, AttributeValue> item = item(aws, table, "EUR");
        assertThat(count(item)).isEqualTo(10);
        assertThat(number(item, "sum")).isEqualByComparingTo(sum(1, 10));
    }

    @Test
    void longerRedeliveryAddsOnlyTheNewRecords(LocalAws aws, ResourceNames names) throws SinkException {
        String table = table(aws, names);
        DynamoDbAggregateSink sink = new DynamoDbAggregateSink(aws.dynamoDb(), table, WRITERS);
        sink.write(batch(SHARD_A, 1, 10));

        // another sink failed after this one applied 1..10; the retry starts at 5 and runs to 15
        SinkReport straddling = sink.write(batch(SHARD_A, 5, 15));

        assertThat(straddling).isEqualTo(new SinkReport(5, 6));
        Map<String, AttributeValue> item = item(aws, table, "EUR");
        assertThat(count(item)).isEqualTo(15);
        assertThat(number(item, "sum")).isEqualByComparingTo(sum(1, 15));
        assertThat(item.get("wm_" + SHARD_A).s()).isEqualTo(SequenceNumbers.fixedWidth(sequence(15)));
    }

    @Test
    void twoShardsCountIndependently(LocalAws aws, ResourceNames names) throws SinkException {
        String table = table(aws, names);
        DynamoDbAggregateSink sink = new DynamoDbAggregateSink(aws.dynamoDb(), table, WRITERS);

        // the same sequence numbers in two shards are different records
        SinkReport a = sink.write(batch(SHARD_A, 1, 10));
        SinkReport b = sink.write(batch(SHARD_B, 1, 10));
        SinkReport replayA = sink.write(batch(SHARD_A, 1, 10));
        SinkReport moreB = sink.write(batch(SHARD_B, 8, 12));

        assertThat(List.of(a, b, replayA, moreB))
                .containsExactly(
                        new SinkReport(10, 0), new SinkReport(10, 0), new SinkReport(0, 10), new SinkReport(2, 3));
        Map<String, AttributeValue> item = item(aws, table, "EUR");
        assertThat(count(item)).isEqualTo(22);
        assertThat(number(item, "sum")).isEqualByComparingTo(sum(1, 10).add(sum(1, 12)));
        assertThat(item.get("wm_" + SHARD_A).s()).isEqualTo(SequenceNumbers.fixedWidth(sequence(10)));
        assertThat(item.get("wm_" + SHARD_B).s()).isEqualTo(SequenceNumbers.fixedWidth(sequence(12)));
    }

    @Test
    void concurrentShardsUpdatingOneItemLoseNothing(LocalAws aws, ResourceNames names) throws Exception {
        String table = table(aws, names);
        DynamoDbAggregateSink sink = new DynamoDbAggregateSink(aws.dynamoDb(), table, WRITERS);
        ExecutorService shards = Executors.newFixedThreadPool(4);
        try {
            List<Future<Long>> applied = new ArrayList<>();
            for (int s = 0; s < 4; s++) {
                String shard = "shardId-00000000000" + (s + 2);
                Callable<Long> consumer = () -> {
                    long total = 0;
                    for (int from = 1; from <= 40; from += 4) {
                        // as the event-source mapping does: a retryable failure (the item stayed
                        // contended for every attempt) delivers the same batch again
                        while (true) {
                            try {
                                total +=
                                        sink.write(batch(shard, from, from + 3)).applied();
                                break;
                            } catch (SinkException e) {
                                if (!e.retryable()) {
                                    throw e;
                                }
                            }
                        }
                    }
                    return total;
                };
                applied.add(shards.submit(consumer));
            }
            long total = 0;
            for (Future<Long> f : applied) {
                total += f.get();
            }

            assertThat(total).isEqualTo(160);
            Map<String, AttributeValue> item = item(aws, table, "EUR");
            assertThat(count(item)).isEqualTo(160);
            assertThat(number(item, "sum")).isEqualByComparingTo(sum(1, 40).multiply(BigDecimal.valueOf(4)));
        } finally {
            shards.shutdownNow();
        }
    }

    /** A count-only aggregate (as clickstream's views per page per minute): one request per item. */
    private static final TumblingWindows COUNTS = new TumblingWindows(
            "views-per-page-per-minute",
            Duration.ofHours(1),
            Duration.ofHours(24),
            EnumSet.of(AggregateFunction.COUNT));

    private static List<PartialAggregate> counts(String shard, int from, int to) {
        TumblingWindows.Batch batch = COUNTS.startBatch();
        for (int i = from; i <= to; i++) {
            Instant at = HOUR.plusSeconds(i);
            batch.add("/home", at, null, at.plusSeconds(1), shard, sequence(i));
        }
        return batch.finish();
    }

    @Test
    void aCountOnlyPartialTakesOneRequestAndRedeliveriesStillCountOnce(LocalAws aws, ResourceNames names)
            throws SinkException {
        String table = table(aws, names);
        FaultInjector calls = new FaultInjector();
        DynamoDbClient client = client(aws, calls);
        DynamoDbAggregateSink sink = new DynamoDbAggregateSink(client, table, WRITERS);

        SinkReport first = sink.write(counts(SHARD_A, 1, 10));
        int getsAfterFirst = calls.calls("GetItem");
        int updatesAfterFirst = calls.calls("UpdateItem");
        SinkReport otherShard = sink.write(counts(SHARD_B, 1, 5));
        SinkReport replay = sink.write(counts(SHARD_A, 1, 10));
        SinkReport longer = sink.write(counts(SHARD_A, 6, 15));
        SinkReport next = sink.write(counts(SHARD_A, 16, 20));

        // a first delivery: one UpdateItem, no read
        assertThat(first).isEqualTo(new SinkReport(10, 0));
        assertThat(getsAfterFirst).isZero();
        assertThat(updatesAfterFirst).isEqualTo(1);
        assertThat(otherShard).isEqualTo(new SinkReport(5, 0));
        // a redelivery fails the condition and is read: absorbed whole, or only its new records counted
        assertThat(replay).isEqualTo(new SinkReport(0, 10));
        assertThat(longer).isEqualTo(new SinkReport(5, 5));
        assertThat(next).isEqualTo(new SinkReport(5, 0));
        assertThat(calls.calls("GetItem")).isEqualTo(2);
        Map<String, AttributeValue> item = item(aws, table, "views-per-page-per-minute", "/home");
        assertThat(count(item)).isEqualTo(25);
        assertThat(item).doesNotContainKeys("sum", "min", "max");
        assertThat(item.get("wm_" + SHARD_A).s()).isEqualTo(SequenceNumbers.fixedWidth(sequence(20)));
        assertThat(item.get("wm_" + SHARD_B).s()).isEqualTo(SequenceNumbers.fixedWidth(sequence(5)));
        assertThat(item.get("version").n()).isEqualTo("4");
        assertThat(item.get("aggregate").s()).isEqualTo("views-per-page-per-minute");
        assertThat(item.get("windowEnd").s()).isEqualTo("2026-11-30T11:00:00Z");
    }

    @Test
    void countOnlyAndReadThenWriteShardsOnOneItemLoseNothing(LocalAws aws, ResourceNames names) throws Exception {
        String table = table(aws, names);
        DynamoDbAggregateSink sink = new DynamoDbAggregateSink(aws.dynamoDb(), table, WRITERS);
        ExecutorService shards = Executors.newFixedThreadPool(4);
        try {
            List<Future<Long>> applied = new ArrayList<>();
            for (int s = 0; s < 4; s++) {
                String shard = "shardId-00000000000" + (s + 2);
                int lane = s;
                applied.add(shards.submit(() -> {
                    long total = 0;
                    for (int from = 1; from <= 40; from += 4) {
                        // every other shard also delivers each batch twice, the second time one longer:
                        // its blind adds race the others' read-then-write rounds on the same item
                        List<List<PartialAggregate>> deliveries = lane % 2 == 0
                                ? List.of(counts(shard, from, from + 3))
                                : List.of(counts(shard, from, from + 2), counts(shard, from, from + 3));
                        for (List<PartialAggregate> delivery : deliveries) {
                            while (true) {
                                try {
                                    total += sink.write(delivery).applied();
                                    break;
                                } catch (SinkException e) {
                                    if (!e.retryable()) {
                                        throw e;
                                    }
                                }
                            }
                        }
                    }
                    return total;
                }));
            }
            long total = 0;
            for (Future<Long> f : applied) {
                total += f.get();
            }

            assertThat(total).isEqualTo(160);
            Map<String, AttributeValue> item = item(aws, table, "views-per-page-per-minute", "/home");
            assertThat(count(item)).isEqualTo(160);
        } finally {
            shards.shutdownNow();
        }
    }

    @Test
    void minAndMaxSurviveReplays(LocalAws aws, ResourceNames names) throws SinkException {
        String table = table(aws, names);
        DynamoDbAggregateSink sink = new DynamoDbAggregateSink(aws.dynamoDb(), table, WRITERS);
        BigDecimal min = batch(SHARD_A, 1, 20).get(0).min();
        BigDecimal max = batch(SHARD_A, 1, 20).get(0).max();

        sink.write(batch(SHARD_A, 1, 20));
        sink.write(batch(SHARD_A, 1, 20));
        sink.write(batch(SHARD_A, 5, 10));
        Map<String, AttributeValue> replayed = item(aws, table, "EUR");
        sink.write(batch(SHARD_A, 15, 30));
        Map<String, AttributeValue> extended = item(aws, table, "EUR");

        assertThat(number(replayed, "min")).isEqualByComparingTo(min);
        assertThat(number(replayed, "max")).isEqualByComparingTo(max);
        assertThat(count(replayed)).isEqualTo(20);
        assertThat(number(extended, "min"))
                .isEqualByComparingTo(batch(SHARD_A, 1, 30).get(0).min());
        assertThat(number(extended, "max"))
                .isEqualByComparingTo(batch(SHARD_A, 1, 30).get(0).max());
        assertThat(count(extended)).isEqualTo(30);
        // the extension brought a new extreme, so the check above is not vacuous
        assertThat(batch(SHARD_A, 1, 30).get(0).max()).isNotEqualByComparingTo(max);
    }

    @Test
    void updateWhoseResponseWasLostIsRetriedAndCountedOnce(LocalAws aws, ResourceNames names) {
        String table = table(aws, names);
        FaultInjector faults = new FaultInjector().on("UpdateItem", 1, Fault.RESPONSE_LOST);
        DynamoDbClient faulty = client(aws, faults);
        DynamoDbAggregateSink sink = new DynamoDbAggregateSink(faulty, table, WRITERS);

        SinkReport total = SinkReport.EMPTY;
        int deliveries = 0;
        boolean durable = false;
        while (!durable && deliveries < 5) {
            deliveries++;
            try {
                SinkReport report = sink.write(batch(SHARD_A, 1, 10));
                total = new SinkReport(
                        total.applied() + report.applied(), total.absorbedDuplicates() + report.absorbedDuplicates());
                durable = true;
            } catch (SinkException e) {
                assertThat(e.retryable())
                        .as("an unknown outcome is retryable: %s", e.getMessage())
                        .isTrue();
            }
        }

        assertThat(durable).isTrue();
        assertThat(faults.fired()).hasSize(1);
        assertThat(faults.calls("UpdateItem")).isGreaterThanOrEqualTo(1);
        // the lost write took effect; whoever tried again found it counted
        assertThat(total).isEqualTo(new SinkReport(0, 10));
        Map<String, AttributeValue> item = item(aws, table, "EUR");
        assertThat(count(item)).isEqualTo(10);
        assertThat(number(item, "sum")).isEqualByComparingTo(sum(1, 10));
    }

    /** The partials of one batch of EUR records of a shard: sequence {@code i} → its value. */
    private static List<PartialAggregate> batchOf(String shard, Map<Integer, String> values) {
        TumblingWindows.Batch batch = WINDOWS.startBatch();
        new java.util.TreeMap<>(values).forEach((i, value) -> {
            Instant at = HOUR.plusSeconds(i);
            batch.add("EUR", at, new BigDecimal(value), at.plusSeconds(1), shard, sequence(i));
        });
        return batch.finish();
    }

    private static List<String> refusedSequences(SinkReport report) {
        return report.refused().stream().map(SinkReport.Refused::sequenceNumber).toList();
    }

    @Test
    void aRecordThatWouldOverflowTheSumIsLeftOutAndTheRestIsCounted(LocalAws aws, ResourceNames names)
            throws SinkException {
        String table = table(aws, names);
        DynamoDbAggregateSink sink = new DynamoDbAggregateSink(aws.dynamoDb(), table, WRITERS);
        String nearlyFull = "999999999999999999999999999999999990.00"; // 38 digits at scale 2
        sink.write(batchOf(SHARD_A, Map.of(1, nearlyFull)));

        // +4 fits, +7 on top would need 39 digits, +3 fits again
        SinkReport report = sink.write(batchOf(SHARD_A, Map.of(2, "4.00", 3, "7.00", 4, "3.00")));

        assertThat(report.applied()).isEqualTo(2);
        assertThat(report.absorbedDuplicates()).isZero();
        assertThat(report.refused()).singleElement().satisfies(r -> {
            assertThat(r.shardId()).isEqualTo(SHARD_A);
            assertThat(r.sequenceNumber()).isEqualTo(sequence(3));
            assertThat(r.reason())
                    .contains("the sum would be")
                    .contains("39 digits")
                    .contains("at most 38");
        });
        Map<String, AttributeValue> item = item(aws, table, "EUR");
        assertThat(count(item)).isEqualTo(3);
        // DynamoDB keeps numbers without trailing zeros: the exact 999...997.00 reads back as 999...997
        assertThat(item.get("sum").n()).isEqualTo("999999999999999999999999999999999997");
        assertThat(item.get("wm_" + SHARD_A).s()).isEqualTo(SequenceNumbers.fixedWidth(sequence(4)));
        assertThat(item.get("rj_" + SHARD_A).m()).containsOnlyKeys(SequenceNumbers.fixedWidth(sequence(3)));
    }

    @Test
    void aRedeliveredBatchRefusesTheSameRecordAgainAndCountsNothingTwice(LocalAws aws, ResourceNames names)
            throws SinkException {
        String table = table(aws, names);
        DynamoDbAggregateSink sink = new DynamoDbAggregateSink(aws.dynamoDb(), table, WRITERS);
        sink.write(batchOf(SHARD_A, Map.of(1, "999999999999999999999999999999999990.00")));
        Map<Integer, String> batch = Map.of(2, "4.00", 3, "7.00", 4, "3.00");
        SinkReport first = sink.write(batchOf(SHARD_A, batch));

        // the dead-letter queue failed after the sink was durable: the whole batch comes again, and longer
        SinkReport replay = sink.write(batchOf(SHARD_A, batch));
        SinkReport longer = sink.write(batchOf(SHARD_A, Map.of(2, "4.00", 3, "7.00", 4, "3.00", 5, "-20.00")));

        assertThat(replay.applied()).isZero();
        assertThat(replay.absorbedDuplicates()).isEqualTo(2);
        assertThat(replay.refused()).isEqualTo(first.refused());
        assertThat(longer.applied()).isEqualTo(1);
        assertThat(longer.absorbedDuplicates()).isEqualTo(2);
        assertThat(refusedSequences(longer)).containsExactly(sequence(3));
        Map<String, AttributeValue> item = item(aws, table, "EUR");
        assertThat(count(item)).isEqualTo(4);
        assertThat(item.get("sum").n()).isEqualTo("999999999999999999999999999999999977");
    }

    @Test
    void aKeyTheStoreRefusesLeavesOutItsRecordsOnlyAndDecidesTheSameOnRedelivery(LocalAws aws, ResourceNames names)
            throws SinkException {
        String table = table(aws, names);
        DynamoDbAggregateSink sink = new DynamoDbAggregateSink(aws.dynamoDb(), table, WRITERS);
        String tooLong = "k".repeat(2100); // the item key would exceed DynamoDB's 2,048 bytes
        TumblingWindows.Batch batch = WINDOWS.startBatch();
        for (int i = 1; i <= 6; i++) {
            Instant at = HOUR.plusSeconds(i);
            batch.add(i % 3 == 0 ? tooLong : "EUR", at, value(i), at.plusSeconds(1), SHARD_A, sequence(i));
        }
        List<PartialAggregate> partials = batch.finish();

        SinkReport first = sink.write(partials);
        SinkReport again = sink.write(partials);

        assertThat(first.applied()).isEqualTo(4);
        assertThat(refusedSequences(first)).containsExactly(sequence(3), sequence(6));
        assertThat(first.refused())
                .allSatisfy(r -> assertThat(r.reason())
                        .startsWith("DynamoDB refused the update (ValidationException): ")
                        .contains("2048 bytes"));
        assertThat(again.applied()).isZero();
        assertThat(again.absorbedDuplicates()).isEqualTo(4);
        assertThat(again.refused()).isEqualTo(first.refused());
        assertThat(count(item(aws, table, "EUR"))).isEqualTo(4);
    }

    @Test
    void aValidationErrorIsPinnedOnTheRecordThatCausesItByHalving(LocalAws aws, ResourceNames names)
            throws SinkException {
        String table = table(aws, names);
        // stands in for DynamoDB refusing one record's value for good: every update whose max would
        // be 777.77 is refused with a ValidationException, on every attempt
        FaultInjector faults = new FaultInjector()
                .refuse(
                        "UpdateItem",
                        table,
                        request -> request instanceof software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest u
                                && u.expressionAttributeNames().entrySet().stream()
                                        .anyMatch(n -> n.getValue().equals("max")
                                                && u.expressionAttributeValues()
                                                        .get(":" + n.getKey().substring(1))
                                                        .n()
                                                        .equals("777.77")),
                        "the value 777.77 is refused");
        DynamoDbClient refusing = client(aws, faults);
        DynamoDbAggregateSink sink = new DynamoDbAggregateSink(refusing, table, WRITERS);
        Map<Integer, String> values = new java.util.HashMap<>();
        for (int i = 1; i <= 20; i++) {
            values.put(i, i == 13 ? "777.77" : i + ".00");
        }

        SinkReport report = sink.write(batchOf(SHARD_A, values));
        SinkReport replay = sink.write(batchOf(SHARD_A, values));

        assertThat(report.applied()).isEqualTo(19);
        assertThat(report.refused()).singleElement().satisfies(r -> {
            assertThat(r.sequenceNumber()).isEqualTo(sequence(13));
            assertThat(r.reason())
                    .isEqualTo("DynamoDB refused the update (ValidationException): One or more parameter values"
                            + " were invalid: the value 777.77 is refused");
        });
        assertThat(faults.refused()).isGreaterThanOrEqualTo(2);
        assertThat(replay.applied()).isZero();
        assertThat(replay.absorbedDuplicates()).isEqualTo(19);
        assertThat(replay.refused()).isEqualTo(report.refused());
        Map<String, AttributeValue> item = item(aws, table, "EUR");
        assertThat(count(item)).isEqualTo(19);
        assertThat(item.get("sum").n()).isEqualTo("197"); // 1 + ... + 20 without 13
        assertThat(item.get("max").n()).isEqualTo("20");
    }

    /**
     * Seeded random deliveries of one shard near the sum's limit: batches of random length, some
     * delivered again (the same batch, or longer, as after a failed dead-letter send) and some
     * bisected halves replayed. Whatever the order, each record is either counted once or refused
     * — by every delivery that carries it, with the same message — and the item holds exactly the
     * counted records.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(longs = {1L, 7L, 42L})
    void underRandomRedeliveriesEachRecordIsCountedOnceOrRefusedEveryTime(long seed, LocalAws aws, ResourceNames names)
            throws SinkException {
        String table = table(aws, names);
        DynamoDbAggregateSink sink = new DynamoDbAggregateSink(aws.dynamoDb(), table, WRITERS);
        java.util.Random random = new java.util.Random(seed);
        int records = 60;
        Map<Integer, String> values = new java.util.TreeMap<>();
        values.put(0, "999999999999999999999999999999999000.00");
        for (int i = 1; i <= records; i++) {
            values.put(
                    i, BigDecimal.valueOf(random.nextInt(120_001) - 40_000, 2).toPlainString());
        }
        Map<String, String> refusedWith = new java.util.HashMap<>();
        long applied = 0;
        int next = 0;
        while (next <= records) {
            int end = Math.min(records, next + random.nextInt(10));
            List<int[]> deliveries = new ArrayList<>();
            deliveries.add(new int[] {next, end});
            if (random.nextInt(3) == 0) {
                int longer = Math.min(records, end + random.nextInt(5));
                deliveries.add(new int[] {next, longer});
                end = longer;
            }
            if (random.nextInt(3) == 0) {
                deliveries.add(new int[] {next, next + (end - next) / 2}); // a bisected half, replayed
            }
            for (int[] delivery : deliveries) {
                Map<Integer, String> batch = new java.util.TreeMap<>(values).subMap(delivery[0], delivery[1] + 1);
                SinkReport report = sink.write(batchOf(SHARD_A, batch));
                applied += report.applied();
                for (SinkReport.Refused refused : report.refused()) {
                    String earlier = refusedWith.putIfAbsent(refused.sequenceNumber(), refused.reason());
                    assertThat(earlier)
                            .as("the same decision, the same message")
                            .isIn(null, refused.reason());
                }
                // a record refused once is refused by every later delivery that carries it
                for (int i = delivery[0]; i <= delivery[1]; i++) {
                    if (refusedWith.containsKey(sequence(i))) {
                        assertThat(refusedSequences(report)).contains(sequence(i));
                    }
                }
                assertThat(report.applied()
                                + report.absorbedDuplicates()
                                + report.refused().size())
                        .as("every record of the delivery is accounted for once")
                        .isEqualTo(delivery[1] - delivery[0] + 1);
            }
            next = end + 1;
        }

        BigDecimal counted = BigDecimal.ZERO;
        for (var e : values.entrySet()) {
            if (!refusedWith.containsKey(sequence(e.getKey()))) {
                counted = counted.add(new BigDecimal(e.getValue()));
            }
        }
        Map<String, AttributeValue> item = item(aws, table, "EUR");
        assertThat(refusedWith)
                .as("the sum came near its limit: some records were refused")
                .isNotEmpty();
        assertThat(count(item)).isEqualTo(applied).isEqualTo(records + 1 - refusedWith.size());
        assertThat(number(item, "sum")).isEqualByComparingTo(counted);
        assertThat(TumblingWindows.fits(number(item, "sum"), 2)).isTrue();
    }
}
