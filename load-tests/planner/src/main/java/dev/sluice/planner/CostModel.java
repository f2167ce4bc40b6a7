package dev.sluice.planner;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Cost per million events from the requests a load run measured and the price table,
 * next to two baselines priced the same way. Request-driven lines scale with events; shard-hours
 * are priced at the run's own rate (a faster run spreads the same shards over more events).
 * Storage, CloudWatch and data transfer are left out, as in {@code ./sluice plan}.
 */
public final class CostModel {

    static final double KIB = 1024;
    static final double GIB = 1024.0 * 1024 * 1024;
    /** Firehose buffers up to 5 MiB (or 300 s) per S3 object by default. */
    static final double FIREHOSE_BUFFER_BYTES = 5 * 1024 * 1024;

    private static final Set<String> DYNAMODB_WRITES = Set.of("PutItem", "UpdateItem", "DeleteItem");
    private static final Set<String> DYNAMODB_BATCH_WRITES = Set.of("BatchWriteItem", "TransactWriteItems");
    private static final Set<String> DYNAMODB_READS = Set.of("GetItem", "Query", "Scan");
    private static final Set<String> DYNAMODB_BATCH_READS = Set.of("BatchGetItem", "TransactGetItems");
    private static final Set<String> S3_PUT_CLASS = Set.of(
            "PutObject",
            "CopyObject",
            "ListObjectsV2",
            "ListObjects",
            "CreateMultipartUpload",
            "UploadPart",
            "CompleteMultipartUpload");

    /**
     * What the run measured.
     *
     * @param events events produced (the ledger)
     * @param recordBytes average bytes of one produced record
     * @param eventsPerSecond the rate the run achieved
     * @param shards shards of the pipeline's streams (all of them, re-key hops included)
     * @param invocations function invocations (batches) of the run
     * @param lambdaMemoryMb the stage function's memory
     * @param lambdaMsPerBatch billed duration per invocation: measured (the run's mean) or assumed
     *     (the planner's 200 ms)
     * @param producerRecords records the producer put (its PutRecords entries, retries included)
     * @param functionRequests the requests the functions made (sinks, dead-letter queue, lake ledger), by
     *     service and operation
     * @param tableSinks the stage's table sinks (for the per-record baseline)
     * @param lakeSinks the stage's lake sinks
     * @param aggregates the stage's aggregate steps
     * @param lambdaMsBasis where {@code lambdaMsPerBatch} comes from, e.g. {@code "measured: mean of 1,204
     *     invocations"} or {@code "assumed"}
     */
    public record Inputs(
            long events,
            double recordBytes,
            double eventsPerSecond,
            int shards,
            long invocations,
            int lambdaMemoryMb,
            double lambdaMsPerBatch,
            long producerRecords,
            List<Requests> functionRequests,
            int tableSinks,
            int lakeSinks,
            int aggregates,
            String lambdaMsBasis) {

        /** With the planner's assumed duration per batch. */
        public Inputs(
                long events,
                double recordBytes,
                double eventsPerSecond,
                int shards,
                long invocations,
                int lambdaMemoryMb,
                double lambdaMsPerBatch,
                long producerRecords,
                List<Requests> functionRequests,
                int tableSinks,
                int lakeSinks,
                int aggregates) {
            this(
                    events,
                    recordBytes,
                    eventsPerSecond,
                    shards,
                    invocations,
                    lambdaMemoryMb,
                    lambdaMsPerBatch,
                    producerRecords,
                    functionRequests,
                    tableSinks,
                    lakeSinks,
                    aggregates,
                    "assumed");
        }
    }

    /**
     * The requests of one operation of one service, as a load run counted them (one row per resource
     * is fine: rows of the same operation add up).
     *
     * @param service the SDK's service name, any case ({@code DynamoDb}, {@code S3}, {@code Sqs}, {@code Kinesis})
     * @param operation the API operation ({@code PutItem}, {@code PutObject}, ...)
     * @param requests HTTP requests (attempts, retries included)
     * @param entries records, items or messages they carried (1 for a single-item call)
     */
    public record Requests(String service, String operation, long requests, long entries) {}

    /** One priced line: quantity and dollars per million events. */
    public record Line(String service, String item, double quantityPerMillion, String unit, double usdPerMillion) {}

    /** A design priced line by line. */
    public record Breakdown(String design, List<Line> lines, String note) {
        public double usdPerMillion() {
            return lines.stream().mapToDouble(Line::usdPerMillion).sum();
        }
    }

    /** The design name of {@link #modelled}'s breakdown. */
    public static final String MODELLED = "Sluice (modelled in AWS)";

    private CostModel() {}

