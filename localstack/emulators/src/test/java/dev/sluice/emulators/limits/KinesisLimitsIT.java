package dev.sluice.emulators.limits;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.sluice.emulators.LocalAws;
import dev.sluice.emulators.LocalAwsOptions;
import dev.sluice.emulators.iam.AccessControl;
import dev.sluice.emulators.iam.AccessGate;
import dev.sluice.emulators.iam.AwsService;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.core.retry.RetryPolicy;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.GetRecordsResponse;
import software.amazon.awssdk.services.kinesis.model.InvalidArgumentException;
import software.amazon.awssdk.services.kinesis.model.KinesisException;
import software.amazon.awssdk.services.kinesis.model.LimitExceededException;
import software.amazon.awssdk.services.kinesis.model.ProvisionedThroughputExceededException;
import software.amazon.awssdk.services.kinesis.model.PutRecordsRequestEntry;
import software.amazon.awssdk.services.kinesis.model.PutRecordsResponse;
import software.amazon.awssdk.services.kinesis.model.ShardIteratorType;
import software.amazon.awssdk.services.kinesis.model.StreamStatus;

/**
 * The real SDK (CBOR) through a Kinesis gate whose quotas run on a frozen clock, in front of the real
 * kinesis-mock: what AWS refuses is refused the way AWS refuses it, and what it accepts is really
 * written.
 */
class KinesisLimitsIT {

    private static LocalAws aws;
    private static AccessGate gate;
    private static KinesisClient kinesis;
    private static final TokenBucketTest.FakeClock CLOCK = new TokenBucketTest.FakeClock();

    @BeforeAll
    static void start() {
        // no gate of LocalAws's own in front of kinesis-mock: its quotas would run on the real clock
        // and throttle this test's calls on a fast machine; the frozen-clock gate below is the only one
        aws = LocalAws.start(
                LocalAwsOptions.builder().accessGates(false).limits(false).build());
        gate = AccessGate.bind(AwsService.KINESIS, "us-east-1", LocalAws.ACCOUNT_ID, new AccessControl("test"));
        gate.backendPort(aws.kinesisEndpoint().getPort());
        gate.limits(new KinesisLimits(CLOCK, stream -> gate.listShards(stream, "test"), LocalAws.ACCOUNT_ID));
        kinesis = client(gate);
    }

    private static KinesisClient client(AccessGate gate) {
        return KinesisClient.builder()
                .endpointOverride(URI.create("http://127.0.0.1:" + gate.port()))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .httpClient(UrlConnectionHttpClient.create())
                .overrideConfiguration(o -> o.retryPolicy(RetryPolicy.none()))
                .build();
    }

    @AfterAll
    static void stop() {
        if (kinesis != null) {
            kinesis.close();
        }
        if (gate != null) {
            gate.close();
        }
        if (aws != null) {
            aws.close();
        }
    }

