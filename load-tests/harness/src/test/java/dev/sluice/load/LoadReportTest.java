package dev.sluice.load;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.emulators.limits.KinesisLimits;
import dev.sluice.emulators.limits.ShardMap;
import dev.sluice.planner.CostModel;
import dev.sluice.planner.ModelledStages;
import dev.sluice.planner.PriceTable;
import dev.sluice.report.ReportWriter;
import dev.sluice.verify.reconcile.Reconciliation;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LoadReportTest {

    private static LoadResult result(Histogram histogram) {
        List<LatencyAccounting.Second> seconds = List.of(
                new LatencyAccounting.Second(0, 200, 0, 200, 0, 0, 0, 0),
                new LatencyAccounting.Second(1, 200, 150, 250, 900, 1_200, 1_300, 1_400),
                new LatencyAccounting.Second(2, 0, 250, 0, 1_000, 1_500, 1_600, 1_700));
        List<LoadResult.Request> requests = LoadRun.classify(
                List.of(
                        new RequestCounts.Row("Kinesis", "PutRecords", "payments-raw", 20, 400),
                        new RequestCounts.Row("Kinesis", "GetRecords", "payments-raw", 9, 9),
                        new RequestCounts.Row("DynamoDb", "UpdateItem", "checkpoints", 8, 8),
                        new RequestCounts.Row("DynamoDb", "PutItem", "payments-by-id", 400, 400),
                        new RequestCounts.Row("S3", "PutObject", "sluice-payments-lake", 4, 4)),
                "payments-raw",
                "checkpoints",
                400);
        List<CostModel.Breakdown> costs = CostModel.price(
                new CostModel.Inputs(
                        400,
                        420,
                        200,
                        2,
                        4,
                        1024,
                        200,
                        400,
                        List.of(
                                new CostModel.Requests("DynamoDb", "PutItem", 400, 400),
                                new CostModel.Requests("S3", "PutObject", 4, 4)),
                        1,
                        1,
                        1),
                PriceTable.bundled());
        return new LoadResult(
                "payments",
                "validate",
                "local",
                200,
                2,
                400,
                200,
                2.5,
                160,
                420,
                new LoadResult.Latency(400, 0, 1_100, 1_000, 1_500, 1_600, 1_700, 1_700),
                seconds,
                4,
                2,
                0,
                new Reconciliation(400, 398, 398, 398, 2, 0, 0, 0, 0, List.of()),
                true,
                requests,
                costs,
                false,
                List.of(),
                new LoadResult.Limits(
                        "enforced",
                        500,
                        3,
                        List.of(
                                new LoadResult.ThrottleSecond(0, 0, 0),
                                new LoadResult.ThrottleSecond(1, 500, 1),
                                new LoadResult.ThrottleSecond(2, 0, 2))));
    }

    /** A gate's quotas on a clock the test moves: one shard covering every hash key. */
    private static KinesisLimits gateOnClock(Instant[] now) {
        ShardMap oneShard = new ShardMap(List.of(new ShardMap.Range(
                "shardId-000000000000", BigInteger.ZERO, BigInteger.TWO.pow(128).subtract(BigInteger.ONE))));
        return new KinesisLimits(() -> now[0], stream -> oneShard, "000000000000");
    }

    @Test
    void theGatesThrottlesAreCountedPerSecondOfTheRunFromItsStart() {
        Instant[] now = {Instant.parse("2026-12-01T10:00:00Z")};
        KinesisLimits gate = gateOnClock(now);
        for (int i = 0; i < 1_002; i++) {
            gate.write("s", "k", null, 10); // before the run: 2 throttled while provisioning
        }
        long startMillis = Instant.parse("2026-12-01T10:00:05.400Z").toEpochMilli();
        now[0] = Instant.parse("2026-12-01T10:00:06Z"); // the run's second 0 (it began 0.6 s before)
        for (int i = 0; i < 1_003; i++) {
            gate.write("s", "k", null, 10);
        }
        now[0] = Instant.parse("2026-12-01T10:00:08Z"); // second 2
        for (int i = 0; i < 6; i++) {
            gate.read("s", "shardId-000000000000");
        }

        LoadResult.Limits limits = LoadRun.limits(java.util.Optional.of(gate), startMillis, 4);

        assertThat(limits.mode()).isEqualTo("enforced");
        assertThat(limits.seconds())
                .containsExactly(
                        new LoadResult.ThrottleSecond(0, 3, 0),
                        new LoadResult.ThrottleSecond(1, 0, 0),
                        new LoadResult.ThrottleSecond(2, 0, 1),
                        new LoadResult.ThrottleSecond(3, 0, 0));
        assertThat(limits.throttledRecords()).isEqualTo(3);
        assertThat(limits.throttledReads()).isEqualTo(1);
        assertThat(LoadRun.limits(java.util.Optional.empty(), startMillis, 4))
                .isEqualTo(new LoadResult.Limits("off", 0, 0, List.of()));
    }

    @Test
    void requestsAreAttributedToProducerMappingAndFunction() {
        LoadResult r = result(new Histogram(3_600_000, 3));
        assertThat(r.requests())
                .extracting(LoadResult.Request::role)
                .containsExactly("producer", "event-source mapping", "event-source mapping", "function", "function");
        assertThat(r.requests().get(3).perThousandEvents()).isEqualTo(1_000.0);
        assertThat(r.requests().get(0).perThousandEvents()).isEqualTo(50.0);
    }

    @Test
    void reportHoldsTheFiguresAndDrawsEveryChart(@TempDir Path dir) throws IOException {
        Histogram histogram = new Histogram(3_600_000, 3);
        for (int i = 0; i < 400; i++) {
            histogram.recordValue(1_000 + i);
        }
        new ReportWriter()
                .write(dir, LoadReport.of(result(histogram), histogram, Instant.parse("2026-12-01T01:00:00Z")));

        JsonNode json = new ObjectMapper().readTree(dir.resolve("report.json").toFile());
        assertThat(json.at("/data/latency/p99").asLong()).isEqualTo(1_600);
        assertThat(json.at("/data/reconciliation/lost").asLong()).isZero();
        assertThat(json.at("/data/reconciled").asBoolean()).isTrue();
        assertThat(json.at("/data/seconds/1/lag").asLong()).isEqualTo(250);
        assertThat(json.at("/data/costs/0/design").asText()).isEqualTo("Sluice (measured)");
        assertThat(json.at("/data/requests/0/role").asText()).isEqualTo("producer");
        assertThat(json.at("/data/limits/seconds/1/records").asLong()).isEqualTo(500);
        assertThat(json.at("/charts").findValuesAsText("id"))
                .containsExactly(
                        "throughput", "latency-over-time", "throttles", "latency-distribution", "requests", "cost");

        String html = Files.readString(dir.resolve("report.html"));
        for (String id :
                List.of("throughput", "latency-over-time", "throttles", "latency-distribution", "requests", "cost")) {
            assertThat(html).contains("<svg id='" + id + "'");
        }
        assertThat(html)
                .contains("data-series='produced'")
                .contains("data-series='p99'")
                .contains("data-series='records'");
        assertThat(html).contains("<title>measured: 1000</title>"); // function · DynamoDb per 1,000 events
        assertThat(html).contains("Sluice (measured)").contains("Amazon Data Firehose to S3");
        assertThat(html).contains("p50 1,000 ms · p95 1,500 ms · p99 1,600 ms · max 1,700 ms");
        assertThat(html)
                .contains("data-series='GetRecords calls refused'")
                .contains("enforced: 500 records and 3 GetRecords calls throttled");
    }

    @Test
    void reportGivesEachStagesMeasuredDurationCeilingAndRealTimeVerdict(@TempDir Path dir) throws IOException {
        Histogram histogram = new Histogram(3_600_000, 3);
        histogram.recordValue(1_000);
        LoadResult b = result(histogram);
        StageCapacity validate = StageCapacity.lambda(
                        "validate",
                        100,
                        1,
                        List.of(new StageCapacity.Batch(50, 250), new StageCapacity.Batch(50, 250)),
                        420)
                .priced(1_024, 0.0000133334);
        LoadResult r = with(
                b,
                b.costs(),
                List.of(validate),
                true,
                java.util.Map.of("DYNAMODB PutItem", 400L, "KINESIS GetRecords", 9L),
                null);

        new ReportWriter().write(dir, LoadReport.of(r, histogram, Instant.parse("2026-12-01T01:00:00Z")));

        JsonNode json = new ObjectMapper().readTree(dir.resolve("report.json").toFile());
        assertThat(json.at("/data/awsLatency").asBoolean()).isTrue();
        assertThat(json.at("/data/delayedCalls/KINESIS GetRecords").asLong()).isEqualTo(9);
        assertThat(json.at("/data/capacity/0/stage").asText()).isEqualTo("validate");
        assertThat(json.at("/data/capacity/0/durationP50Ms").asDouble()).isEqualTo(250);
        assertThat(json.at("/data/capacity/0/ceilingPerShard").asDouble()).isEqualTo(100 / 0.45);
        assertThat(json.at("/data/capacity/0/realTime").asBoolean()).isFalse();
        assertThat(json.at("/data/capacity/0/gbSecondsPerMillion").asDouble()).isEqualTo(5_000);
        String html = Files.readString(dir.resolve("report.html"));
        assertThat(html)
                .contains("Capacity per stage (per shard)")
                .contains("222 = 100 × 1 ÷ (250 + 200 ms)")
                .contains("no (×0.22)")
                .contains("modelled: every call to the local services took a latency drawn from published AWS")
                .contains("DYNAMODB PutItem 400, KINESIS GetRecords 9");
    }

    @Test
    void aHandlerBenchsModelledStagesAndCostAreShownBesideTheRunsMeasurement(@TempDir Path dir) throws IOException {
        Histogram histogram = new Histogram(3_600_000, 3);
        histogram.recordValue(1_000);
        LoadResult b = result(histogram);
        ModelledStages modelled = new ModelledStages(
                Path.of("bench-run/report.json"),
                "2026-12-07T10:59:05Z",
                List.of(new ModelledStages.Stage(
                        "payments",
                        "validate",
                        "lambda",
                        500,
                        2048,
                        1.16,
                        1,
                        428.2,
                        770.0,
                        434,
                        578,
                        441.5,
                        1_093,
                        "processing",
                        java.util.Map.of("DYNAMODB PutItem", 1_000.0, "S3 PutObject", 2.0))));
        List<CostModel.Breakdown> costs = new java.util.ArrayList<>(b.costs());
        costs.add(CostModel.modelled(
                new CostModel.Inputs(
                        400,
                        420,
                        160,
                        2,
                        1,
                        2048,
                        441.5,
                        400,
                        List.of(
                                new CostModel.Requests("DYNAMODB", "PutItem", 400, 400),
                                new CostModel.Requests("S3", "PutObject", 1, 1)),
                        1,
                        1,
                        1),
                PriceTable.bundled(),
                "bench-run/report.json"));
        LoadResult r = with(b, costs, b.capacity(), b.awsLatency(), b.delayedCalls(), modelled);

        new ReportWriter().write(dir, LoadReport.of(r, histogram, Instant.parse("2026-12-07T12:00:00Z")));

        JsonNode json = new ObjectMapper().readTree(dir.resolve("report.json").toFile());
        assertThat(json.at("/data/modelled/stages/0/ceilingPerShard").asDouble())
                .isEqualTo(1_093);
        assertThat(json.at("/data/costs/3/design").asText()).isEqualTo(CostModel.MODELLED);
        assertThat(json.at("/summary/modelled in AWS validate (lambda)").asText())
                .isEqualTo("batch p50 434 ms · p99 578 ms (500 records); ceiling 1,093 events/s a shard (goal ≥ 1,000:"
                        + " met; processing binds)");
        String html = Files.readString(dir.resolve("report.html"));
        assertThat(html)
                .contains("Modelled in AWS a shard (handler bench)")
                .contains("428.2 / 770.0 (0.56)")
                .contains("DYNAMODB PutItem 1,000.0, S3 PutObject 2.0")
                .contains("434 / 578 / 441.5")
                .contains("≥ 1,000: met")
                .contains("2,048 MB (1.16 vCPU)");
        // each term of the modelled cost is a line of the cost table, as the measured one's are
        assertThat(html).contains("Sluice (modelled in AWS)").contains("duration (arm64)");
    }

    @Test
    void withoutABenchOfThePipelineTheReportSaysHowToGetTheModel(@TempDir Path dir) throws IOException {
        Histogram histogram = new Histogram(3_600_000, 3);
        histogram.recordValue(1_000);

        new ReportWriter()
                .write(dir, LoadReport.of(result(histogram), histogram, Instant.parse("2026-12-07T12:00:00Z")));

        JsonNode json = new ObjectMapper().readTree(dir.resolve("report.json").toFile());
        assertThat(json.at("/summary/modelled in AWS").asText())
                .startsWith("not in this report: no handler bench of payments in the reports folder")
                .contains("./sluice bench handler --pipeline pipelines/payments.yaml");
        assertThat(Files.readString(dir.resolve("report.html"))).doesNotContain("Modelled in AWS a shard");
    }

    /** {@code b} with these costs, capacity, AWS latency figures and modelled stages. */
    private static LoadResult with(
            LoadResult b,
            List<CostModel.Breakdown> costs,
            List<StageCapacity> capacity,
            boolean awsLatency,
            java.util.Map<String, Long> delayedCalls,
            ModelledStages modelled) {
        return new LoadResult(
                b.pipeline(),
                b.stage(),
                b.target(),
                b.targetRate(),
                b.produceSeconds(),
                b.events(),
                b.producedPerSecond(),
                b.endToEndSeconds(),
                b.eventsPerSecond(),
                b.recordBytes(),
                b.latency(),
                b.seconds(),
                b.invocations(),
                b.deadLetteredReported(),
                b.absorbedDuplicates(),
                b.reconciliation(),
                b.reconciled(),
                b.requests(),
                costs,
                b.day(),
                b.stages(),
                b.limits(),
                capacity,
                awsLatency,
                delayedCalls,
                b.downstream(),
                b.cpu(),
                modelled);
    }
}
