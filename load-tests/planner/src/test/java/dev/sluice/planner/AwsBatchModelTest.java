package dev.sluice.planner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

class AwsBatchModelTest {

    private static final AwsLatencyModel.Figure PUT = new AwsLatencyModel.Figure(
            "DYNAMODB", "PutItem", 6, 18, AwsLatencyModel.Basis.ASSUMED, "test", "https://example.invalid");

    private static AwsLatencyModel model(long seed) {
        return new AwsLatencyModel(seed, List.of(PUT));
    }

    private static AwsBatchModel.Graph graph(int poolSize, List<List<List<String>>> phases) {
        return new AwsBatchModel.Graph(phases, poolSize);
    }

    @Test
    void aSingleCallGraphReproducesTheLogNormalsMedianAndP99() {
        var d = AwsBatchModel.simulate(graph(0, List.of(List.of(List.of("DYNAMODB PutItem")))), 0, model(7), 200_000);
        assertThat(d.p50Millis()).isCloseTo(6, within(0.15));
        assertThat(d.p99Millis()).isCloseTo(18, within(0.9));
    }

    @Test
    void theSameSeedGivesTheSameDurations() {
        var g = graph(0, List.of(List.of(List.of("DYNAMODB PutItem", "DYNAMODB PutItem"))));
        assertThat(AwsBatchModel.simulate(g, 1, model(42), 2_000))
                .isEqualTo(AwsBatchModel.simulate(g, 1, model(42), 2_000));
    }

    @Test
    void concurrentLanesTakeTheLongestNotTheSum() {
        // lanes of one phase at once: the phase lasts as long as its slowest lane, so 10 concurrent calls'
        // median is the median of the max of 10 draws — well above one call's, well below ten in a row
        List<List<String>> ten = java.util.Collections.nCopies(10, List.of("DYNAMODB PutItem"));
        var concurrent = AwsBatchModel.simulate(graph(0, List.of(ten)), 0, model(1), 20_000);
        var serial = AwsBatchModel.simulate(
                graph(0, List.of(List.of(java.util.Collections.nCopies(10, "DYNAMODB PutItem")))), 0, model(1), 20_000);
        // P(max of 10 ≤ x) = Φ(z)^10 = 0.5 → z = Φ⁻¹(0.933) ≈ 1.50; 6 × 3^(1.50/2.326) ≈ 12.2 ms
        assertThat(concurrent.p50Millis()).isCloseTo(12.2, within(0.5));
        assertThat(serial.p50Millis()).isGreaterThan(60);
    }

    @Test
    void aPoolOfOneRunsTheLanesOneAfterTheOther() {
        List<List<String>> four = java.util.Collections.nCopies(4, List.of("DYNAMODB PutItem"));
        var pooled = AwsBatchModel.simulate(graph(1, List.of(four)), 0, model(3), 20_000);
        var serial = AwsBatchModel.simulate(
                graph(0, List.of(List.of(java.util.Collections.nCopies(4, "DYNAMODB PutItem")))), 0, model(3), 20_000);
        assertThat(pooled.p50Millis()).isCloseTo(serial.p50Millis(), within(0.5));
        var two = AwsBatchModel.simulate(graph(2, List.of(four)), 0, model(3), 20_000);
        assertThat(two.p50Millis()).isLessThan(pooled.p50Millis()).isGreaterThan(serial.p50Millis() / 4);
    }

    @Test
    void phasesAddUpAndCpuIsAddedToEverySample() {
        var g = graph(0, List.of(List.of(List.of("DYNAMODB PutItem")), List.of(List.of("DYNAMODB PutItem"))));
        var d = AwsBatchModel.simulate(g, 50, model(5), 20_000);
        assertThat(d.cpuMillis()).isEqualTo(50);
        assertThat(d.p50Millis()).isCloseTo(50 + d.awsP50Millis(), within(1.0));
        assertThat(d.awsP50Millis()).isCloseTo(12.7, within(0.6)); // sum of two: ≈ 2 × 6 a bit skewed up
    }

    @Test
    void anOperationWithoutAFigureCostsNothing() {
        var d = AwsBatchModel.simulate(graph(0, List.of(List.of(List.of("S3 ListBuckets")))), 0, model(1), 100);
        assertThat(d.p99Millis()).isZero();
    }

    @Test
    void cpuIsScaledToTheFunctionsVcpuShare() {
        assertThat(AwsBatchModel.vcpuShare(1024)).isCloseTo(0.579, within(0.001));
        assertThat(AwsBatchModel.vcpuShare(1769)).isEqualTo(1.0);
        assertThat(AwsBatchModel.vcpuShare(10_240)).isEqualTo(5.79, within(0.01));
        // 100 µs an event × 100 events = 10 ms of one core = 17.3 ms at 1,024 MB
        assertThat(AwsBatchModel.cpuMillis(100, 100, 1024)).isCloseTo(17.27, within(0.01));
    }

    @Test
    void lambdaCeilingIsBatchesTimesParallelizationOverDurationPlusGap() {
        var c = AwsBatchModel.lambdaCeiling(100, 1, 180, 20, 500, 1, false);
        assertThat(c.byProcessing()).isCloseTo(500, within(1e-9));
        assertThat(c.perShard()).isEqualTo(500);
        assertThat(c.binding()).isEqualTo("processing");
        assertThat(AwsBatchModel.lambdaCeiling(100, 4, 180, 20, 500, 1, false).byProcessing())
                .isCloseTo(2000, within(1e-9));
    }

    @Test
    void lambdaCeilingIsCappedByTheShardsReadLimits() {
        // 2 MiB/s of 4 KiB records = 512/s, shared by two polling consumers = 256/s
        var bytes = AwsBatchModel.lambdaCeiling(1000, 10, 100, 10, 4096, 2, false);
        assertThat(bytes.perShard()).isCloseTo(256, within(1e-9));
        assertThat(bytes.binding()).isEqualTo("read-bytes");
        // small batches: 5 GetRecords a second × 10 records
        var calls = AwsBatchModel.lambdaCeiling(10, 1, 1, 0, 100, 1, false);
        assertThat(calls.perShard()).isCloseTo(50, within(1e-9));
        assertThat(calls.binding()).isEqualTo("get-records");
        // enhanced fan-out: the consumer's own 2 MiB/s, no GetRecords limit
        var efo = AwsBatchModel.lambdaCeiling(10, 1, 1, 0, 4096, 2, true);
        assertThat(efo.byReadBytes()).isCloseTo(512, within(1e-9));
        assertThat(efo.byGetRecords()).isInfinite();
    }

    @Test
    void kclCeilingIsBoundByItsIdleTimeBetweenReads() {
        // 1,000 records a GetRecords, one every second: 1,000/s whatever the processing allows
        var c = AwsBatchModel.kclCeiling(1000, 100, 1000, 15, 300, 1);
        assertThat(c.byProcessing()).isCloseTo(10_000, within(1e-9));
        assertThat(c.perShard()).isCloseTo(1000, within(1e-9));
        assertThat(c.binding()).isEqualTo("get-records");
        // 200 ms idle: 5 a second, the shard's limit
        assertThat(AwsBatchModel.kclCeiling(1000, 100, 200, 15, 300, 1).byGetRecords())
                .isCloseTo(5000, within(1e-9));
    }
}
