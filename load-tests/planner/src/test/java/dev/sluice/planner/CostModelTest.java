package dev.sluice.planner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Cost per million events, against figures worked out by hand from the bundled price table. */
class CostModelTest {

    private static final PriceTable PRICES = PriceTable.bundled();

    /**
     * 10,000 events of 500 bytes at 100/s into 2 shards; 100 invocations; the producer put 10,000
     * records; the functions made 10,000 PutItem, 100 UpdateItem, 50 PutObject, 50 GetItem, 5
     * SendMessageBatch; one table sink, one lake sink, one aggregate.
     */
    private static CostModel.Inputs inputs() {
        return new CostModel.Inputs(
                10_000,
                500,
                100,
                2,
                100,
                1024,
                200,
                10_000,
                List.of(
                        new CostModel.Requests("DynamoDb", "PutItem", 10_000, 10_000),
                        new CostModel.Requests("DynamoDb", "UpdateItem", 100, 100),
                        new CostModel.Requests("DynamoDb", "GetItem", 50, 50),
                        new CostModel.Requests("S3", "PutObject", 50, 50),
                        new CostModel.Requests("Sqs", "SendMessageBatch", 5, 40)),
                1,
                1,
                1);
    }

    private static Map<String, Double> byItem(CostModel.Breakdown b) {
        return b.lines().stream()
                .collect(Collectors.toMap(l -> l.service() + ": " + l.item(), CostModel.Line::usdPerMillion));
    }

    @Test
    void measuredRequestsArePricedPerMillionEvents() {
        CostModel.Breakdown b = CostModel.measured(inputs(), PRICES);
        Map<String, Double> usd = byItem(b);
        // 1,000,000 records × 1 unit (500 B < 25 KB) × $0.014 per million units
        assertThat(usd.get("Kinesis: PUT payload units (25 KB)")).isCloseTo(0.014, within(1e-9));
        // 1,000,000 events at 100/s = 10,000 s = 2.7778 h × 2 shards × $0.015
        assertThat(usd.get("Kinesis: shard-hours at 100 events/s"))
                .isCloseTo(10_000 / 3600.0 * 2 * 0.015, within(1e-9));
        // 100 invocations per 10,000 events = 10,000 per million × $0.20 per million
        assertThat(usd.get("Lambda: requests")).isCloseTo(0.002, within(1e-9));
        // 10,000 × 0.2 s × 1 GB = 2,000 GB-s × $0.0000133334
        assertThat(usd.get("Lambda: duration (arm64)")).isCloseTo(2_000 * 0.0000133334, within(1e-9));
        // 10,100 writes per 10,000 events = 1,010,000 WRU per million × $0.625 per million
        assertThat(usd.get("DynamoDB: write request units (1 per write, items ≤ 1 KB)"))
                .isCloseTo(1.01 * 0.625, within(1e-9));
        // 50 reads → 5,000 RRU per million × $0.125 per million
        assertThat(usd.get("DynamoDB: read request units (1 per read)")).isCloseTo(5_000 * 0.125 / 1e6, within(1e-12));
        // 50 objects → 5,000 PUTs per million × $0.005 per 1,000; as many KMS requests × $0.03 per 10,000
        assertThat(usd.get("S3: PUT/LIST requests")).isCloseTo(0.025, within(1e-9));
        assertThat(usd.get("KMS: requests (one per S3 object, no bucket key: an upper bound)"))
                .isCloseTo(0.015, within(1e-9));
        // 5 SendMessageBatch requests → 500 per million × $0.40 per million
        assertThat(usd.get("SQS: requests")).isCloseTo(0.0002, within(1e-12));
        assertThat(b.usdPerMillion())
                .isCloseTo(
                        0.014
                                + 10_000 / 3600.0 * 0.03
                                + 0.002
                                + 2_000 * 0.0000133334
                                + 0.63125
                                + 0.000625
                                + 0.025
                                + 0.015
                                + 0.0002,
                        within(1e-9));
    }

