package dev.sluice.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The per-shard consumer ceiling and the real-time verdict, from measured batches. */
class StageCapacityTest {

    private static List<StageCapacity.Batch> same(int n, int records, double millis) {
        List<StageCapacity.Batch> batches = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            batches.add(new StageCapacity.Batch(records, millis));
        }
        return batches;
    }

    @Test
    void lambdaCeilingIsBatchSizeTimesParallelizationOverDurationPlusThePollInterval() {
        StageCapacity c = StageCapacity.lambda("validate", 100, 1, same(10, 100, 300), 500);

        // 100 records per (300 ms + 200 ms) = 200 events/s, against 1,000 records/s a shard can take
        assertThat(c.ceilingPerShard()).isCloseTo(200, within(1e-9));
        assertThat(c.requiredPerShard()).isEqualTo(1_000);
        assertThat(c.requiredBasis()).isEqualTo("1,000 records/s");
        assertThat(c.realTime()).isFalse();
        assertThat(c.margin()).isCloseTo(0.2, within(1e-9));
        assertThat(c.durationP50Ms()).isEqualTo(300);

        StageCapacity parallel = StageCapacity.lambda("validate", 100, 10, same(10, 100, 300), 500);
        assertThat(parallel.ceilingPerShard()).isCloseTo(2_000, within(1e-9));
        assertThat(parallel.realTime()).isTrue();
        assertThat(parallel.margin()).isCloseTo(2.0, within(1e-9));
    }

    @Test
    void bigRecordsAreBoundByAShardsMebibyteASecond() {
        StageCapacity c = StageCapacity.lambda("validate", 100, 10, same(4, 100, 300), 2_048);
        assertThat(c.requiredPerShard()).isCloseTo(512, within(1e-9));
        assertThat(c.requiredBasis()).isEqualTo("1 MiB/s at 2048 bytes an event");
        assertThat(c.realTime()).isTrue();
    }

    @Test
    void aFullBatchsDurationFollowsTheLineThroughTheMeasuredBatches() {
        List<StageCapacity.Batch> batches = new ArrayList<>();
        batches.addAll(same(5, 10, 100)); // 100 ms for 10 records
        batches.addAll(same(5, 50, 300)); // 300 ms for 50: 5 ms a record, 50 ms fixed
        StageCapacity c = StageCapacity.lambda("validate", 100, 1, batches, 500);

        assertThat(c.fullBatchMs()).isCloseTo(550, within(1e-9));
        assertThat(c.ceilingPerShard()).isCloseTo(100 / 0.75, within(1e-9));
        assertThat(c.recordsPerBatch()).isEqualTo(30);
        assertThat(c.durationMeanMs()).isEqualTo(200);
    }

    @Test
    void aLineFallingWithTheBatchSizeIsNotBelievedTheMedianIsUsed() {
        List<StageCapacity.Batch> batches = new ArrayList<>();
        batches.addAll(same(5, 10, 300));
        batches.addAll(same(6, 50, 100));
        StageCapacity c = StageCapacity.lambda("validate", 100, 1, batches, 500);
        assertThat(c.fullBatchMs()).isEqualTo(100);
    }

    @Test
    void kclCeilingIsRecordsPerReadOverTheMedianIntervalBetweenAShardsBatches() {
        List<EmfBatch> batches = List.of(
                new EmfBatch(1_000, "shardId-000000000001", "1", "2", null, 40, 0, 0),
                new EmfBatch(1_500, "shardId-000000000001", "3", "4", null, 40, 0, 0),
                new EmfBatch(2_000, "shardId-000000000001", "5", "6", null, 40, 0, 0),
                new EmfBatch(1_100, "shardId-000000000002", "1", "2", null, 40, 0, 0),
                new EmfBatch(1_600, "shardId-000000000002", "3", "4", null, 40, 0, 0));

        StageCapacity c = StageCapacity.kcl("page-counts", 100, batches, 300);

        assertThat(c.batches()).isEqualTo(3); // intervals, not batches: a shard's first batch has none
        assertThat(c.durationP50Ms()).isEqualTo(500);
        assertThat(c.pollIntervalMs()).isZero();
        assertThat(c.ceilingPerShard()).isCloseTo(200, within(1e-9));
        assertThat(c.realTime()).isFalse();
        assertThat(StageCapacity.kcl("page-counts", 100, batches.subList(0, 1), 300))
                .as("one batch: no interval to measure")
                .isNull();
    }

    @Test
    void billedDurationPerMillionEventsComesFromTheMeanDurationAndBatchFill() {
        List<StageCapacity.Batch> batches = new ArrayList<>();
        batches.addAll(same(2, 40, 100));
        batches.addAll(same(2, 60, 300));
        StageCapacity c = StageCapacity.lambda("validate", 100, 1, batches, 500).priced(1_024, 0.0000133334);

        // 1,000,000 ÷ 50 records = 20,000 invocations × 0.2 s × 1 GB = 4,000 GB-s
        assertThat(c.gbSecondsPerMillion()).isCloseTo(4_000, within(1e-6));
        assertThat(c.durationUsdPerMillion()).isCloseTo(4_000 * 0.0000133334, within(1e-9));
        assertThat(StageCapacity.kcl(
                                "page-counts",
                                100,
                                List.of(
                                        new EmfBatch(1, "s", "1", "1", null, 1, 0, 0),
                                        new EmfBatch(2, "s", "2", "2", null, 1, 0, 0)),
                                10)
                        .priced(1_024, 1)
                        .gbSecondsPerMillion())
                .as("KCL is not billed per GB-second")
                .isZero();
    }

    @Test
    void nothingTimedIsNoCapacity() {
        assertThat(StageCapacity.lambda("validate", 100, 1, List.of(), 500)).isNull();
    }

    @Test
    void aggregatedInputCountsEventsNotKinesisRecords() {
        // 10 KPL aggregates of 80 events each per invocation, 300 ms each: a full batch of 100
        // aggregates carries 8,000 events; duration does not vary with the size here, so the
        // ceiling is 8,000 events per (300 + 200) ms
        StageCapacity c = StageCapacity.lambda("mask-and-rekey", 100, 1, same(6, 10, 300), 500, 80);

        assertThat(c.ceilingPerShard()).isCloseTo(16_000, within(1e-6));
        assertThat(c.recordsPerBatch()).isEqualTo(800);
        // a shard takes 1,000 aggregates of 80 events a second, or 1 MiB/s of 500-byte events:
        // the bytes come first
        assertThat(c.requiredPerShard()).isCloseTo(1024 * 1024 / 500.0, within(1e-6));
        assertThat(c.requiredBasis()).isEqualTo("1 MiB/s at 500 bytes an event");
        assertThat(c.realTime()).isTrue();
        // billed per million events: 1,250 invocations of 300 ms at 1 GB
        assertThat(c.priced(1_024, 1.0).gbSecondsPerMillion()).isCloseTo(1e6 / 800 * 0.3, within(1e-6));

        // small aggregates: the records limit comes first, in events
        StageCapacity small = StageCapacity.lambda("mask-and-rekey", 100, 1, same(6, 10, 300), 100, 2);
        assertThat(small.requiredPerShard()).isEqualTo(2_000);
        assertThat(small.requiredBasis()).isEqualTo("1,000 records/s of 2.0 events each");
    }
}
