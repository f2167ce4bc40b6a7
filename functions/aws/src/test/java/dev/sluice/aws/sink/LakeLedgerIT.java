package dev.sluice.aws.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.definition.LakeDefinition;
import dev.sluice.core.event.Position;
import dev.sluice.core.event.ProcessedEvent;
import dev.sluice.core.stage.SinkException;
import dev.sluice.core.stage.SinkReport;
import dev.sluice.emulators.FaultInjector;
import dev.sluice.emulators.FaultInjector.Fault;
import dev.sluice.emulators.LocalAws;
import dev.sluice.emulators.LocalAwsExtension;
import dev.sluice.emulators.ResourceNames;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The lake sink's per-shard commit ledger against s3proxy and dynalite: however a batch is
 * delivered again — retried, bisected, resumed mid-batch, after a crash between the ledger and the
 * object — every record lands in exactly one object, and objects already written keep their
 * boundaries.
 */
@ExtendWith(LocalAwsExtension.class)
class LakeLedgerIT {

    private static final String PREFIX = "payments/";
    private static final String HOUR_10 = "payments/dt=2026-11-30/hr=10/payments-raw-shardId-000000000000-";

    private LocalAws aws;
    private String bucket;
    private String ledger;

    @BeforeEach
    void lakeAndLedger(LocalAws aws, ResourceNames names) {
        this.aws = aws;
        this.bucket = names.name("lake");
        aws.s3().createBucket(b -> b.bucket(bucket));
        this.ledger = SinksIT.ledger(aws, names);
    }

    private S3LakeSink lake() {
        return lake(aws.s3(), aws.dynamoDb());
    }

    private S3LakeSink lake(S3Client s3, DynamoDbClient dynamoDb) {
        return new S3LakeSink(s3, bucket, PREFIX, dynamoDb, ledger);
    }

    @Test
    void everyLedgerWriteSetsTheItemsExpiryToItsTimePlusWhatTheStreamKeeps() throws Exception {
        Instant now = Instant.parse("2026-12-01T02:00:00Z");
        S3LakeSink lake = new S3LakeSink(
                aws.s3(),
                bucket,
                PREFIX,
                aws.dynamoDb(),
                ledger,
                Duration.ofHours(48),
                Clock.fixed(now, ZoneOffset.UTC));

        assertDelivered(lake.write(SinksIT.batch(0, 10, "2026-11-30T10")), 10, 0);

        Map<String, AttributeValue> item =
                ledgerItem(SinksIT.batch(0, 1, "2026-11-30T10").get(0));
        assertThat(item.get(LakeDefinition.LEDGER_EXPIRES_AT).n())
                .isEqualTo(Long.toString(now.plus(Duration.ofHours(48)).getEpochSecond()));
        assertThat(item.get("committed").s()).isEqualTo(position(1009));
    }

    @Test
    void bisectedSecondHalfOfAWrittenBatchIsAbsorbed() throws Exception {
        S3LakeSink lake = lake();
        // the whole batch reached the lake, then another sink failed: Lambda bisects it
        assertDelivered(lake.write(SinksIT.batch(0, 10, "2026-11-30T10")), 10, 0);
        Map<String, List<String>> written = objects();

        assertThat(lake.write(SinksIT.batch(5, 5, "2026-11-30T10"))).isEqualTo(new SinkReport(0, 5));
        assertThat(lake.write(SinksIT.batch(0, 5, "2026-11-30T10"))).isEqualTo(new SinkReport(0, 5));

        assertThat(objects()).isEqualTo(written).containsOnlyKeys(object(1000));
        assertEachOnce(ids(0, 10));
        assertThat(committed(SinksIT.batch(0, 1, "2026-11-30T10").get(0))).isEqualTo(position(1009));
    }

