package dev.sluice.planner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CapacityPlannerTest {

    private static final PriceTable PRICES = PriceTable.bundled();

    private static CapacityPlan plan(PlanInputs.Builder inputs) {
        return CapacityPlanner.plan(inputs.build(), PRICES);
    }

    private static PlanInputs.Builder flat(long users, double perDay, int recordBytes) {
        return PlanInputs.builder()
                .users(users)
                .eventsPerDay(perDay)
                .recordBytes(recordBytes)
                .retentionDays(30);
    }

    @Test
    void millionCustomersPayingThreeTimesADayAreAbout35PaymentsASecond() {
        CapacityPlan plan = plan(PlanInputs.example("payments"));

        assertThat(plan.avgEventsPerSecond()).isCloseTo(34.7, within(0.05));
    }

    @Test
    void paymentsPeakOfTwentyADayIsWithinTheDocumentsTwoHundredThirtyToTwoHundredFifty() {
        CapacityPlan plan = plan(PlanInputs.example("payments"));

        assertThat(plan.peakEventsPerSecond()).isCloseTo(231.5, within(0.05)).isBetween(230.0, 250.0);
        assertThat(plan.shards()).isEqualTo(1);
        assertThat(plan.bindingLimit()).isEqualTo(ShardLimit.RECORDS);
    }

    @Test
    void clickstreamOf25000VisitorsAt5ViewsAMinuteIs125000EventsAMinute() {
        CapacityPlan plan = plan(PlanInputs.example("clickstream"));

        assertThat(plan.avgEventsPerSecond()).isCloseTo(2_083.3, within(0.05));
        assertThat(plan.avgEventsPerSecond() * 60).isCloseTo(125_000, within(0.001));
        assertThat(plan.peakEventsPerSecond()).isCloseTo(4_166.7, within(0.05));
        // 4.17 shards of records (the bytes need only 2.03) × 1.25 headroom = 5.2 → 6
        assertThat(plan.bindingLimit()).isEqualTo(ShardLimit.RECORDS);
        assertThat(plan.shards()).isEqualTo(6);
    }

    @Test
    void smallRecordsAreBoundByRecordsPerSecond() {
        // 8,640,000 events a day = 100/s, 100 bytes each: 0.1 shard of records, 0.01 of bytes
        CapacityPlan plan = plan(flat(8_640_000, 1, 100).headroom(0));

        assertThat(plan.shardsByRecords()).isCloseTo(0.1, within(1e-9));
        assertThat(plan.shardsByBytes()).isCloseTo(100 * 100 / (1024.0 * 1024), within(1e-9));
        assertThat(plan.bindingLimit()).isEqualTo(ShardLimit.RECORDS);
        assertThat(plan.shards()).isEqualTo(1);
    }

    @Test
    void largeRecordsAreBoundByBytesPerSecond() {
        // 500 events/s of 10 KiB = 4.88 MiB/s: 4.88 shards of bytes against 0.5 of records
        CapacityPlan plan = plan(flat(43_200_000, 1, 10_240).headroom(0));

        assertThat(plan.bindingLimit()).isEqualTo(ShardLimit.BYTES);
        assertThat(plan.shards()).isEqualTo(5);
    }

    @Test
    void headroomIsAddedBeforeRoundingUp() {
        // exactly 4,000 records/s: 4 shards bare, 5 with 25 %, 8 with 100 %
        PlanInputs.Builder load = flat(345_600_000, 1, 100);

        assertThat(plan(load.headroom(0)).shards()).isEqualTo(4);
        assertThat(plan(load.headroom(0.25)).shards()).isEqualTo(5);
        assertThat(plan(load.headroom(1)).shards()).isEqualTo(8);
    }

    @Test
    void twoPollingConsumersShareTheShardsReadLimit() {
        // 1.5 MiB/s of 1.5 KiB records (1,024/s): two polling consumers need 1.5 shards of reads
        PlanInputs.Builder load = flat(88_473_600, 1, 1_536).headroom(0);

        CapacityPlan one = plan(load.fanOutConsumers(1));
        CapacityPlan two = plan(load.fanOutConsumers(2));

        assertThat(one.shardsByReads()).isCloseTo(0.75, within(1e-9));
        assertThat(two.shardsByReads()).isCloseTo(1.5, within(1e-9));
        assertThat(two.bindingLimit()).isEqualTo(ShardLimit.BYTES);
        assertThat(two.enhancedFanOut()).isFalse();
    }

    @Test
    void twoPollingConsumersReadNoMoreThanTheWriteLimitAllowsSoReadsNeverBindAlone() {
        // 2 consumers × 2 MiB/s shared read = 1 MiB/s each: the read need equals the bytes-written need
        CapacityPlan two = plan(flat(800_000, 1, 100 * 1024).headroom(0).fanOutConsumers(2));

        assertThat(two.shardsByReads()).isCloseTo(two.shardsByBytes(), within(1e-9));
        assertThat(two.bindingLimit()).isEqualTo(ShardLimit.BYTES);
    }

    @Test
    void moreThanTwoConsumersUseEnhancedFanOutAndPayForIt() {
        PlanInputs.Builder load = flat(1_000_000, 10, 1024);

        CapacityPlan two = plan(load.fanOutConsumers(2));
        CapacityPlan three = plan(load.fanOutConsumers(3));

        assertThat(three.enhancedFanOut()).isTrue();
        assertThat(three.shardsByReads()).isCloseTo(three.peakBytesPerSecond() / (2 * 1024 * 1024), within(1e-9));
        assertThat(three.costs()).anyMatch(c -> c.item().equals("enhanced fan-out"));
        assertThat(two.costs()).noneMatch(c -> c.item().startsWith("enhanced fan-out"));
        assertThat(three.monthlyUsd()).isGreaterThan(two.monthlyUsd());
    }

    @Test
    void lambdaConcurrencyIsShardsTimesParallelization() {
        CapacityPlan plan = plan(PlanInputs.example("clickstream").parallelization(3));

        assertThat(plan.lambdaConcurrency()).isEqualTo(18);
    }

    @Test
    void kclKeepsAtLeastTwoWorkersForFailover() {
        assertThat(plan(PlanInputs.example("payments")).kclWorkers()).isEqualTo(2);
        // 6 shards, 8 leases a worker: one would do, two are kept
        assertThat(plan(PlanInputs.example("clickstream")).kclWorkers()).isEqualTo(2);
        // 6 shards, 2 leases a worker: 3
        assertThat(plan(PlanInputs.example("clickstream").leasesPerWorker(2)).kclWorkers())
                .isEqualTo(3);
    }

    @Test
    void batchingWindowIsAtMostHalfTheLatencyTargetInWholeSeconds() {
        assertThat(plan(PlanInputs.example("payments").targetLatencyMs(1_500)).batchingWindowSeconds())
                .isZero();
        assertThat(plan(PlanInputs.example("payments").targetLatencyMs(10_000)).batchingWindowSeconds())
                .isEqualTo(5);
        assertThat(plan(PlanInputs.example("payments").targetLatencyMs(3_600_000))
                        .batchingWindowSeconds())
                .isEqualTo(300);
    }

    @Test
    void aLongerBatchingWindowFillsBatchesAndCutsInvocations() {
        CapacityPlan quick = plan(PlanInputs.example("payments").targetLatencyMs(2_000));
        CapacityPlan patient = plan(PlanInputs.example("payments").targetLatencyMs(20_000));

        assertThat(quick.averageBatchFill()).isCloseTo(34.7, within(0.05));
        assertThat(patient.averageBatchFill()).isEqualTo(100);
        assertThat(patient.invocationsPerMonth()).isLessThan(quick.invocationsPerMonth());
    }

    @Test
    void lakeKeepsTheRetentionPeriodCompressed() {
        // 1,000 events/s × 1,000 bytes × 86,400 s × 10 days × 0.2
        CapacityPlan plan = plan(PlanInputs.builder()
                .users(86_400_000)
                .eventsPerDay(1)
                .recordBytes(1_000)
                .retentionDays(10));

        assertThat(plan.lakeStorageBytes()).isCloseTo(1_000.0 * 1_000 * 86_400 * 10 * 0.2, within(1.0));
        assertThat(plan.streamStorageBytes()).isCloseTo(1_000.0 * 1_000 * 86_400, within(1.0));
    }

    @Test
    void dynamoDbWritesOneUnitPerKilobyteOfEachItemWithItsAttributes() {
        // an item is the event and about 400 bytes of position, shard, sequence number and timestamps
        CapacityPlan payments = plan(PlanInputs.example("payments"));
        CapacityPlan small = plan(PlanInputs.example("payments").recordBytes(600));
        CapacityPlan large = plan(PlanInputs.example("payments").recordBytes(2_500));

        assertThat(payments.dynamoDbWriteUnitsPerSecondAtPeak()).isCloseTo(2 * 231.5, within(0.1));
        assertThat(payments.dynamoDbWriteUnitsPerMonth()).isCloseTo(2 * payments.eventsPerMonth(), within(1.0));
        assertThat(small.dynamoDbWriteUnitsPerSecondAtPeak()).isCloseTo(231.5, within(0.05));
        assertThat(large.dynamoDbWriteUnitsPerSecondAtPeak()).isCloseTo(3 * 231.5, within(0.2));
    }

    @Test
    void provisionedCapacityIsPaidForAtSeventyPercentUse() {
        CapacityPlan onDemand = plan(PlanInputs.example("payments"));
        CapacityPlan provisioned = plan(PlanInputs.example("payments").dynamoDbCapacity(DynamoDbCapacity.PROVISIONED));

        double writesPerSecond = provisioned.dynamoDbWriteUnitsPerMonth() / (730 * 3600);
        CostLine line = line(provisioned, "provisioned writes");
        assertThat(line.quantity()).isCloseTo(writesPerSecond / 0.7 * 730, within(1e-6));
        assertThat(line.usd()).isCloseTo(writesPerSecond / 0.7 * 730 * 0.00065, within(1e-9));
        assertThat(provisioned.costs()).noneMatch(c -> c.item().equals("on-demand writes"));
        // $0.00065 an hour ÷ 0.7 ÷ 3,600 s = $0.258 per million writes, against $0.625 on demand
        assertThat(line.usd()).isLessThan(cost(onDemand, "on-demand writes") / 2);
    }

    @Test
    void measuredRequestsReplaceTheUpperBound() {
        PlanInputs payments = PlanInputs.example("payments").build();
        Map<String, Double> per1000 = Map.of(
                "DYNAMODB PutItem", 1000.0,
                "DYNAMODB UpdateItem", 50.0,
                "DYNAMODB GetItem", 40.0,
                "S3 PutObject", 10.0,
                "SQS SendMessageBatch", 5.0);

        CapacityPlan plan = CapacityPlanner.plan(payments, PRICES, 0, per1000, 100, List.of("measured"));

        // PutItem once an event (2 units an item), the rest once a batch: scaled from the bench's
        // batches of 100 to the plan's average batch
        double scale = 100 / plan.averageBatchFill();
        double events = plan.eventsPerMonth();
        assertThat(plan.dynamoDbWriteUnitsPerMonth()).isCloseTo(events * (2 + 0.05 * scale), within(1.0));
        assertThat(plan.dynamoDbReadUnitsPerMonth()).isCloseTo(events * 0.04 * scale, within(1.0));
        assertThat(line(plan, "PUT requests").quantity()).isCloseTo(events * 0.01 * scale, within(1.0));
        assertThat(line(plan, "dead-letter requests").quantity()).isCloseTo(events * 0.005 * scale, within(1.0));
        assertThat(cost(plan, "on-demand reads")).isCloseTo(events * 0.04 * scale / 1e6 * 0.125, within(1e-6));
    }

    @Test
    void aLakeOnlyStageIsPricedBesideFirehoseForTheSameRecords() {
        CapacityPlan plan = plan(PlanInputs.example("payments"));

        double events = plan.eventsPerMonth();
        // 1 KiB records are billed as 5 KB by Firehose
        assertThat(plan.firehoseCosts().get(0).usd())
                .isCloseTo(events * 5 * 1024 / (1024.0 * 1024 * 1024) * 0.029, within(1e-6));
        assertThat(plan.lakeOnlyCosts())
                .extracting(CostLine::service)
                .containsExactly("Lambda", "Lambda", "S3", "KMS", "DynamoDB");
        assertThat(plan.lakeOnlyUsdPerMillionEvents()).isPositive();
        assertThat(plan.firehoseUsdPerMillionEvents())
                .isCloseTo(
                        plan.perMillion(plan.firehoseCosts().stream()
                                .mapToDouble(CostLine::usd)
                                .sum()),
                        within(1e-12));
    }

    @Test
    void clickstreamPaysForItsHopStreamAndItsKclWorkers() {
        CapacityPlan clickstream = plan(PlanInputs.example("clickstream"));
        CapacityPlan payments = plan(PlanInputs.example("payments"));

        // 2 KCL workers a month, 1 vCPU and 2 GB each on Fargate arm64
        assertThat(cost(clickstream, "KCL worker tasks (arm64)"))
                .isCloseTo(2 * 730 * (0.03238 + 2 * 0.00356), within(1e-6));
        // 4,166.7 events/s × 512 bytes at peak ≈ 2.03 MiB/s, × 1.25 → 3 shards
        assertThat(line(clickstream, "re-key hop shard-hours").quantity()).isCloseTo(3 * 730, within(1e-9));
        assertThat(line(clickstream, "re-key hop PUT units").quantity())
                .isCloseTo(clickstream.eventsPerMonth() * 512 / (25 * 1024.0), within(1.0));
        assertThat(payments.costs())
                .noneMatch(c -> c.item().startsWith("re-key hop") || c.service().equals("Fargate"));
    }

    @Test
    void costLinesSumToTheMonthlyTotal() {
        for (String example : PlanInputs.EXAMPLES) {
            CapacityPlan plan =
                    plan(PlanInputs.example(example).streamRetentionHours(48).fanOutConsumers(3));

            double sum = plan.costs().stream().mapToDouble(CostLine::usd).sum();
            assertThat(plan.monthlyUsd()).isEqualTo(sum).isPositive();
            assertThat(plan.costs())
                    .extracting(CostLine::service)
                    .contains("Kinesis", "Lambda", "DynamoDB", "S3", "SQS", "KMS");
            assertThat(plan.usdPerMillionEvents())
                    .isCloseTo(plan.monthlyUsd() / (plan.eventsPerMonth() / 1e6), within(1e-9));
        }
    }

    @Test
    void paymentsCostsFollowTheTable() {
        CapacityPlan plan = plan(PlanInputs.example("payments"));

        // one shard all month
        assertThat(cost(plan, "shard-hours")).isCloseTo(730 * 0.015, within(1e-9));
        // 3M events a day for 730 h, one 25 KB unit each
        double events = 1_000_000 * 3 / 86_400.0 * 730 * 3600;
        assertThat(plan.eventsPerMonth()).isCloseTo(events, within(1.0));
        assertThat(cost(plan, "PUT payload units")).isCloseTo(events / 1e6 * 0.014, within(1e-6));
        // 2 write units an item: the 1 KiB event and its attributes
        assertThat(cost(plan, "on-demand writes")).isCloseTo(2 * events / 1e6 * 0.625, within(1e-6));
        assertThat(plan.costs()).noneMatch(c -> c.item().equals("extended retention"));
    }

    @Test
    void retentionBeyondADayIsChargedAsExtendedRetention() {
        CapacityPlan plan = plan(PlanInputs.example("payments").streamRetentionHours(72));

        assertThat(cost(plan, "extended retention")).isCloseTo(730 * 0.02, within(1e-9));
    }

    @Test
    void negativeOrMissingInputsAreClearErrors() {
        assertThatThrownBy(() -> PlanInputs.example("payments").users(-1).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("users must be at least 1, got -1");
        assertThatThrownBy(() -> PlanInputs.example("payments").headroom(-0.1).build())
                .hasMessage("headroom must be between 0 and 10 (a fraction), got -0.1");
        assertThatThrownBy(
                        () -> PlanInputs.example("payments").peakEventsPerDay(1).build())
                .hasMessage("peak-events-per-day (1) must be at least events-per-day (3)");
        assertThatThrownBy(
                        () -> PlanInputs.example("payments").parallelization(11).build())
                .hasMessage("parallelization must be between 1 and 10, got 11");
        assertThatThrownBy(() -> PlanInputs.builder().users(5).build()).hasMessage("events-per-day is required");
        assertThatThrownBy(() -> PlanInputs.example("orders"))
                .hasMessage("unknown example 'orders' (known: payments, clickstream)");
    }

    @Test
    void reportEndsWithOneResultLine() {
        var lines = PlanReport.lines(plan(PlanInputs.example("payments")));

        assertThat(lines.get(lines.size() - 1))
                .matches("RESULT avg_events_per_s=34\\.7 peak_events_per_s=231\\.5 shards=1 lambda_concurrency=1"
                        + " kcl_workers=2 monthly_usd=\\d+\\.\\d\\d usd_per_million=\\d+\\.\\d{4}"
                        + " lake_only_usd_per_million=\\d+\\.\\d{4} firehose_usd_per_million=\\d+\\.\\d{4}"
                        + " dynamodb_capacity=on-demand");
        assertThat(lines).filteredOn(l -> l.startsWith("RESULT")).hasSize(1);
    }

    private static double cost(CapacityPlan plan, String item) {
        return line(plan, item).usd();
    }

    private static CostLine line(CapacityPlan plan, String item) {
        return plan.costs().stream()
                .filter(c -> c.item().equals(item))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no cost line '" + item + "' in " + plan.costs()));
    }

    @Test
    void aMeasuredConsumerCeilingBelowTheWriteLimitsSetsTheShards() {
        PlanInputs payments = PlanInputs.example("payments").build();

        CapacityPlan measured = CapacityPlanner.plan(payments, PRICES, 100, java.util.List.of("ceiling: measured"));

        // peak 231.5 events/s ÷ 100 a shard = 2.315 shards, × 1.25 headroom → 3
        assertThat(measured.shardsByConsumer()).isCloseTo(2.315, within(0.001));
        assertThat(measured.bindingLimit()).isEqualTo(ShardLimit.CONSUMER);
        assertThat(measured.shards()).isEqualTo(3);
        assertThat(measured.lambdaConcurrency()).isEqualTo(3);
        assertThat(PlanReport.lines(measured))
                .contains("  shards by consumer       2.31  (peak 231.5 events/s ÷ 100 events/s a shard, measured)")
                .contains("  binding limit            consumer: the measured consumer ceiling per shard")
                .contains("                           ceiling: measured");

        CapacityPlan fast = CapacityPlanner.plan(payments, PRICES, 5_000, java.util.List.of());
        assertThat(fast.bindingLimit())
                .as("a consumer faster than the writes binds nothing")
                .isEqualTo(ShardLimit.RECORDS);
        assertThat(fast.shards()).isEqualTo(1);
    }

    @Test
    void withoutAMeasurementThePlanSaysItsDurationIsAssumedAndTheCeilingNotModelled() {
        CapacityPlan plan = plan(PlanInputs.example("payments"));
        assertThat(plan.shardsByConsumer()).isZero();
        assertThat(plan.figureSources())
                .containsExactly(
                        "Lambda duration per batch: 200 ms, assumed (--lambda-ms-per-batch)",
                        "consumer ceiling per shard: not modelled (the consumer is assumed to keep up with the"
                                + " write limits; --from-report uses a load run's measurement)");
    }
}
