package dev.sluice.planner;

import static dev.sluice.planner.PriceTable.DYNAMODB_RCU_HOUR;
import static dev.sluice.planner.PriceTable.DYNAMODB_RRU_PER_MILLION;
import static dev.sluice.planner.PriceTable.DYNAMODB_WCU_HOUR;
import static dev.sluice.planner.PriceTable.DYNAMODB_WRU_PER_MILLION;
import static dev.sluice.planner.PriceTable.FARGATE_ARM64_GB_HOUR;
import static dev.sluice.planner.PriceTable.FARGATE_ARM64_VCPU_HOUR;
import static dev.sluice.planner.PriceTable.FIREHOSE_INGESTION_GB;
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
import java.util.Map;

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
    /**
     * What a state or deduplicate item holds besides the event's JSON, counted as DynamoDB sizes items
     * (attribute names plus values): {@code pk}, the 129-digit {@code position}, {@code shardId}, the
     * 56-digit {@code sequenceNumber}, {@code eventId}, {@code occurredAt}, {@code ingestedAt} and their
     * names — about 400 bytes, so a 1 KiB record makes a 2-unit item.
     */
    public static final int ITEM_OVERHEAD_BYTES = 400;
    /** A strongly consistent read of an item up to 4 KB is one read unit. */
    public static final int READ_UNIT_BYTES = 4 * 1024;
    /** Lambda's largest batch from a Kinesis event-source mapping. */
    public static final int MAX_BATCH_SIZE = 10_000;
    /** Firehose bills each record rounded up to a multiple of 5 KB. */
    public static final int FIREHOSE_RECORD_UNIT_BYTES = 5 * 1024;
    /**
     * KMS requests per S3 object with an S3 Bucket Key (the stack enables it on the lake bucket): S3
     * asks KMS for a bucket-level key and derives each object's data key from it, which AWS quotes as
     * "up to 99 %" fewer KMS requests; we take that figure, 1 request per 100 objects.
     */
    public static final double KMS_REQUESTS_PER_OBJECT_WITH_BUCKET_KEY = 0.01;
    /** Lambda's invocation payload limit (6 MB, the event's JSON with each record's data in base64). */
    public static final double INVOCATION_PAYLOAD_BYTES = 6 * 1024 * 1024;
    /** A Kinesis record in the event's JSON besides its data: ids, sequence number, ARNs, timestamps. */
    public static final double EVENT_RECORD_OVERHEAD_BYTES = 600;
    /**
     * A lake-only stage batches like Firehose buffers by default (300 s, also Lambda's longest
     * batching window): both deliver the same records at the same latency.
     */
    public static final int LAKE_ONLY_BATCHING_WINDOW_SECONDS = 300;

    /** A KCL worker task: 1 vCPU and 2 GB (Fargate arm64), the size the worker image is set up for. */
    public static final double KCL_WORKER_VCPU = 1;

    public static final double KCL_WORKER_GB = 2;

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
        return plan(in, prices, consumerCeilingPerShard, Map.of(), 0, figureSources);
    }

    /**
     * A plan whose DynamoDB, S3 and SQS requests are the ones a handler bench measured ({@code
     * ./sluice bench handler}: requests per 1,000 events by {@code "SERVICE Operation"}, at batches of
     * {@code measuredBatchRecords} records) rather than the upper bound of one conditional write per
     * event. {@code PutItem} is counted per event; every other operation per batch, scaled to the
     * plan's average batch.
     */
    public static CapacityPlan plan(
            PlanInputs in,
            PriceTable prices,
            double consumerCeilingPerShard,
            Map<String, Double> requestsPer1000,
            double measuredBatchRecords,
            List<String> figureSources) {
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

        int itemUnits = (in.recordBytes() + ITEM_OVERHEAD_BYTES + WRITE_UNIT_BYTES - 1) / WRITE_UNIT_BYTES;
        int itemReadUnits = (in.recordBytes() + ITEM_OVERHEAD_BYTES + READ_UNIT_BYTES - 1) / READ_UNIT_BYTES;
        boolean measuredRequests = !requestsPer1000.isEmpty() && measuredBatchRecords > 0;
        // operations other than PutItem happen once a batch (or once per item a batch touches): the
        // bench's full batches make fewer of them per event than the plan's average batch
        double perBatchScale = measuredRequests ? measuredBatchRecords / fill : 1;
        double writeUnitsPerEvent;
        double readUnitsPerEvent;
        double s3PutsPerEvent;
        double s3GetsPerEvent;
        double sqsPerEvent;
        String writesBasis;
        if (measuredRequests) {
            writeUnitsPerEvent = requests(requestsPer1000, "DYNAMODB", "PutItem") / 1000 * itemUnits
                    + requests(requestsPer1000, "DYNAMODB", "UpdateItem", "DeleteItem") / 1000 * perBatchScale;
            readUnitsPerEvent = requests(requestsPer1000, "DYNAMODB", "GetItem", "Query") / 1000 * perBatchScale;
            s3PutsPerEvent = requests(requestsPer1000, "S3", "PutObject") / 1000 * perBatchScale;
            s3GetsPerEvent = requests(requestsPer1000, "S3", "HeadObject", "GetObject") / 1000 * perBatchScale;
            sqsPerEvent = requests(requestsPer1000, "SQS", "SendMessage", "SendMessageBatch") / 1000 * perBatchScale;
            writesBasis = String.format(
                    java.util.Locale.ROOT,
                    "measured: %.1f PutItem (%d unit%s each) + %.1f UpdateItem/DeleteItem per 1,000 events at %s"
                            + " records a batch",
                    requests(requestsPer1000, "DYNAMODB", "PutItem"),
                    itemUnits,
                    itemUnits == 1 ? "" : "s",
                    requests(requestsPer1000, "DYNAMODB", "UpdateItem", "DeleteItem") * perBatchScale,
                    PlanInputs.plain(Math.round(fill * 10) / 10.0));
        } else {
            writeUnitsPerEvent = itemUnits;
            readUnitsPerEvent = 0;
            s3PutsPerEvent = 1 / fill;
            s3GetsPerEvent = 0;
            sqsPerEvent = 0;
            writesBasis = "one conditional write per event (" + itemUnits + " unit" + (itemUnits == 1 ? "" : "s")
                    + "): an upper bound";
        }
        double wruPeak = peak * writeUnitsPerEvent;
        double wruMonth = eventsPerMonth * writeUnitsPerEvent;
        double rruMonth = eventsPerMonth * readUnitsPerEvent * itemReadUnits;
        double s3Puts = eventsPerMonth * s3PutsPerEvent;
        double kmsRequests = s3Puts * KMS_REQUESTS_PER_OBJECT_WITH_BUCKET_KEY;

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
        costs.addAll(dynamoDb(in, prices, wruMonth, rruMonth, secondsPerMonth, writesBasis));
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
                measuredRequests ? "measured, per batch" : "one object per batch"));
        if (s3GetsPerEvent > 0) {
            double gets = eventsPerMonth * s3GetsPerEvent;
            costs.add(new CostLine(
                    "S3",
                    "GET/HEAD requests",
                    gets,
                    "requests",
                    gets / 1000 * prices.price(PriceTable.S3_GET_PER_THOUSAND),
                    "measured, per batch"));
        }
        if (sqsPerEvent > 0) {
            double messages = eventsPerMonth * sqsPerEvent;
            costs.add(new CostLine(
                    "SQS",
                    "dead-letter requests",
                    messages,
                    "requests",
                    messages / 1e6 * prices.price(PriceTable.SQS_REQUESTS_PER_MILLION),
                    "measured (the bench's share of invalid events)"));
        } else {
            costs.add(new CostLine("SQS", "dead-letter queue", 0, "requests", 0, "negligible: dead letters only"));
        }
        for (int hop = 0; hop < in.hopStreams(); hop++) {
            costs.addAll(hopStream(in, prices, peakBytes, eventsPerMonth, hours));
        }
        if (in.kclStages() > 0) {
            int tasks = kclWorkers * in.kclStages();
            double taskHours = tasks * hours;
            costs.add(new CostLine(
                    "Fargate",
                    "KCL worker tasks (arm64)",
                    taskHours,
                    "task-hours",
                    taskHours
                            * (KCL_WORKER_VCPU * prices.price(FARGATE_ARM64_VCPU_HOUR)
                                    + KCL_WORKER_GB * prices.price(FARGATE_ARM64_GB_HOUR)),
                    tasks + " tasks (" + in.kclStages() + " KCL stage" + (in.kclStages() == 1 ? "" : "s") + " × "
                            + kclWorkers + " workers) of " + PlanInputs.plain(KCL_WORKER_VCPU) + " vCPU, "
                            + PlanInputs.plain(KCL_WORKER_GB) + " GB"));
        }
        costs.add(new CostLine(
                "KMS",
                "requests",
                kmsRequests,
                "requests",
                kmsRequests / 10_000 * prices.price(KMS_REQUESTS_PER_10K),
                "S3 Bucket Key: 1 per 100 objects"));
        costs.add(new CostLine("KMS", "customer managed key", 1, "keys", prices.price(KMS_KEY_MONTH), "one key"));

        List<CostLine> lakeOnly =
                lakeOnly(in, prices, avg, shards, in.lambdaMsPerBatch() / fill, eventsPerMonth, secondsPerMonth);
        List<CostLine> firehose = firehose(in, prices, eventsPerMonth);
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
                List.copyOf(figureSources),
                rruMonth,
                List.copyOf(lakeOnly),
                List.copyOf(firehose));
    }

    /** Writes and reads at the plan's capacity mode. */
    private static List<CostLine> dynamoDb(
            PlanInputs in, PriceTable prices, double wruMonth, double rruMonth, double secondsPerMonth, String basis) {
        List<CostLine> lines = new ArrayList<>();
        if (in.dynamoDbCapacity() == DynamoDbCapacity.ON_DEMAND) {
            lines.add(new CostLine(
                    "DynamoDB",
                    "on-demand writes",
                    wruMonth,
                    "write units",
                    wruMonth / 1e6 * prices.price(DYNAMODB_WRU_PER_MILLION),
                    basis));
            if (rruMonth > 0) {
                lines.add(new CostLine(
                        "DynamoDB",
                        "on-demand reads",
                        rruMonth,
                        "read units",
                        rruMonth / 1e6 * prices.price(DYNAMODB_RRU_PER_MILLION),
                        "measured, consistent reads"));
            }
            return lines;
        }
        double hours = secondsPerMonth / 3600;
        double wcuHours = wruMonth / secondsPerMonth / DynamoDbCapacity.TARGET_UTILISATION * hours;
        lines.add(new CostLine(
                "DynamoDB",
                "provisioned writes",
                wcuHours,
                "WCU-hours",
                wcuHours * prices.price(DYNAMODB_WCU_HOUR),
                basis + "; auto scaling at 70 % use"));
        if (rruMonth > 0) {
            double rcuHours = rruMonth / secondsPerMonth / DynamoDbCapacity.TARGET_UTILISATION * hours;
            lines.add(new CostLine(
                    "DynamoDB",
                    "provisioned reads",
                    rcuHours,
                    "RCU-hours",
                    rcuHours * prices.price(DYNAMODB_RCU_HOUR),
                    "measured, consistent reads; auto scaling at 70 % use"));
        }
        return lines;
    }

    /**
     * A re-key hop's stream: KPL aggregates fill 25 KB payload units and records stop binding, so
     * bytes set its shards; its consumer polls it (no extra charge).
     */
    private static List<CostLine> hopStream(
            PlanInputs in, PriceTable prices, double peakBytes, double eventsPerMonth, double hours) {
        int hopShards = (int) Math.max(1, Math.ceil(peakBytes / SHARD_WRITE_BYTES_PER_SECOND * (1 + in.headroom())));
        double units = eventsPerMonth * in.recordBytes() / PUT_PAYLOAD_UNIT_BYTES;
        return List.of(
                new CostLine(
                        "Kinesis",
                        "re-key hop shard-hours",
                        hopShards * hours,
                        "shard-hours",
                        hopShards * hours * prices.price(KINESIS_SHARD_HOUR),
                        hopShards + " shards (KPL aggregates: bytes bind)"),
                new CostLine(
                        "Kinesis",
                        "re-key hop PUT units",
                        units,
                        "units",
                        units / 1e6 * prices.price(KINESIS_PUT_PAYLOAD_UNITS_PER_MILLION),
                        "aggregated records fill 25 KB units"));
    }

    /**
     * A stage that only writes the lake, reading the same stream (left out here and from the Firehose
     * baseline alike): batches of up to 10,000 records (and 6 MB) over Firehose's 300 s buffering, the
     * full stage's milliseconds a record (an upper bound: such a stage only serialises), one object a
     * batch, KMS through the bucket key, and the commit ledger's two writes an object.
     */
    private static List<CostLine> lakeOnly(
            PlanInputs in,
            PriceTable prices,
            double avg,
            int shards,
            double msPerRecord,
            double eventsPerMonth,
            double secondsPerMonth) {
        double byPayload = Math.floor(
                INVOCATION_PAYLOAD_BYTES / (Math.ceil(in.recordBytes() / 3.0) * 4 + EVENT_RECORD_OVERHEAD_BYTES));
        double lakeFill = Math.max(
                1, Math.min(Math.min(MAX_BATCH_SIZE, byPayload), avg / shards * LAKE_ONLY_BATCHING_WINDOW_SECONDS));
        double invocations = eventsPerMonth / lakeFill;
        double msPerBatch = msPerRecord * lakeFill;
        double gbSeconds = invocations * msPerBatch / 1000.0 * in.lambdaMemoryMb() / 1024.0;
        List<CostLine> lines = new ArrayList<>();
        lines.add(new CostLine(
                "Lambda",
                "requests",
                invocations,
                "invocations",
                invocations / 1e6 * prices.price(LAMBDA_REQUESTS_PER_MILLION),
                String.format(
                        java.util.Locale.ROOT,
                        "%.1f records a batch (%d s window, ≤ 6 MB a payload)",
                        lakeFill,
                        LAKE_ONLY_BATCHING_WINDOW_SECONDS)));
        lines.add(new CostLine(
                "Lambda",
                "duration (arm64)",
                gbSeconds,
                "GB-seconds",
                gbSeconds * prices.price(LAMBDA_ARM64_GB_SECOND),
                String.format(
                        java.util.Locale.ROOT, "the full stage's %.2f ms a record: an upper bound", msPerRecord)));
        lines.add(new CostLine(
                "S3",
                "PUT requests",
                invocations,
                "PUTs",
                invocations / 1000 * prices.price(S3_PUT_PER_THOUSAND),
                "one object a batch"));
        double kms = invocations * KMS_REQUESTS_PER_OBJECT_WITH_BUCKET_KEY;
        lines.add(new CostLine(
                "KMS",
                "requests",
                kms,
                "requests",
                kms / 10_000 * prices.price(KMS_REQUESTS_PER_10K),
                "S3 Bucket Key: 1 per 100 objects"));
        lines.addAll(dynamoDb(in, prices, 2 * invocations, 0, secondsPerMonth, "commit ledger: 2 writes an object"));
        return lines;
    }

    /** Amazon Data Firehose delivering the same records to S3 (records billed in 5 KB steps). */
    private static List<CostLine> firehose(PlanInputs in, PriceTable prices, double eventsPerMonth) {
        double billed = Math.ceil((double) in.recordBytes() / FIREHOSE_RECORD_UNIT_BYTES) * FIREHOSE_RECORD_UNIT_BYTES;
        double gb = eventsPerMonth * billed / GB;
        double objects = eventsPerMonth * in.recordBytes() / CostModel.FIREHOSE_BUFFER_BYTES;
        return List.of(
                new CostLine(
                        "Firehose",
                        "ingestion",
                        gb,
                        "GB",
                        gb * prices.price(FIREHOSE_INGESTION_GB),
                        "records rounded up to 5 KB"),
                new CostLine(
                        "S3",
                        "PUT requests",
                        objects,
                        "PUTs",
                        objects / 1000 * prices.price(S3_PUT_PER_THOUSAND),
                        "5 MiB buffers"),
                new CostLine(
                        "KMS",
                        "requests",
                        objects * KMS_REQUESTS_PER_OBJECT_WITH_BUCKET_KEY,
                        "requests",
                        objects * KMS_REQUESTS_PER_OBJECT_WITH_BUCKET_KEY / 10_000 * prices.price(KMS_REQUESTS_PER_10K),
                        "the same bucket, the same Bucket Key"));
    }

    private static double requests(Map<String, Double> requestsPer1000, String service, String... operations) {
        double sum = 0;
        for (String operation : operations) {
            sum += requestsPer1000.getOrDefault(service + " " + operation, 0.0);
        }
        return sum;
    }

    private static String fmtHours(double hours) {
        return PlanInputs.plain(hours) + " h";
    }
}