    @Test
    void redeliveryFromAMidBatchPositionWritesNothingTwice() throws Exception {
        S3LakeSink lake = lake();
        assertDelivered(lake.write(SinksIT.batch(0, 10, "2026-11-30T10")), 10, 0);
        Map<String, List<String>> written = objects();

        // the dead-letter queue failed on pay-4: delivered again from there, with newer records
        assertDelivered(lake.write(SinksIT.batch(4, 10, "2026-11-30T10")), 4, 6);

        Map<String, List<String>> after = objects();
        assertThat(after).containsAllEntriesOf(written).hasSize(2);
        assertThat(after.get(object(1010))).containsExactly("pay-10", "pay-11", "pay-12", "pay-13");
        assertEachOnce(ids(0, 14));
    }

    @Test
    void crashAfterObjectBeforeCommitIsAdoptedOnRedelivery() throws Exception {
        // the second ledger write of the first delivery (its commit) never leaves: the writer dies there
        FaultInjector faults = new FaultInjector().on("UpdateItem", 2, Fault.NOT_SENT);
        S3LakeSink crashing = lake(aws.s3(), dynamoDb(faults));

        assertThatThrownBy(() -> crashing.write(SinksIT.batch(0, 10, "2026-11-30T10")))
                .isInstanceOf(SinkException.class)
                .matches(e -> ((SinkException) e).retryable(), "retryable");
        assertThat(faults.fired()).hasSize(1);
        Map<String, AttributeValue> item =
                ledgerItem(SinksIT.batch(0, 1, "2026-11-30T10").get(0));
        assertThat(item).doesNotContainKey("committed");
        assertThat(item.get("open").m().get("key").s()).isEqualTo(object(1000));
        Map<String, List<String>> written = objects();
        assertThat(written).containsOnlyKeys(object(1000));

        // Lambda bisects the failed batch: the second half comes first here, starting mid-object
        S3LakeSink lake = lake();
        assertThat(lake.write(SinksIT.batch(5, 5, "2026-11-30T10"))).isEqualTo(new SinkReport(0, 5));
        assertDelivered(lake.write(SinksIT.batch(0, 12, "2026-11-30T10")), 2, 10);

        Map<String, List<String>> after = objects();
        assertThat(after).containsAllEntriesOf(written).hasSize(2);
        assertThat(after.get(object(1010))).containsExactly("pay-10", "pay-11");
        assertEachOnce(ids(0, 12));
        Map<String, AttributeValue> resolved =
                ledgerItem(SinksIT.batch(0, 1, "2026-11-30T10").get(0));
        assertThat(resolved.get("committed").s()).isEqualTo(position(1011));
        assertThat(resolved).doesNotContainKey("open");
    }

    @Test
    void crashAfterIntentBeforeObjectWritesTheObjectOnce() throws Exception {
        // the object's PUT never leaves: the writer dies with its intent recorded and no object
        FaultInjector faults = new FaultInjector().on("PutObject", 1, Fault.NOT_SENT);
        S3LakeSink crashing = lake(s3(faults), aws.dynamoDb());

        assertThatThrownBy(() -> crashing.write(SinksIT.batch(0, 10, "2026-11-30T10")))
                .isInstanceOf(SinkException.class)
                .matches(e -> ((SinkException) e).retryable(), "retryable");
        assertThat(faults.fired()).hasSize(1);
        assertThat(objects()).isEmpty();
        assertThat(ledgerItem(SinksIT.batch(0, 1, "2026-11-30T10").get(0))).containsKey("open");

        S3LakeSink lake = lake();
        assertDelivered(lake.write(SinksIT.batch(0, 10, "2026-11-30T10")), 10, 0);
        Map<String, List<String>> written = objects();
        assertThat(lake.write(SinksIT.batch(0, 10, "2026-11-30T10"))).isEqualTo(new SinkReport(0, 10));

        // the abandoned intent's key is claimed by a tombstone; the object takes the next generation's key
        assertThat(objects()).isEqualTo(written).containsOnlyKeys(object(1000, 1));
        assertThat(tombstones()).containsExactly(object(1000));
        assertEachOnce(ids(0, 10));
        Map<String, AttributeValue> item =
                ledgerItem(SinksIT.batch(0, 1, "2026-11-30T10").get(0));
        assertThat(item.get("committed").s()).isEqualTo(position(1009));
        assertThat(item).doesNotContainKey("open");
    }

