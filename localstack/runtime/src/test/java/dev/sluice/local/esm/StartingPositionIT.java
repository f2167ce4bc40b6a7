package dev.sluice.local.esm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.core.definition.StartingPosition;
import dev.sluice.emulators.LocalAws;
import dev.sluice.emulators.LocalAwsExtension;
import dev.sluice.emulators.ResourceNames;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.kinesis.model.PutRecordsRequestEntry;
import software.amazon.awssdk.services.kinesis.model.PutRecordsResultEntry;
import software.amazon.awssdk.services.kinesis.model.Record;
import software.amazon.awssdk.services.kinesis.model.ShardIteratorType;

/** AT_TIMESTAMP: a shard without checkpoint starts at the first record that arrived at or after the instant. */
@ExtendWith(LocalAwsExtension.class)
class StartingPositionIT {

    @BeforeEach
    void resetHandler() {
        RecordingHandler.reset();
    }

    private static List<PutRecordsResultEntry> put(LocalAws aws, String stream, String prefix) {
        List<PutRecordsRequestEntry> entries = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            entries.add(PutRecordsRequestEntry.builder()
                    .partitionKey(prefix + i)
                    .data(SdkBytes.fromUtf8String("{}"))
                    .build());
        }
        return aws.kinesis()
                .putRecords(b -> b.streamName(stream).records(entries))
                .records();
    }

    @Test
    void atTimestampSkipsWhatArrivedBefore(LocalAws aws, ResourceNames names) {
        String stream = names.name("at-timestamp");
        aws.kinesis().createStream(b -> b.streamName(stream).shardCount(1));
        aws.kinesisWaiter().waitUntilStreamExists(b -> b.streamName(stream));
        put(aws, stream, "before-");
        String shard = aws.kinesis()
                .listShards(b -> b.streamName(stream))
                .shards()
                .get(0)
                .shardId();
        String iterator = aws.kinesis()
                .getShardIterator(
                        b -> b.streamName(stream).shardId(shard).shardIteratorType(ShardIteratorType.TRIM_HORIZON))
                .shardIterator();
        Instant lastBefore = aws.kinesis().getRecords(b -> b.shardIterator(iterator)).records().stream()
                .map(Record::approximateArrivalTimestamp)
                .max(Instant::compareTo)
                .orElseThrow();
        Instant start = lastBefore.plusMillis(1);
        await().atMost(Duration.ofSeconds(5)).until(() -> Instant.now().isAfter(start.plusMillis(5)));
        List<PutRecordsResultEntry> after = put(aws, stream, "after-");

        try (LocalEventSourceMapping mapping = RecorderMappings.create(
                        aws,
                        names,
                        RecorderMappings.config(
                                stream, 100, Duration.ZERO, StartingPosition.AT_TIMESTAMP, start, null, 1, true))
                .start()) {
            await().atMost(Duration.ofSeconds(30)).until(() -> mapping.acknowledged() >= 10);
        }

        assertThat(RecordingHandler.DELIVERIES.keySet()).allMatch(key -> key.startsWith("after-"));
        assertThat(RecordingHandler.DELIVERIES.values().stream().flatMap(List::stream))
                .containsExactlyInAnyOrderElementsOf(after.stream()
                        .map(PutRecordsResultEntry::sequenceNumber)
                        .toList());
    }
}