    /** Sluice as measured, the per-record idempotent write and Firehose, in that order. */
    public static List<Breakdown> price(Inputs in, PriceTable prices) {
        return List.of(measured(in, prices), perRecordIdempotency(in, prices), firehose(in, prices));
    }

    static Breakdown measured(Inputs in, PriceTable prices) {
        return sluice(
                in,
                prices,
                "Sluice (measured)",
                "the requests the functions made in this run, per million events; Lambda duration "
                        + String.format(java.util.Locale.ROOT, "%.1f", in.lambdaMsPerBatch()) + " ms per batch ("
                        + in.lambdaMsBasis() + ") at " + in.lambdaMemoryMb() + " MB");
    }

    /**
     * Sluice modelled in AWS: {@code in} holds a handler bench's requests (scaled to the run's events)
     * and its modelled batch duration, so no figure carries the emulators' CPU or latency.
     */
    public static Breakdown modelled(Inputs in, PriceTable prices, String source) {
        return sluice(
                in,
                prices,
                MODELLED,
                "the handler bench's requests per event and its modelled AWS batch of "
                        + String.format(java.util.Locale.ROOT, "%.1f", in.lambdaMsPerBatch()) + " ms at "
                        + in.lambdaMemoryMb() + " MB, full batches (" + source
                        + "); the stream's terms are this run's");
    }

    private static Breakdown sluice(Inputs in, PriceTable prices, String design, String note) {
        List<Line> lines = new ArrayList<>(ingest(in, prices, true));
        lines.addAll(lambda(in, prices));
        double perEvent = 1e6 / in.events();
        double writes = 0;
        double reads = 0;
        double s3Put = 0;
        double s3Get = 0;
        double sqs = 0;
        for (Requests r : in.functionRequests()) {
            switch (service(r.service())) {
                case "dynamodb" -> {
                    if (DYNAMODB_WRITES.contains(r.operation())) {
                        writes += r.requests();
                    } else if (DYNAMODB_BATCH_WRITES.contains(r.operation())) {
                        writes += r.entries();
                    } else if (DYNAMODB_READS.contains(r.operation())) {
                        reads += r.requests();
                    } else if (DYNAMODB_BATCH_READS.contains(r.operation())) {
                        reads += r.entries();
                    }
                }
                case "s3" -> {
                    if (S3_PUT_CLASS.contains(r.operation())) {
                        s3Put += r.requests();
                    } else {
                        s3Get += r.requests();
                    }
                }
                case "sqs" -> sqs += r.requests();
                default -> {}
            }
        }
        double objects = in.functionRequests().stream()
                .filter(r -> service(r.service()).equals("s3") && r.operation().equals("PutObject"))
                .mapToLong(Requests::requests)
                .sum();
        lines.add(line(
                "DynamoDB",
                "write request units (1 per write, items ≤ 1 KB)",
                writes * perEvent,
                "WRU",
                prices.price(PriceTable.DYNAMODB_WRU_PER_MILLION) / 1e6));
        lines.add(line(
                "DynamoDB",
                "read request units (1 per read)",
                reads * perEvent,
                "RRU",
                optional(prices, PriceTable.DYNAMODB_RRU_PER_MILLION) / 1e6));
        lines.add(line(
                "S3",
                "PUT/LIST requests",
                s3Put * perEvent,
                "requests",
                prices.price(PriceTable.S3_PUT_PER_THOUSAND) / 1e3));
        lines.add(line(
                "S3",
                "GET/HEAD requests",
                s3Get * perEvent,
                "requests",
                optional(prices, PriceTable.S3_GET_PER_THOUSAND) / 1e3));
        lines.add(line(
                "SQS",
                "requests",
                sqs * perEvent,
                "requests",
                prices.price(PriceTable.SQS_REQUESTS_PER_MILLION) / 1e6));
        lines.add(kms(objects * perEvent, prices));
        return new Breakdown(design, lines, note);
    }

    static Breakdown perRecordIdempotency(Inputs in, PriceTable prices) {
        List<Line> lines = new ArrayList<>(ingest(in, prices, true));
        lines.addAll(lambda(in, prices));
        double wru = Math.ceil(in.recordBytes() / KIB);
        lines.add(line(
                "DynamoDB",
                "one conditional write per record (idempotency key)",
                1e6 * wru,
                "WRU",
                prices.price(PriceTable.DYNAMODB_WRU_PER_MILLION) / 1e6));
        if (in.tableSinks() + in.aggregates() > 0) {
            lines.add(line(
                    "DynamoDB",
                    "one write per record per table sink and aggregate",
                    1e6 * (in.tableSinks() * wru + in.aggregates()),
                    "WRU",
                    prices.price(PriceTable.DYNAMODB_WRU_PER_MILLION) / 1e6));
        }
        if (in.lakeSinks() > 0) {
            lines.add(line(
                    "S3",
                    "one PUT per record per lake sink",
                    1e6 * in.lakeSinks(),
                    "requests",
                    prices.price(PriceTable.S3_PUT_PER_THOUSAND) / 1e3));
            lines.add(kms(1e6 * in.lakeSinks(), prices));
        }
        return new Breakdown(
                "per-record idempotent write",
                lines,
                "same streams and functions; every record is guarded by its own conditional DynamoDB write"
                        + " (ceil(bytes ÷ 1 KB) WRU) and then written on its own: one write per table sink and"
                        + " aggregate, one S3 object per lake sink — no batching into objects or per-batch"
                        + " aggregate updates");
    }

