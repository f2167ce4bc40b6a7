package dev.sluice.local.esm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.core.definition.StartingPosition;
import dev.sluice.emulators.LocalAws;
import dev.sluice.emulators.LocalAwsExtension;
import dev.sluice.emulators.ResourceNames;
import java.math.BigInteger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.kinesis.model.PutRecordsRequestEntry;
import software.amazon.awssdk.services.kinesis.model.PutRecordsResultEntry;

/** Lambda's parallelization factor in the local event-source mapping. */
@ExtendWith(LocalAwsExtension.class)
class ParallelizationFactorIT {

    @BeforeEach
    void resetHandler() {
        RecordingHandler.reset();
    }

    private static LocalEventSourceMapping mapping(LocalAws aws, ResourceNames names, String stream, int factor) {
        return mapping(aws, names, stream, factor, true, null);
    }

    static LocalEventSourceMapping mapping(
            LocalAws aws, ResourceNames names, String stream, int factor, boolean bisect, String onFailureQueue) {
        return RecorderMappings.create(
                aws,
                names,
                RecorderMappings.config(
                        stream,
                        100,
                        Duration.ofMillis(500),
                        StartingPosition.TRIM_HORIZON,
                        null,
                        onFailureQueue,
                        factor,
                        bisect));
    }

    /** Puts 20 records for each of 6 keys into a one-shard stream, interleaved; returns their sequence numbers. */
    static List<PutRecordsResultEntry> put(LocalAws aws, String stream) {
        aws.kinesis().createStream(b -> b.streamName(stream).shardCount(1));
        aws.kinesisWaiter().waitUntilStreamExists(b -> b.streamName(stream));
        List<PutRecordsRequestEntry> entries = new ArrayList<>();
        for (int i = 0; i < 120; i++) {
            entries.add(PutRecordsRequestEntry.builder()
                    .partitionKey("key-" + (i % 6))
                    .data(SdkBytes.fromUtf8String("{\"n\":" + i + "}"))
                    .build());
        }
        return aws.kinesis()
                .putRecords(b -> b.streamName(stream).records(entries))
                .records();
    }

    static void assertEveryKeyInOrder(Map<String, List<String>> deliveries) {
        deliveries.forEach((key, sequences) -> {
            List<String> firsts = sequences.stream().distinct().toList();
            for (int i = 1; i < firsts.size(); i++) {
                assertThat(new BigInteger(firsts.get(i)))
                        .as("%s delivered in order", key)
                        .isGreaterThan(new BigInteger(firsts.get(i - 1)));
            }
        });
    }

    @Test
    void batchesOfOneShardRunConcurrentlyAndEachKeyStaysInOrder(LocalAws aws, ResourceNames names) {
        String stream = names.name("parallel");
        put(aws, stream);

        try (LocalEventSourceMapping mapping = mapping(aws, names, stream, 3).start()) {
            await().atMost(Duration.ofSeconds(30)).until(() -> mapping.acknowledged() >= 120);
        }

        assertThat(RecordingHandler.MOST_IN_FLIGHT.get()).isGreaterThanOrEqualTo(2);
        assertThat(RecordingHandler.DELIVERIES).hasSize(6);
        assertThat(RecordingHandler.DELIVERIES.values().stream()
                        .mapToInt(List::size)
                        .sum())
                .isEqualTo(120);
        assertEveryKeyInOrder(RecordingHandler.DELIVERIES);
    }

    @Test
    void aFailureInOneLaneRedeliversFromTheLowestFailedRecordAndLosesNothing(LocalAws aws, ResourceNames names) {
        String stream = names.name("parallel-fail");
        List<PutRecordsResultEntry> put = put(aws, stream);
        String failing = put.get(50).sequenceNumber();
        RecordingHandler.FAIL_ONCE.add(failing);

        try (LocalEventSourceMapping mapping = mapping(aws, names, stream, 3).start()) {
            await().atMost(Duration.ofSeconds(30)).until(() -> mapping.acknowledged() >= 120);
            assertThat(mapping.stats().retries()).isEqualTo(1);
        }

        List<String> delivered = RecordingHandler.DELIVERIES.values().stream()
                .flatMap(List::stream)
                .toList();
        assertThat(delivered)
                .containsAll(
                        put.stream().map(PutRecordsResultEntry::sequenceNumber).toList());
        assertThat(delivered.stream().filter(failing::equals)).hasSize(2);
        // records before the failure were acknowledged once and never delivered again
        assertThat(delivered.stream().filter(put.get(0).sequenceNumber()::equals))
                .hasSize(1);
        assertEveryKeyInOrder(RecordingHandler.DELIVERIES);
    }
}