    @Test
    void batchSpanningTwoHoursCommitsEachHourSeparately() throws Exception {
        S3LakeSink lake = lake();
        // even records late in the evening, odd ones just after midnight, interleaved in the shard
        assertDelivered(lake.write(acrossMidnight(0, 6)), 6, 0);
        Map<String, List<String>> written = objects();
        assertThat(written.values())
                .containsExactly(List.of("pay-0", "pay-2", "pay-4"), List.of("pay-1", "pay-3", "pay-5"));

        // delivered again from pay-3 with newer records: per hour, only what follows its commit is new
        assertDelivered(lake.write(acrossMidnight(3, 6)), 3, 3);

        Map<String, List<String>> after = objects();
        assertThat(after).containsAllEntriesOf(written).hasSize(4);
        assertEachOnce(ids(0, 9));
        List<ProcessedEvent> hours = acrossMidnight(0, 2);
        assertThat(committed(hours.get(0))).isEqualTo(position(1008));
        assertThat(committed(hours.get(1))).isEqualTo(position(1007));
        assertThat(lake.ledgerKey(hours.get(0)))
                .isEqualTo("payments/dt=2026-11-30/hr=23/payments-raw/shardId-000000000000");
        assertThat(lake.ledgerKey(hours.get(1)))
                .isEqualTo("payments/dt=2026-12-01/hr=00/payments-raw/shardId-000000000000");
    }

    @Test
    void longerRedeliveryWritesOnlyTheNewRecords() throws Exception {
        S3LakeSink lake = lake();
        assertDelivered(lake.write(SinksIT.batch(0, 5, "2026-11-30T10")), 5, 0);
        Map<String, List<String>> written = objects();

        assertDelivered(lake.write(SinksIT.batch(0, 8, "2026-11-30T10")), 3, 5);
        assertThat(lake.write(SinksIT.batch(0, 8, "2026-11-30T10"))).isEqualTo(new SinkReport(0, 8));

        Map<String, List<String>> after = objects();
        assertThat(after).containsAllEntriesOf(written).hasSize(2);
        assertThat(after.get(object(1005))).containsExactly("pay-5", "pay-6", "pay-7");
        assertEachOnce(ids(0, 8));
    }

    @Test
    void firstDeliveryCostsTwoLedgerWritesAndOnePutPerObject() throws Exception {
        FaultInjector dynamoDbCalls = new FaultInjector();
        FaultInjector s3Calls = new FaultInjector();
        S3LakeSink lake = lake(s3(s3Calls, true), dynamoDb(dynamoDbCalls));

        assertDelivered(lake.write(SinksIT.batch(0, 100, "2026-11-30T10")), 100, 0);

        assertThat(dynamoDbCalls.calls("UpdateItem")).isEqualTo(2);
        assertThat(dynamoDbCalls.calls("GetItem")).isZero();
        // one PUT; only when the emulator loses its response does the SDK repeat it and the sink HEAD it
        int heads = s3Calls.calls("HeadObject");
        assertThat(heads).isLessThanOrEqualTo(1);
        assertThat(s3Calls.calls("PutObject")).isEqualTo(1 + heads);
    }

    @Test
    void lateObjectOfAGivenUpBatchNeverLandsOnceTheNextBatchAbandonedItsIntent() throws Exception {
        // an invocation timed out with its PUT in flight; the mapping gave up on its batch (retries
        // exhausted) and delivers the next one, which finds the intent and no object
        AtomicBoolean nextBatchWritten = new AtomicBoolean();
        FaultInjector faults =
                new FaultInjector().late("PutObject", bucket, 1, () -> nextBatchWritten::get, Duration.ofSeconds(60));
        CompletableFuture<Throwable> timedOut = inFlight(lake(s3(faults), aws.dynamoDb()), SinksIT.batch(0, 10, HOUR));
        awaitIntent(object(1000));

        assertDelivered(lake().write(SinksIT.batch(10, 10, HOUR)), 10, 0);
        nextBatchWritten.set(true);

        assertThat(timedOut.get(60, TimeUnit.SECONDS)).isInstanceOf(FaultInjector.InjectedCrash.class);
        assertThat(faults.fired()).hasSize(1);
        // the late PUT met the tombstone: the given-up records are in no object, none is unnamed
        assertEachOnce(ids(10, 20));
        assertThat(objects()).containsOnlyKeys(object(1010, 1));
        assertThat(tombstones()).containsExactly(object(1000));
        assertThat(committed(SinksIT.batch(0, 1, HOUR).get(0))).isEqualTo(position(1019));
    }

