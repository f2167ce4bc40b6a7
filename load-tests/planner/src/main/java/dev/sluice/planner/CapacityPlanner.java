package dev.sluice.planner;

import static dev.sluice.planner.PriceTable.DYNAMODB_WRU_PER_MILLION;
import static dev.sluice.planner.PriceTable.KINESIS_EFO_CONSUMER_SHARD_HOUR;
import static dev.sluice.planner.PriceTable.KINESIS_EFO_DATA_RETRIEVAL_GB;
import static dev.sluice.planner.PriceTable.KINESIS_EXTENDED_RETENTION_SHARD_HOUR;
import static dev.sluice.planner.PriceTable.KINESIS_PUT_PAYLOAD_UNITS_PER_MILLION;
import static dev.sluice.planner.PriceTable.KINESIS_SHARD_HOUR;
import static dev.sluice.planner.PriceTable.KMS_KEY_MONTH;
import static dev.sluice.planner.PriceTable.KMS_REQUESTS_PER_10K;
import static dev.sluice.planner.PriceTable.LAMBDA_ARM64_GB_SECOND;
import static dev.sluice.planner.PriceTable.LAMBDA_REQUESTS_PER_MILLION;
import static dev.sluice.planner.PriceTable.S3_PUT_PER_THOUSAND;
import static dev.sluice.planner.PriceTable.S3_STORAGE_GB_MONTH;

import java.util.ArrayList;
import java.util.List;

/** Works a {@link CapacityPlan} out of {@link PlanInputs} and a {@link PriceTable}; the formulas are in load-tests/planner/README.md ("Formulas"). */
public final class CapacityPlanner {

    public static final double SECONDS_PER_DAY = 86_400;
    public static final double MIB = 1024 * 1024;
    public static final double GB = 1024.0 * 1024 * 1024;

    /** Kinesis per-shard write limits (AWS Kinesis Data Streams quotas and limits). */
    public static final double SHARD_RECORDS_PER_SECOND = 1_000;

    public static final double SHARD_WRITE_BYTES_PER_SECOND = MIB;
    /** Read limit per shard, shared by polling consumers; per consumer with enhanced fan-out. */
    public static final double SHARD_READ_BYTES_PER_SECOND = 2 * MIB;
    /** Polling consumers one shard carries before the 5 GetRecords/s and 2 MiB/s read limits bite. */
    public static final int MAX_POLLING_CONSUMERS = 2;
    /** A PUT payload unit is 25 KB of a record. */
    public static final int PUT_PAYLOAD_UNIT_BYTES = 25 * 1024;
    /** A DynamoDB write request unit covers an item of up to 1 KB. */
    public static final int WRITE_UNIT_BYTES = 1024;
    /** Lambda's MaximumBatchingWindowInSeconds ceiling. */
    public static final int MAX_BATCHING_WINDOW_SECONDS = 300;
    /** KCL keeps a second worker so a lost worker's leases are taken over. */
    public static final int MIN_KCL_WORKERS = 2;

    private CapacityPlanner() {}

    /** A plan with the planner's constants: no consumer ceiling, the given or assumed duration per batch. */
    public static CapacityPlan plan(PlanInputs in, PriceTable prices) {
        return plan(
                in,
                prices,
                0,
                List.of(
                        "Lambda duration per batch: " + in.lambdaMsPerBatch() + " ms, assumed (--lambda-ms-per-batch)",
                        "consumer ceiling per shard: not modelled (the consumer is assumed to keep up with the"
                                + " write limits; --from-report uses a load run's measurement)"));
    }