    static Breakdown firehose(Inputs in, PriceTable prices) {
        List<Line> lines = new ArrayList<>(ingest(in, prices, false));
        double billedBytes = Math.ceil(in.recordBytes() / (5 * KIB)) * 5 * KIB;
        lines.add(line(
                "Firehose",
                "ingestion (records rounded up to 5 KB)",
                1e6 * billedBytes / GIB,
                "GB",
                prices.price(PriceTable.FIREHOSE_INGESTION_GB)));
        double objects = 1e6 * in.recordBytes() / FIREHOSE_BUFFER_BYTES;
        lines.add(line(
                "S3",
                "PUT requests (5 MiB buffers)",
                objects,
                "requests",
                prices.price(PriceTable.S3_PUT_PER_THOUSAND) / 1e3));
        lines.add(kms(objects, prices));
        return new Breakdown(
                "Amazon Data Firehose to S3",
                lines,
                "the source stream read by Firehose, the same bytes delivered to S3 in 5 MiB objects; no validation,"
                        + " masking, table or exactly-once effects");
    }

    /** Kinesis: PUT payload units and shard-hours at the run's rate. */
    private static List<Line> ingest(Inputs in, PriceTable prices, boolean allPuts) {
        double perEvent = 1e6 / in.events();
        double units = Math.ceil(in.recordBytes() / (25 * KIB));
        double records =
                allPuts ? in.producerRecords() + kinesisPutEntries(in.functionRequests()) : in.producerRecords();
        double hours = 1e6 / in.eventsPerSecond() / 3600.0 * in.shards();
        return List.of(
                line(
                        "Kinesis",
                        "PUT payload units (25 KB)",
                        records * perEvent * units,
                        "units",
                        prices.price(PriceTable.KINESIS_PUT_PAYLOAD_UNITS_PER_MILLION) / 1e6),
                line(
                        "Kinesis",
                        "shard-hours at " + Math.round(in.eventsPerSecond()) + " events/s",
                        hours,
                        "shard-hours",
                        prices.price(PriceTable.KINESIS_SHARD_HOUR)));
    }

    private static List<Line> lambda(Inputs in, PriceTable prices) {
        double invocations = in.invocations() * 1e6 / in.events();
        return List.of(
                line(
                        "Lambda",
                        "requests",
                        invocations,
                        "invocations",
                        prices.price(PriceTable.LAMBDA_REQUESTS_PER_MILLION) / 1e6),
                line(
                        "Lambda",
                        "duration (arm64)",
                        invocations * in.lambdaMsPerBatch() / 1000.0 * in.lambdaMemoryMb() / 1024.0,
                        "GB-s",
                        prices.price(PriceTable.LAMBDA_ARM64_GB_SECOND)));
    }

    private static Line kms(double objectsPerMillion, PriceTable prices) {
        return line(
                "KMS",
                "requests (one per S3 object, no bucket key: an upper bound)",
                objectsPerMillion,
                "requests",
                prices.price(PriceTable.KMS_REQUESTS_PER_10K) / 1e4);
    }

    private static long kinesisPutEntries(List<Requests> rows) {
        return rows.stream()
                .filter(r -> service(r.service()).equals("kinesis"))
                .filter(r -> r.operation().equals("PutRecords") || r.operation().equals("PutRecord"))
                .mapToLong(Requests::entries)
                .sum();
    }

    private static Line line(String service, String item, double quantity, String unit, double unitPrice) {
        return new Line(service, item, quantity, unit, quantity * unitPrice);
    }

    private static double optional(PriceTable prices, String name) {
        PriceTable.Price price = prices.prices().get(name);
        return price == null ? 0 : price.price();
    }

    /** The SDK's service name in lower case ({@code DynamoDb} → {@code dynamodb}). */
    public static String service(String sdkName) {
        return sdkName == null ? "" : sdkName.toLowerCase(java.util.Locale.ROOT);
    }
}