    @Test
    void lateObjectOfABisectedBatchWhoseFirstHalfWasGivenUpDoesNotRepeatItsSecondHalf() throws Exception {
        AtomicBoolean secondHalfWritten = new AtomicBoolean();
        FaultInjector faults =
                new FaultInjector().late("PutObject", bucket, 1, () -> secondHalfWritten::get, Duration.ofSeconds(60));
        CompletableFuture<Throwable> timedOut = inFlight(lake(s3(faults), aws.dynamoDb()), SinksIT.batch(0, 20, HOUR));
        awaitIntent(object(1000));

        // bisected; the first half given up; the second half delivered while the PUT is in flight
        assertDelivered(lake().write(SinksIT.batch(10, 10, HOUR)), 10, 0);
        secondHalfWritten.set(true);

        assertThat(timedOut.get(60, TimeUnit.SECONDS)).isInstanceOf(FaultInjector.InjectedCrash.class);
        assertThat(faults.fired()).hasSize(1);
        assertEachOnce(ids(10, 20));
        assertThat(tombstones()).containsExactly(object(1000));
    }

    @Test
    void lateObjectThatLandsBeforeTheNextBatchLooksIsAdopted() throws Exception {
        AtomicBoolean landNow = new AtomicBoolean();
        FaultInjector faults =
                new FaultInjector().late("PutObject", bucket, 1, () -> landNow::get, Duration.ofSeconds(60));
        CompletableFuture<Throwable> timedOut = inFlight(lake(s3(faults), aws.dynamoDb()), SinksIT.batch(0, 10, HOUR));
        awaitIntent(object(1000));
        landNow.set(true);
        assertThat(timedOut.get(60, TimeUnit.SECONDS)).isInstanceOf(FaultInjector.InjectedCrash.class);

        // the batch was given up, yet its object is in the lake: the next batch adopts it
        assertDelivered(lake().write(SinksIT.batch(10, 10, HOUR)), 10, 0);

        assertThat(tombstones()).isEmpty();
        assertThat(objects()).containsOnlyKeys(object(1000), object(1010));
        assertEachOnce(ids(0, 20));
        assertThat(committed(SinksIT.batch(0, 1, HOUR).get(0))).isEqualTo(position(1019));
    }

    @Test
    void lateObjectThatLandsBetweenTheHeadAndTheClaimIsAdopted() throws Exception {
        AtomicBoolean landNow = new AtomicBoolean();
        FaultInjector faults =
                new FaultInjector().late("PutObject", bucket, 1, () -> landNow::get, Duration.ofSeconds(60));
        CompletableFuture<Throwable> timedOut = inFlight(lake(s3(faults), aws.dynamoDb()), SinksIT.batch(0, 20, HOUR));
        awaitIntent(object(1000));

        // the next writer's HeadObject finds nothing; its next PUT waits until the late object landed
        ExecutionInterceptor landBeforeFirstPut = new ExecutionInterceptor() {
            private final AtomicBoolean done = new AtomicBoolean();

            @Override
            public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
                if (context.request() instanceof PutObjectRequest && done.compareAndSet(false, true)) {
                    landNow.set(true);
                    timedOut.join();
                }
            }
        };
        S3LakeSink next = lake(s3(landBeforeFirstPut), aws.dynamoDb());
        assertDelivered(next.write(SinksIT.batch(10, 10, HOUR)), 0, 10);

