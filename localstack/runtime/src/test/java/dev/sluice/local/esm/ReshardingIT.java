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
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.kinesis.model.PutRecordsRequestEntry;
import software.amazon.awssdk.services.kinesis.model.PutRecordsResultEntry;
import software.amazon.awssdk.services.kinesis.model.Shard;
import software.amazon.awssdk.services.kinesis.model.StreamStatus;

/**
 * Reshards mid-stream: a split shard's parent, and both parents of a merged shard, are finished before
 * the child is read, and nothing is lost.
 */
@ExtendWith(LocalAwsExtension.class)
class ReshardingIT {

    @BeforeEach
    void resetHandler() {
        RecordingHandler.reset();
    }

    private static List<PutRecordsResultEntry> put(LocalAws aws, String stream, int round) {
        List<PutRecordsRequestEntry> entries = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            entries.add(PutRecordsRequestEntry.builder()
                    .partitionKey("key-" + (i % 12))
                    .data(SdkBytes.fromUtf8String("{\"round\":" + round + ",\"n\":" + i + "}"))
                    .build());
        }
        return aws.kinesis()
                .putRecords(b -> b.streamName(stream).records(entries))
                .records();
    }

    @Test
    void splitShardIsConsumedParentFirstWithEveryKeyInOrder(LocalAws aws, ResourceNames names) {
        String stream = names.name("reshard");
        aws.kinesis().createStream(b -> b.streamName(stream).shardCount(1));
        aws.kinesisWaiter().waitUntilStreamExists(b -> b.streamName(stream));
        List<PutRecordsResultEntry> before = put(aws, stream, 1);
        Shard parent =
                aws.kinesis().listShards(b -> b.streamName(stream)).shards().get(0);
        BigInteger middle = new BigInteger(parent.hashKeyRange().endingHashKey()).shiftRight(1);
        aws.kinesis()
                .splitShard(
                        b -> b.streamName(stream).shardToSplit(parent.shardId()).newStartingHashKey(middle.toString()));
        await().atMost(Duration.ofSeconds(30))
                .until(() -> aws.kinesis()
                                .describeStreamSummary(b -> b.streamName(stream))
                                .streamDescriptionSummary()
                                .streamStatus()
                        == StreamStatus.ACTIVE);
        List<PutRecordsResultEntry> after = put(aws, stream, 2);
        assertThat(after).extracting(PutRecordsResultEntry::shardId).doesNotContain(parent.shardId());

        try (LocalEventSourceMapping mapping = RecorderMappings.create(
                        aws,
                        names,
                        RecorderMappings.config(
                                stream, 25, Duration.ZERO, StartingPosition.TRIM_HORIZON, null, null, 1, true))
                .start()) {
            await().atMost(Duration.ofSeconds(60)).until(() -> mapping.acknowledged() >= 120);
        }

        List<String> parentRecords =
                before.stream().map(PutRecordsResultEntry::sequenceNumber).toList();
        List<String> childRecords =
                after.stream().map(PutRecordsResultEntry::sequenceNumber).toList();
        RecordingHandler.DELIVERIES.forEach((key, delivered) -> {
            // every key's parent records come before its child records, each exactly once
            int lastParent = -1;
            int firstChild = Integer.MAX_VALUE;
            for (int i = 0; i < delivered.size(); i++) {
                if (parentRecords.contains(delivered.get(i))) {
                    lastParent = i;
                } else if (childRecords.contains(delivered.get(i))) {
                    firstChild = Math.min(firstChild, i);
                }
            }
            assertThat(lastParent).as("%s: parent records before children", key).isLessThan(firstChild);
            assertThat(delivered).as("%s: each record once", key).doesNotHaveDuplicates();
        });
        assertThat(RecordingHandler.DELIVERIES.values().stream().flatMap(List::stream))
                .containsExactlyInAnyOrderElementsOf(
                        java.util.stream.Stream.concat(parentRecords.stream(), childRecords.stream())
                                .toList());
    }

    @Test
    void mergedShardIsReadOnlyOnceBothParentsAreFinished(LocalAws aws, ResourceNames names) {
        String stream = names.name("merge");
        aws.kinesis().createStream(b -> b.streamName(stream).shardCount(2));
        aws.kinesisWaiter().waitUntilStreamExists(b -> b.streamName(stream));
        List<PutRecordsResultEntry> before = put(aws, stream, 1);
        List<Shard> parents = aws.kinesis().listShards(b -> b.streamName(stream)).shards().stream()
                .sorted(java.util.Comparator.comparing(
                        (Shard s) -> new BigInteger(s.hashKeyRange().startingHashKey())))
                .toList();
        String first = parents.get(0).shardId();
        String adjacent = parents.get(1).shardId();
        aws.kinesis().mergeShards(b -> b.streamName(stream).shardToMerge(first).adjacentShardToMerge(adjacent));
        await().atMost(Duration.ofSeconds(30))
                .until(() -> aws.kinesis()
                                .describeStreamSummary(b -> b.streamName(stream))
                                .streamDescriptionSummary()
                                .streamStatus()
                        == StreamStatus.ACTIVE);
        Shard child = aws.kinesis().listShards(b -> b.streamName(stream)).shards().stream()
                .filter(s -> s.sequenceNumberRange().endingSequenceNumber() == null)
                .findFirst()
                .orElseThrow();
        assertThat(child.parentShardId()).isEqualTo(first);
        assertThat(child.adjacentParentShardId()).isEqualTo(adjacent);
        List<PutRecordsResultEntry> after = put(aws, stream, 2);
        assertThat(after).extracting(PutRecordsResultEntry::shardId).containsOnly(child.shardId());
        // the adjacent parent is slow: each of its records fails once and is delivered again after a back-off,
        // so its records are still being delivered long after the first parent ended
        before.stream()
                .filter(e -> e.shardId().equals(adjacent))
                .forEach(e -> RecordingHandler.FAIL_ONCE.add(e.sequenceNumber()));
        assertThat(RecordingHandler.FAIL_ONCE).isNotEmpty();
        RecordingHandler.holdForConcurrency = false;

        try (LocalEventSourceMapping mapping = RecorderMappings.create(
                        aws,
                        names,
                        RecorderMappings.config(
                                stream, 5, Duration.ZERO, StartingPosition.TRIM_HORIZON, null, null, 1, true))
                .start()) {
            await().atMost(Duration.ofSeconds(90)).until(() -> mapping.acknowledged() >= 120);
        }

        List<String> parentRecords =
                before.stream().map(PutRecordsResultEntry::sequenceNumber).toList();
        List<String> childRecords =
                after.stream().map(PutRecordsResultEntry::sequenceNumber).toList();
        RecordingHandler.DELIVERIES.forEach((key, delivered) -> {
            // every key's parent records (redeliveries included) come before its child records
            int lastParent = -1;
            int firstChild = Integer.MAX_VALUE;
            for (int i = 0; i < delivered.size(); i++) {
                if (parentRecords.contains(delivered.get(i))) {
                    lastParent = i;
                } else if (childRecords.contains(delivered.get(i))) {
                    firstChild = Math.min(firstChild, i);
                }
            }
            assertThat(lastParent)
                    .as("%s: both parents' records before the child's", key)
                    .isLessThan(firstChild);
        });
        assertThat(RecordingHandler.DELIVERIES.values().stream()
                        .flatMap(List::stream)
                        .distinct())
                .containsExactlyInAnyOrderElementsOf(
                        java.util.stream.Stream.concat(parentRecords.stream(), childRecords.stream())
                                .toList());
    }
}
