package dev.sluice.aws.kpl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class KplAggregatorTest {

    @Test
    void aggregatesCloseBeforeTheSizeLimitIncludingThePartitionKey() {
        List<UserRecord> records = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            records.add(new UserRecord("key-" + (i % 3), new byte[1000]));
        }

        List<KplAggregator.Aggregate> aggregates =
                new KplAggregator(ShardMap.single("shardId-000000000000"), 10_000).aggregate(records);

        assertThat(aggregates).hasSizeGreaterThan(10);
        assertThat(aggregates)
                .allSatisfy(a ->
                        assertThat(a.data().length + a.partitionKey().length()).isLessThanOrEqualTo(10_000));
        assertThat(aggregates.stream().mapToInt(a -> a.indexes().size()).sum()).isEqualTo(100);
    }

    @Test
    void aRecordOfAMebibyteFillsAKinesisRecordToTheByte() {
        // 1 MiB - envelope (20) - partition key (1) - record framing: the largest payload that fits
        int framing = 1 + 3 + 2 + 1 + 3; // tag, length, pk index, data tag, data length
        int table = 1 + 1 + 1; // tag, length, "k"
        int payload = KplAggregator.MAX_RECORD_BYTES - 20 - 1 - table - framing;
        KplAggregator aggregator =
                new KplAggregator(ShardMap.single("shardId-000000000000"), KplAggregator.MAX_RECORD_BYTES);

        List<KplAggregator.Aggregate> fits = aggregator.aggregate(List.of(new UserRecord("k", new byte[payload])));

        assertThat(fits.get(0).data().length + 1).isEqualTo(KplAggregator.MAX_RECORD_BYTES);
        assertThatThrownBy(() -> aggregator.aggregate(List.of(new UserRecord("k", new byte[payload + 1]))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("does not fit in an aggregate");
    }

    @Test
    void recordsOfDifferentShardsNeverShareAnAggregate() {
        ShardMap two = KplAggregatorPropertyTest.shards(2);
        List<UserRecord> records = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            records.add(new UserRecord("key-" + i, new byte[] {(byte) i}));
        }

        List<KplAggregator.Aggregate> aggregates = new KplAggregator(two, 51_200).aggregate(records);

        assertThat(aggregates).hasSize(2);
        assertThat(aggregates).extracting(KplAggregator.Aggregate::shardId).doesNotHaveDuplicates();
    }
}