    /**
     * A plan whose shards must also let each shard's consumer keep up: shards ≥ peak events/s ÷ {@code
     * consumerCeilingPerShard} (a load run's measurement, {@link MeasuredFigures}; 0: not modelled).
     *
     * @param figureSources where each figure that is not a constant comes from, one line each
     */
    public static CapacityPlan plan(
            PlanInputs in, PriceTable prices, double consumerCeilingPerShard, List<String> figureSources) {
        double secondsPerMonth = prices.hoursPerMonth() * 3600;
        double hours = prices.hoursPerMonth();

        double avg = in.users() * in.eventsPerDay() / SECONDS_PER_DAY;
        double peak = in.users() * in.peakEventsPerDay() / SECONDS_PER_DAY;
        double avgBytes = avg * in.recordBytes();
        double peakBytes = peak * in.recordBytes();

        boolean enhancedFanOut = in.fanOutConsumers() > MAX_POLLING_CONSUMERS;
        double byRecords = peak / SHARD_RECORDS_PER_SECOND;
        double byBytes = peakBytes / SHARD_WRITE_BYTES_PER_SECOND;
        double byReads = peakBytes * (enhancedFanOut ? 1 : in.fanOutConsumers()) / SHARD_READ_BYTES_PER_SECOND;
        ShardLimit binding = ShardLimit.RECORDS;
        double needed = byRecords;
        if (byBytes > needed) {
            binding = ShardLimit.BYTES;
            needed = byBytes;
        }
        if (byReads > needed) {
            binding = ShardLimit.READS;
            needed = byReads;
        }
        double byConsumer = consumerCeilingPerShard > 0 ? peak / consumerCeilingPerShard : 0;
        if (byConsumer > needed) {
            binding = ShardLimit.CONSUMER;
            needed = byConsumer;
        }
        int shards = (int) Math.max(1, Math.ceil(needed * (1 + in.headroom()) - 1e-9));

        int lambdaConcurrency = shards * in.parallelization();
        int kclWorkers = Math.max(MIN_KCL_WORKERS, (shards + in.leasesPerWorker() - 1) / in.leasesPerWorker());

        int window = (int) Math.min(MAX_BATCHING_WINDOW_SECONDS, in.targetLatencyMs() / 2 / 1000);
        // the event-source mapping reads each shard about once a second, or once a window when that is longer
        double pollSeconds = Math.max(1, window);
        double fill = Math.min(in.batchSize(), Math.max(1, avg / shards * pollSeconds));
        double eventsPerMonth = avg * secondsPerMonth;
        double invocations = eventsPerMonth / fill;

        double streamStorage = avgBytes * in.streamRetentionHours() * 3600;
        double lakeStorage = avgBytes * SECONDS_PER_DAY * in.retentionDays() * in.compression();

        int writeUnitsPerEvent = (in.recordBytes() + WRITE_UNIT_BYTES - 1) / WRITE_UNIT_BYTES;
        double wruPeak = peak * writeUnitsPerEvent;
        double wruMonth = eventsPerMonth * writeUnitsPerEvent;
        double s3Puts = invocations;
        double kmsRequests = s3Puts;

        List<CostLine> costs = new ArrayList<>();
        double shardHours = shards * hours;
        costs.add(new CostLine(
                "Kinesis",
                "shard-hours",
                shardHours,
                "shard-hours",
                shardHours * prices.price(KINESIS_SHARD_HOUR),
                shards + " shards × " + fmtHours(hours)));
        int unitsPerRecord = (in.recordBytes() + PUT_PAYLOAD_UNIT_BYTES - 1) / PUT_PAYLOAD_UNIT_BYTES;
        double payloadUnits = eventsPerMonth * unitsPerRecord;
        costs.add(new CostLine(
                "Kinesis",
                "PUT payload units",
                payloadUnits,
                "units",
                payloadUnits / 1e6 * prices.price(KINESIS_PUT_PAYLOAD_UNITS_PER_MILLION),
                unitsPerRecord + " × 25 KB unit per record"));
        if (in.streamRetentionHours() > 24) {
            costs.add(new CostLine(
                    "Kinesis",
                    "extended retention",
                    shardHours,
                    "shard-hours",
                    shardHours * prices.price(KINESIS_EXTENDED_RETENTION_SHARD_HOUR),
                    in.streamRetentionHours() + " h retention"));
        }
        if (enhancedFanOut) {
            double consumerShardHours = in.fanOutConsumers() * shardHours;
            costs.add(new CostLine(
                    "Kinesis",
                    "enhanced fan-out",
                    consumerShardHours,
                    "consumer-shard-hours",
                    consumerShardHours * prices.price(KINESIS_EFO_CONSUMER_SHARD_HOUR),
                    in.fanOutConsumers() + " consumers > " + MAX_POLLING_CONSUMERS + " polling"));
            double retrievedGb = avgBytes * secondsPerMonth * in.fanOutConsumers() / GB;
            costs.add(new CostLine(
                    "Kinesis",
                    "enhanced fan-out data",
                    retrievedGb,
                    "GB",
                    retrievedGb * prices.price(KINESIS_EFO_DATA_RETRIEVAL_GB),
                    "every consumer reads every byte"));
        }
        costs.add(new CostLine(
                "Lambda",
                "requests",
                invocations,
                "invocations",
                invocations / 1e6 * prices.price(LAMBDA_REQUESTS_PER_MILLION),
                String.format(java.util.Locale.ROOT, "%.1f records a batch on average", fill)));
        double gbSeconds = invocations * in.lambdaMsPerBatch() / 1000.0 * in.lambdaMemoryMb() / 1024.0;
        costs.add(new CostLine(
                "Lambda",
                "duration (arm64)",
                gbSeconds,
                "GB-seconds",
                gbSeconds * prices.price(LAMBDA_ARM64_GB_SECOND),
                in.lambdaMemoryMb() + " MB × " + in.lambdaMsPerBatch() + " ms a batch"));
        costs.add(new CostLine(
                "DynamoDB",
                "on-demand writes",
                wruMonth,
                "write units",
                wruMonth / 1e6 * prices.price(DYNAMODB_WRU_PER_MILLION),
                "one conditional write per event (upper bound)"));
        double lakeGb = lakeStorage / GB;
        costs.add(new CostLine(
                "S3",
                "lake storage",
                lakeGb,
                "GB-months",
                lakeGb * prices.price(S3_STORAGE_GB_MONTH),
                in.retentionDays() + " days, gzip ×" + PlanInputs.plain(in.compression()) + ", once full"));
        costs.add(new CostLine(
                "S3",
                "PUT requests",
                s3Puts,
                "PUTs",
                s3Puts / 1000 * prices.price(S3_PUT_PER_THOUSAND),
                "one object per batch"));
        costs.add(new CostLine("SQS", "dead-letter queue", 0, "requests", 0, "negligible: dead letters only"));
        costs.add(new CostLine(
                "KMS",
                "requests",
                kmsRequests,
                "requests",
                kmsRequests / 10_000 * prices.price(KMS_REQUESTS_PER_10K),
                "one data key per lake object"));
        costs.add(new CostLine("KMS", "customer managed key", 1, "keys", prices.price(KMS_KEY_MONTH), "one key"));

        return new CapacityPlan(
                in,
                prices,
                avg,
                peak,
                avgBytes,
                peakBytes,
                byRecords,
                byBytes,
                byReads,
                binding,
                shards,
                enhancedFanOut,
                lambdaConcurrency,
                kclWorkers,
                window,
                fill,
                eventsPerMonth,
                invocations,
                streamStorage,
                lakeStorage,
                wruPeak,
                wruMonth,
                s3Puts,
                kmsRequests,
                List.copyOf(costs),
                byConsumer,
                consumerCeilingPerShard,
                List.copyOf(figureSources));
    }

    private static String fmtHours(double hours) {
        return PlanInputs.plain(hours) + " h";
    }
}