    private static void createStream(String name, int shards) {
        kinesis.createStream(b -> b.streamName(name).shardCount(shards));
        // a second passes between polls: DescribeStreamSummary is metered at 20 a second per account
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            CLOCK.advance(Duration.ofSeconds(1));
            return kinesis.describeStreamSummary(b -> b.streamName(name))
                            .streamDescriptionSummary()
                            .streamStatus()
                    == StreamStatus.ACTIVE;
        });
    }

    @Test
    void theThousandAndFirstListShardsOfAStreamInOneSecondIsRefusedWithLimitExceededAndAnotherStreamIsNot() {
        createStream("listed", 2);
        createStream("other", 1);
        CLOCK.advance(Duration.ofSeconds(10));
        long before = gate.limits().refusedControlCalls();
        for (int i = 0; i < KinesisLimits.LIST_SHARDS_PER_SECOND; i++) {
            assertThat(kinesis.listShards(b -> b.streamName("listed")).shards()).hasSize(2);
        }

        assertThatThrownBy(() -> kinesis.listShards(b -> b.streamName("listed")))
                .isInstanceOfSatisfying(LimitExceededException.class, e -> {
                    assertThat(e.statusCode()).isEqualTo(400);
                    assertThat(e.awsErrorDetails().errorCode()).isEqualTo("LimitExceededException");
                    assertThat(e.isThrottlingException()).isFalse(); // the SDK does not retry it on its own
                });
        assertThat(kinesis.listShards(b -> b.streamName("other")).shards()).hasSize(1);
        CLOCK.advance(Duration.ofMillis(5)); // 5 ms refill 5 calls of 1,000 a second
        for (int i = 0; i < 5; i++) {
            kinesis.listShards(b -> b.streamName("listed"));
        }
        assertThatThrownBy(() -> kinesis.listShards(b -> b.streamName("listed")))
                .isInstanceOf(LimitExceededException.class);
        assertThat(gate.limits().refusedControlCalls() - before).isEqualTo(2);
    }

    @Test
    void theTwentyFirstDescribeStreamSummaryOfTheAccountInOneSecondIsRefusedWhicheverStreamItNames() {
        createStream("summary-a", 1);
        createStream("summary-b", 1);
        CLOCK.advance(Duration.ofSeconds(10));
        long before = gate.limits().refusedControlCalls();
        for (int i = 0; i < KinesisLimits.DESCRIBE_STREAM_SUMMARY_PER_SECOND; i++) {
            String stream = i % 2 == 0 ? "summary-a" : "summary-b";
            kinesis.describeStreamSummary(b -> b.streamName(stream));
        }

        assertThatThrownBy(() -> kinesis.describeStreamSummary(b -> b.streamName("summary-b")))
                .isInstanceOfSatisfying(
                        LimitExceededException.class,
                        e -> assertThat(e.statusCode()).isEqualTo(400));
        CLOCK.advance(Duration.ofMillis(50)); // one call's allowance (20 a second)
        kinesis.describeStreamSummary(b -> b.streamName("summary-a"));
        assertThat(gate.limits().refusedControlCalls() - before).isEqualTo(1);
    }

    private static List<PutRecordsRequestEntry> entries(int count, String key, int bytes) {
        List<PutRecordsRequestEntry> entries = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            entries.add(PutRecordsRequestEntry.builder()
                    .partitionKey(key)
                    .data(SdkBytes.fromByteArray(new byte[bytes]))
                    .build());
        }
        return entries;
    }

    private static int recordsIn(String stream, String shardId) {
        String iterator = kinesis.getShardIterator(
                        b -> b.streamName(stream).shardId(shardId).shardIteratorType(ShardIteratorType.TRIM_HORIZON))
                .shardIterator();
        CLOCK.advance(Duration.ofSeconds(10));
        return kinesis.getRecords(b -> b.shardIterator(iterator).limit(10_000))
                .records()
                .size();
    }

    @Test
    void aBurstOfFifteenHundredRecordsToOneShardIsAPartialFailureAndOnlyTheThousandAcceptedAreWritten() {
        createStream("burst", 1);
        CLOCK.advance(Duration.ofSeconds(10));
        PutRecordsResponse first = kinesis.putRecords(b -> b.streamName("burst").records(entries(500, "k", 100)));
        PutRecordsResponse second =
                kinesis.putRecords(b -> b.streamName("burst").records(entries(500, "k", 100)));
        PutRecordsResponse third = kinesis.putRecords(b -> b.streamName("burst").records(entries(500, "k", 100)));

        assertThat(first.failedRecordCount()).isZero();
        assertThat(second.failedRecordCount()).isZero();
        assertThat(third.failedRecordCount()).isEqualTo(500);
        assertThat(third.records()).allSatisfy(entry -> {
            assertThat(entry.errorCode()).isEqualTo("ProvisionedThroughputExceededException");
            assertThat(entry.errorMessage())
                    .isEqualTo("Rate exceeded for shard shardId-000000000000 in stream burst under account "
                            + LocalAws.ACCOUNT_ID + ".");
            assertThat(entry.sequenceNumber()).isNull();
        });
        assertThat(recordsIn("burst", "shardId-000000000000")).isEqualTo(1_000);
    }

    @Test
    void twoRecordsOfSixHundredKilobytesInOneSecondFailTheSecondAndKeepTheOrderOfTheAnswers() {
        createStream("bytes", 1);
        CLOCK.advance(Duration.ofSeconds(10));
        List<PutRecordsRequestEntry> entries = new ArrayList<>(entries(1, "k", 600_000));
        entries.addAll(entries(1, "k", 600_000));
        entries.addAll(entries(1, "k", 100));
        PutRecordsResponse response =
                kinesis.putRecords(b -> b.streamName("bytes").records(entries));

        assertThat(response.failedRecordCount()).isEqualTo(1);
        assertThat(response.records().get(0).sequenceNumber()).isNotNull();
        assertThat(response.records().get(1).errorCode()).isEqualTo("ProvisionedThroughputExceededException");
        assertThat(response.records().get(2).sequenceNumber()).isNotNull();
        assertThat(recordsIn("bytes", "shardId-000000000000")).isEqualTo(2);
    }

    @Test
    void aPutRecordOverTheAllowanceIsRefusedWholeWithProvisionedThroughputExceededException() {
        createStream("single", 1);
        CLOCK.advance(Duration.ofSeconds(10));
        kinesis.putRecords(b -> b.streamName("single").records(entries(500, "k", 10)));
        kinesis.putRecords(b -> b.streamName("single").records(entries(500, "k", 10)));
        assertThatThrownBy(() -> kinesis.putRecord(
                        b -> b.streamName("single").partitionKey("k").data(SdkBytes.fromByteArray(new byte[10]))))
                .isInstanceOf(ProvisionedThroughputExceededException.class)
                .hasMessageContaining("Rate exceeded for shard shardId-000000000000 in stream single");
    }

    @Test
    void theSixthGetRecordsOfASecondOnAShardIsThrottled() {
        createStream("reads", 1);
        CLOCK.advance(Duration.ofSeconds(10));
        String iterator = kinesis.getShardIterator(b -> b.streamName("reads")
                        .shardId("shardId-000000000000")
                        .shardIteratorType(ShardIteratorType.TRIM_HORIZON))
                .shardIterator();
        for (int i = 0; i < 5; i++) {
            String current = iterator;
            iterator = kinesis.getRecords(b -> b.shardIterator(current)).nextShardIterator();
        }
        String sixth = iterator;
        assertThatThrownBy(() -> kinesis.getRecords(b -> b.shardIterator(sixth)))
                .isInstanceOf(ProvisionedThroughputExceededException.class);
        CLOCK.advance(Duration.ofMillis(200));
        assertThat(kinesis.getRecords(b -> b.shardIterator(sixth)).records()).isEmpty();
    }

    @Test
    void aRecordGoesToTheShardWhoseHashRangeHoldsIt() {
        createStream("split", 2);
        CLOCK.advance(Duration.ofSeconds(10));
        // "a" hashes into the lower half of the key space (shard 0), "b" into the upper (shard 1)
        PutRecordsResponse response = kinesis.putRecords(
                b -> b.streamName("split").records(entries(1_000, "a", 10).subList(0, 500)));
        kinesis.putRecords(b -> b.streamName("split").records(entries(500, "a", 10)));
        PutRecordsResponse mixed = kinesis.putRecords(b -> b.streamName("split")
                .records(List.of(entries(1, "a", 10).get(0), entries(1, "b", 10).get(0))));
        assertThat(response.records()).allSatisfy(e -> assertThat(e.shardId()).isEqualTo("shardId-000000000000"));
        assertThat(mixed.records().get(0).errorCode()).isEqualTo("ProvisionedThroughputExceededException");
        assertThat(mixed.records().get(1).shardId()).isEqualTo("shardId-000000000001");
    }

    @Test
    void aPutRecordsOfMoreThanFiveHundredRecordsOrFiveMebibytesIsRefusedWhole() {
        createStream("caps", 1);
        CLOCK.advance(Duration.ofSeconds(10));
        long throttledBefore = gate.limits().throttledRecords();

        assertThatThrownBy(() -> kinesis.putRecords(b -> b.streamName("caps").records(entries(501, "k", 10))))
                .isInstanceOfSatisfying(KinesisException.class, e -> {
                    assertThat(e.statusCode()).isEqualTo(400);
                    assertThat(e.awsErrorDetails().errorCode()).isEqualTo("ValidationException");
                    assertThat(e.awsErrorDetails().errorMessage())
                            .contains("'records' failed to satisfy constraint: Member must have length less than or"
                                    + " equal to 500");
                });
        // 6 records of 900,000 bytes: each under 1 MiB, together over 5 MiB
        assertThatThrownBy(() -> kinesis.putRecords(b -> b.streamName("caps").records(entries(6, "k", 900_000))))
                .isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("Records size exceeds 5 MB limit");

        CLOCK.advance(Duration.ofSeconds(10));
        assertThat(recordsIn("caps", "shardId-000000000000")).isZero();
        assertThat(gate.limits().throttledRecords())
                .as("refused whole, not throttled")
                .isEqualTo(throttledBefore);
    }

    @Test
    void aGetRecordsAnswerOverTheCapIsCutAndTheNextCallGoesOnFromThere() {
        // kinesis-mock needs about a minute to hand out 10 MiB: the same gate with a 1 MB cap
        try (AccessGate capped = AccessGate.bind(
                        AwsService.KINESIS, "us-east-1", LocalAws.ACCOUNT_ID, new AccessControl("test"));
                KinesisClient client = client(capped)) {
            capped.backendPort(aws.kinesisEndpoint().getPort());
            capped.limits(new KinesisLimits(
                    CLOCK, stream -> capped.listShards(stream, "test"), LocalAws.ACCOUNT_ID, 1_000_000));
            createStream("big", 1);
            for (int i = 0; i < 3; i++) {
                CLOCK.advance(Duration.ofSeconds(2)); // 400 KB at a time: under the shard's 1 MiB/s
                assertThat(client.putRecords(b -> b.streamName("big").records(entries(1, "k", 400_000)))
                                .failedRecordCount())
                        .isZero();
            }
            String iterator = client.getShardIterator(b -> b.streamName("big")
                            .shardId("shardId-000000000000")
                            .shardIteratorType(ShardIteratorType.TRIM_HORIZON))
                    .shardIterator();
            CLOCK.advance(Duration.ofSeconds(10));

            GetRecordsResponse first = client.getRecords(b -> b.shardIterator(iterator));
            CLOCK.advance(Duration.ofSeconds(10));
            GetRecordsResponse second = client.getRecords(b -> b.shardIterator(first.nextShardIterator()));

            assertThat(first.records()).hasSize(2);
            assertThat(second.records()).hasSize(1);
            assertThat(second.records().get(0).sequenceNumber())
                    .isGreaterThan(first.records().get(1).sequenceNumber());
        }
        assertThat(KinesisLimits.GET_RECORDS_BYTES).isEqualTo(10L * 1024 * 1024);
    }
}