    @Test
    void aMeasuredDurationPerBatchIsPricedAndItsSourceNamed() {
        CostModel.Inputs assumed = inputs();
        CostModel.Inputs measured = new CostModel.Inputs(
                assumed.events(),
                assumed.recordBytes(),
                assumed.eventsPerSecond(),
                assumed.shards(),
                assumed.invocations(),
                assumed.lambdaMemoryMb(),
                312.5,
                assumed.producerRecords(),
                assumed.functionRequests(),
                assumed.tableSinks(),
                assumed.lakeSinks(),
                assumed.aggregates(),
                "measured: mean of 100 handler runs, AWS latency modelled");

        CostModel.Breakdown b = CostModel.measured(measured, PRICES);

        // 10,000 invocations per million × 0.3125 s × 1 GB = 3,125 GB-s
        assertThat(byItem(b).get("Lambda: duration (arm64)")).isCloseTo(3_125 * 0.0000133334, within(1e-9));
        assertThat(b.note())
                .contains("Lambda duration 312.5 ms per batch (measured: mean of 100 handler runs, AWS latency"
                        + " modelled) at 1024 MB");
        assertThat(CostModel.measured(assumed, PRICES).note()).contains("Lambda duration 200.0 ms per batch (assumed)");
    }

    @Test
    void theModelledDesignPricesTheSameTermsAsTheMeasuredOneAndNamesItsBench() {
        CostModel.Breakdown measured = CostModel.measured(inputs(), PRICES);
        CostModel.Breakdown modelled = CostModel.modelled(inputs(), PRICES, "reports/x/report.json");

        assertThat(modelled.design()).isEqualTo(CostModel.MODELLED);
        assertThat(byItem(modelled)).isEqualTo(byItem(measured));
        assertThat(modelled.note())
                .contains("modelled AWS batch of 200.0 ms at 1024 MB")
                .contains("reports/x/report.json");
    }

    @Test
    void perRecordBaselineWritesEveryRecordOnItsOwn() {
        CostModel.Breakdown b = CostModel.perRecordIdempotency(inputs(), PRICES);
        Map<String, Double> usd = byItem(b);
        // idempotency key: 1,000,000 WRU × $0.625 per million
        assertThat(usd.get("DynamoDB: one conditional write per record (idempotency key)"))
                .isCloseTo(0.625, within(1e-9));
        // one table sink + one aggregate: 2,000,000 WRU
        assertThat(usd.get("DynamoDB: one write per record per table sink and aggregate"))
                .isCloseTo(1.25, within(1e-9));
        // one lake object per record: 1,000,000 PUTs × $0.005 per 1,000 and as many KMS requests
        assertThat(usd.get("S3: one PUT per record per lake sink")).isCloseTo(5.0, within(1e-9));
        assertThat(usd.get("KMS: requests (one per S3 object, no bucket key: an upper bound)"))
                .isCloseTo(3.0, within(1e-9));
    }

    @Test
    void firehoseBaselineRoundsRecordsToFiveKilobytesAndBuffersObjects() {
        CostModel.Breakdown b = CostModel.firehose(inputs(), PRICES);
        Map<String, Double> usd = byItem(b);
        // 1,000,000 records billed as 5 KiB each = 4.768 GiB × $0.029
        assertThat(usd.get("Firehose: ingestion (records rounded up to 5 KB)"))
                .isCloseTo(1e6 * 5120 / Math.pow(1024, 3) * 0.029, within(1e-9));
        // 500 MB in 5 MiB objects = 95.37 objects × $0.005 per 1,000
        assertThat(usd.get("S3: PUT requests (5 MiB buffers)"))
                .isCloseTo(1e6 * 500 / (5 * 1048576.0) * 0.005 / 1000, within(1e-12));
        assertThat(b.lines()).noneMatch(l -> l.service().equals("Lambda"));
    }

    @Test
    void theThreeDesignsComeInOrder() {
        assertThat(CostModel.price(inputs(), PRICES))
                .extracting(CostModel.Breakdown::design)
                .containsExactly("Sluice (measured)", "per-record idempotent write", "Amazon Data Firehose to S3");
    }
}
