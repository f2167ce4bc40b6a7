package dev.sluice.local.esm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.core.definition.StartingPosition;
import dev.sluice.emulators.LocalAws;
import dev.sluice.emulators.LocalAwsExtension;
import dev.sluice.emulators.ResourceNames;
import dev.sluice.emulators.limits.KinesisLimits;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.kinesis.model.ProvisionedThroughputExceededException;

/**
 * The local event-source mapping under AWS's limits: GetRecords throttled by a shard's 5 calls/s
 * loses and skips nothing, and a batch never carries more than Lambda's 6 MB payload.
 */
@ExtendWith(LocalAwsExtension.class)
class AwsLimitsIT {

    @BeforeEach
    void resetHandler() {
        RecordingHandler.reset();
        RecordingHandler.holdForConcurrency = false;
    }

    @Test
    void throttledGetRecordsAreWaitedOutWithNoRecordLostAndNoBatchSkipped(LocalAws aws, ResourceNames names) {
        KinesisLimits limits =
                aws.kinesisLimits().orElseThrow(() -> new AssertionError("the stack enforces no limits"));
        String stream = names.name("throttled-reads");
        ParallelizationFactorIT.put(aws, stream); // 120 records, 6 keys
        long throttledBefore = limits.throttledReads();

        // batches of 5 with 100 ms idle polls: more than 5 GetRecords a second on the shard
        MappingConfig config =
                RecorderMappings.config(stream, 5, Duration.ZERO, StartingPosition.TRIM_HORIZON, null, null, 1, false);
        try (LocalEventSourceMapping mapping =
                RecorderMappings.create(aws, names, config).start()) {
            await().atMost(Duration.ofSeconds(90)).until(() -> mapping.acknowledged() >= 120);
            assertThat(mapping.stats().discarded()).isZero();
        }

        assertThat(limits.throttledReads() - throttledBefore)
                .as("GetRecords throttled")
                .isPositive();
        List<String> delivered = RecordingHandler.DELIVERIES.values().stream()
                .flatMap(List::stream)
                .toList();
        assertThat(delivered).hasSize(120).doesNotHaveDuplicates();
        ParallelizationFactorIT.assertEveryKeyInOrder(RecordingHandler.DELIVERIES);
    }

    @Test
    void aBatchEndsWhereItsPayloadWouldPassSixMegabytes(LocalAws aws, ResourceNames names) {
        String stream = names.name("big-records");
        aws.kinesis().createStream(b -> b.streamName(stream).shardCount(1));
        aws.kinesisWaiter().waitUntilStreamExists(b -> b.streamName(stream));
        byte[] data = new byte[1_000_000]; // 1.33 MB in base64: four fit in 6 MB, five do not
        for (int i = 0; i < 6; i++) {
            SdkBytes bytes = SdkBytes.fromByteArray(data);
            String key = "key-" + i;
            // one shard takes 1 MiB/s: put each record once the shard has room for it
            await().atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> {
                        try {
                            aws.kinesis()
                                    .putRecord(b -> b.streamName(stream)
                                            .partitionKey(key)
                                            .data(bytes));
                            return true;
                        } catch (ProvisionedThroughputExceededException e) {
                            return false;
                        }
                    });
        }

        MappingConfig config = RecorderMappings.config(
                stream, 100, Duration.ofSeconds(1), StartingPosition.TRIM_HORIZON, null, null, 1, false);
        try (LocalEventSourceMapping mapping =
                RecorderMappings.create(aws, names, config).start()) {
            await().atMost(Duration.ofSeconds(60)).until(() -> mapping.acknowledged() >= 6);
        }

        assertThat(RecordingHandler.BATCH_SIZES)
                .allSatisfy(size -> assertThat(size).isLessThanOrEqualTo(4));
        assertThat(RecordingHandler.BATCH_SIZES.stream()
                        .mapToInt(Integer::intValue)
                        .sum())
                .isEqualTo(6);
    }
}
