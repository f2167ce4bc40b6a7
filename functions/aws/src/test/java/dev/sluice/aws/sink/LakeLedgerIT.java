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
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.s3.S3Client;
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

        assertThat(objects()).isEqualTo(written).containsOnlyKeys(object(1000));
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

    /** Every object under the prefix, by key (sorted), with the event ids it holds, in order. */
    private Map<String, List<String>> objects() throws IOException {
        Map<String, List<String>> objects = new LinkedHashMap<>();
        List<String> keys = aws
                .s3()
                .listObjectsV2Paginator(b -> b.bucket(bucket).prefix(PREFIX))
                .contents()
                .stream()
                .map(S3Object::key)
                .sorted()
                .toList();
        for (String key : keys) {
            objects.put(key, SinksIT.eventIds(aws, bucket, List.of(key)));
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
