package dev.sluice.verify.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.emulators.LocalAws;
import dev.sluice.emulators.LocalAwsOptions;
import dev.sluice.generators.GeneratedEvent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.GetRecordsResponse;
import software.amazon.awssdk.services.kinesis.model.ProvisionedThroughputExceededException;
import software.amazon.awssdk.services.kinesis.model.Record;
import software.amazon.awssdk.services.kinesis.model.ShardIteratorType;
import software.amazon.awssdk.services.kinesis.model.StreamStatus;

/**
 * The ledger producer against the local stack with AWS's limits on: a burst over one shard's
 * 1,000 records/s and 1 MiB/s gets AWS's partial failures, only the refused entries are sent again,
 * and the stream holds every event of the ledger exactly once, where the ledger says.
 */
class ProducerThrottlingIT {

    private static LocalAws aws;

    @BeforeAll
    static void start() {
        aws = LocalAws.start(LocalAwsOptions.builder().limits(true).build());
    }

    @AfterAll
    static void stop() {
        if (aws != null) {
            aws.close();
        }
    }

    @Test
    void aBurstOverOneShardsAllowanceIsRetriedUntilTheLedgerHoldsEveryEventOnce() {
        KinesisClient kinesis = aws.kinesis();
        String stream = "throttled-burst";
        kinesis.createStream(b -> b.streamName(stream).shardCount(1));
        await().atMost(Duration.ofSeconds(30))
                .until(() -> kinesis.describeStreamSummary(b -> b.streamName(stream))
                                .streamDescriptionSummary()
                                .streamStatus()
                        == StreamStatus.ACTIVE);
        List<GeneratedEvent> events = new ArrayList<>();
        // two records of 600 KB in one PutRecords: the shard's 1 MiB/s refuses the second, whatever
        // the speed of the machine; then 1,500 small records, more than the shard's 1,000 records/s
        for (int i = 0; i < 2; i++) {
            byte[] big = new byte[600_000];
            Arrays.fill(big, (byte) ('a' + i));
            events.add(new GeneratedEvent("big-" + i, "one-key", big, null));
        }
        for (int i = 0; i < 1_500; i++) {
            events.add(new GeneratedEvent(
                    "e-" + i, "one-key", ("{\"eventId\":\"e-" + i + "\"}").getBytes(StandardCharsets.UTF_8), null));
        }
        Producer producer = new Producer(kinesis, stream);

        List<LedgerEntry> ledger = producer.send(events, sent -> {});

        assertThat(producer.throttled())
                .as("entries refused by the shard's limits")
                .isPositive();
        assertThat(producer.ambiguous()).isZero();
        assertThat(ledger).hasSize(events.size()).doesNotContainNull();
        Map<String, Record> inStream = readAll(kinesis, stream, ledger.get(0).shardId());
        assertThat(inStream).hasSize(events.size());
        for (LedgerEntry entry : ledger) {
            Record record = inStream.get(entry.sequenceNumber());
            assertThat(record).as("%s in the stream", entry.event().eventId()).isNotNull();
            assertThat(record.data().asByteArray()).isEqualTo(entry.event().data());
        }
    }

    /** Every record of the shard by sequence number, read as a polite consumer does (throttles waited out). */
    private static Map<String, Record> readAll(KinesisClient kinesis, String stream, String shardId) {
        Map<String, Record> records = new HashMap<>();
        String[] iterator = {
            kinesis.getShardIterator(b ->
                            b.streamName(stream).shardId(shardId).shardIteratorType(ShardIteratorType.TRIM_HORIZON))
                    .shardIterator()
        };
        await().atMost(Duration.ofMinutes(2))
                .pollInterval(Duration.ofMillis(250))
                .until(() -> {
                    GetRecordsResponse response;
                    try {
                        response = kinesis.getRecords(b -> b.shardIterator(iterator[0]));
                    } catch (ProvisionedThroughputExceededException e) {
                        return false;
                    }
                    response.records().forEach(r -> {
                        assertThat(records.put(r.sequenceNumber(), r))
                                .as("read once")
                                .isNull();
                    });
                    iterator[0] = response.nextShardIterator();
                    return response.records().isEmpty() && response.millisBehindLatest() == 0;
                });
        return records;
    }
}