        assertThat(timedOut.get(60, TimeUnit.SECONDS)).isInstanceOf(FaultInjector.InjectedCrash.class);
        assertThat(faults.fired()).hasSize(1);
        assertThat(tombstones()).isEmpty();
        assertThat(objects()).containsOnlyKeys(object(1000));
        assertEachOnce(ids(0, 20));
        assertThat(committed(SinksIT.batch(0, 1, HOUR).get(0))).isEqualTo(position(1019));
    }

    @Test
    void writerWhoseIntentWasTakenOverWritesUnderTheNextGeneration() throws Exception {
        // a slow writer's intent is abandoned (and its key claimed) by another before its PUT leaves
        AtomicBoolean takenOver = new AtomicBoolean();
        FaultInjector slowFaults = new FaultInjector();
        ExecutionInterceptor takenOverBeforePut = new ExecutionInterceptor() {
            @Override
            public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
                if (context.request() instanceof PutObjectRequest && takenOver.compareAndSet(false, true)) {
                    try {
                        // the other writer, a duplicate delivery of the same records, resolves the intent
                        assertDelivered(lake().write(SinksIT.batch(0, 10, HOUR)), 10, 0);
                    } catch (SinkException e) {
                        throw new IllegalStateException(e);
                    }
                }
            }
        };
        S3LakeSink slow = lake(s3(slowFaults, takenOverBeforePut), aws.dynamoDb());

        // the slow writer's PUT meets the tombstone, and its records are then found committed
        assertThat(slow.write(SinksIT.batch(0, 10, HOUR))).isEqualTo(new SinkReport(0, 10));

        assertThat(tombstones()).containsExactly(object(1000));
        assertThat(objects()).containsOnlyKeys(object(1000, 1));
        assertEachOnce(ids(0, 10));
    }

    /**
     * The report of a delivery that puts objects. s3proxy now and then loses the response to a PUT it
     * stored ("Error writing request body to server"); the SDK repeats the PUT, gets 412 and the
     * sink adopts the object, so its records count as absorbed instead of applied. Every delivered
     * record is counted once either way, and the objects asserted after each delivery show that
     * nothing was written twice.
     */
    private static void assertDelivered(SinkReport report, int applied, int absorbed) {
        assertThat(report.applied() + report.absorbedDuplicates())
                .as("every record counted once: %s", report)
                .isEqualTo(applied + absorbed);
        assertThat(report.absorbedDuplicates())
                .as("at least the duplicates are absorbed: %s", report)
                .isGreaterThanOrEqualTo(absorbed);
    }

    /** Records {@code from..from+count-1}; even ones at 23:xx on 30 November, odd ones at 00:xx on 1 December. */
    private static List<ProcessedEvent> acrossMidnight(int from, int count) {
        List<ProcessedEvent> events = new ArrayList<>();
        for (int i = from; i < from + count; i++) {
            String at = i % 2 == 0 ? "2026-11-30T23:59:%02dZ" : "2026-12-01T00:00:%02dZ";
            events.add(SinksIT.event(
                    "shardId-000000000000", 1000 + i, "pay-" + i, "cust-" + (i % 3), String.format(at, i)));
        }
        return events;
    }

    private static List<String> ids(int from, int to) {
        List<String> ids = new ArrayList<>();
        for (int i = from; i < to; i++) {
            ids.add("pay-" + i);
        }
        return ids;
    }

    private static String position(long sequence) {
        return Position.of("shardId-000000000000", Long.toString(sequence)).sortable();
    }

    /** The key of the hour-10 object that starts at this sequence number. */
    private static String object(long sequence) {
        return HOUR_10 + position(sequence) + ".jsonl.gz";
    }

    private static final String HOUR = "2026-11-30T10";

    /** Writes in the background, as an invocation whose time ran out; its outcome, once it ends. */
    private static CompletableFuture<Throwable> inFlight(S3LakeSink lake, List<ProcessedEvent> batch) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                lake.write(batch);
                return null;
            } catch (Throwable t) {
                return t;
            }
        });
    }

    /** Waits until the ledger holds an intent for this object (its writer's PUT is then on its way). */
    private void awaitIntent(String key) {
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> {
            Map<String, AttributeValue> item =
                    ledgerItem(SinksIT.batch(0, 1, HOUR).get(0));
            return item != null
                    && item.containsKey("open")
                    && key.equals(item.get("open").m().get("key").s());
        });
    }

    /** The tombstones under the prefix: keys of abandoned intents, claimed so that no late object lands. */
    private List<String> tombstones() {
        return keys().stream().filter(this::tombstone).toList();
    }

    private boolean tombstone(String key) {
        return S3LakeSink.isTombstone(
                aws.s3().headObject(b -> b.bucket(bucket).key(key)).metadata());
    }

    private List<String> keys() {
        return aws.s3().listObjectsV2Paginator(b -> b.bucket(bucket).prefix(PREFIX)).contents().stream()
                .map(S3Object::key)
                .sorted()
                .toList();
    }

    /** The key of the hour-10 object that starts at this sequence number, at this generation of the ledger. */
    private static String object(long sequence, long generation) {
        return HOUR_10 + position(sequence) + ".g" + generation + ".jsonl.gz";
    }

    /** Every data object under the prefix (tombstones left out), by key (sorted), with the event ids it holds. */
    private Map<String, List<String>> objects() throws IOException {
        Map<String, List<String>> objects = new LinkedHashMap<>();
        for (String key : keys()) {
            if (!tombstone(key)) {
                objects.put(key, SinksIT.eventIds(aws, bucket, List.of(key)));
            }
        }
        return objects;
    }

    private void assertEachOnce(List<String> expected) throws IOException {
        List<String> all = new ArrayList<>();
        objects().values().forEach(all::addAll);
        assertThat(all).containsExactlyInAnyOrderElementsOf(expected).doesNotHaveDuplicates();
    }

    private Map<String, AttributeValue> ledgerItem(ProcessedEvent event) {
        return aws.dynamoDb()
                .getItem(b -> b.tableName(ledger)
                        .key(Map.of("pk", AttributeValue.fromS(lake().ledgerKey(event))))
                        .consistentRead(true))
                .item();
    }

    private String committed(ProcessedEvent event) {
        return ledgerItem(event).get("committed").s();
    }

    /** A DynamoDB client with faults and no SDK retries: a failed call is where the writer died. */
    private DynamoDbClient dynamoDb(FaultInjector faults) {
        return DynamoDbClient.builder()
                .endpointOverride(aws.dynamoDbEndpoint())
                .region(aws.region())
                .credentialsProvider(aws.credentialsProvider())
                .httpClient(UrlConnectionHttpClient.create())
                .overrideConfiguration(
                        c -> c.addExecutionInterceptor(faults).retryStrategy(AwsRetryStrategy.doNotRetry()))
                .build();
    }

    /** An S3 client with faults and no SDK retries. */
    private S3Client s3(FaultInjector faults) {
        return s3(faults, false);
    }

    /** An S3 client with faults and another interceptor, no SDK retries. */
    private S3Client s3(FaultInjector faults, ExecutionInterceptor also) {
        return S3Client.builder()
                .endpointOverride(aws.s3Endpoint())
                .region(aws.region())
                .credentialsProvider(aws.credentialsProvider())
                .forcePathStyle(true)
                .httpClient(UrlConnectionHttpClient.create())
                .overrideConfiguration(c -> c.addExecutionInterceptor(faults)
                        .addExecutionInterceptor(also)
                        .retryStrategy(AwsRetryStrategy.doNotRetry()))
                .build();
    }

    /** An S3 client with one interceptor, no SDK retries. */
    private S3Client s3(ExecutionInterceptor interceptor) {
        return s3(new FaultInjector(), interceptor);
    }

    /** An S3 client with faults, and the SDK's standard retries when {@code sdkRetries}. */
    private S3Client s3(FaultInjector faults, boolean sdkRetries) {
        return S3Client.builder()
                .endpointOverride(aws.s3Endpoint())
                .region(aws.region())
                .credentialsProvider(aws.credentialsProvider())
                .forcePathStyle(true)
                .httpClient(UrlConnectionHttpClient.create())
                .overrideConfiguration(c -> {
                    c.addExecutionInterceptor(faults);
                    if (sdkRetries) {
                        c.retryStrategy(software.amazon.awssdk.core.retry.RetryMode.STANDARD);
                    } else {
                        c.retryStrategy(AwsRetryStrategy.doNotRetry());
                    }
                })
                .build();
    }
}
