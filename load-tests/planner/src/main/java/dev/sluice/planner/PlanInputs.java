package dev.sluice.planner;

import java.util.List;
import java.util.Locale;

/**
 * What the plan is computed from. Rates are per user per day: {@code eventsPerDay} on average, {@code
 * peakEventsPerDay} as if the peak rate lasted the whole day (peak events/s = users × peakEventsPerDay ÷ 86,400).
 *
 * @param users users (customers, visitors) producing events
 * @param eventsPerDay average events per user per day
 * @param peakEventsPerDay events per user per day at the peak rate; at least {@code eventsPerDay}
 * @param recordBytes bytes of one record as written to the stream (1 to 1,048,576, Kinesis's record limit)
 * @param retentionDays days the lake keeps objects
 * @param streamRetentionHours hours the stream keeps records, 24 to 168 (beyond 24 is extended retention)
 * @param fanOutConsumers consumers reading each stream; more than 2 means enhanced fan-out
 * @param headroom spare shard capacity above peak, as a fraction (0.25 = 25 %)
 * @param parallelization Lambda event-source mapping parallelization factor, 1 to 10
 * @param leasesPerWorker shard leases one KCL worker holds
 * @param targetLatencyMs end-to-end latency target; the batching window is at most half of it
 * @param compression lake size after gzip as a fraction of the raw bytes (0 &lt; R ≤ 1)
 * @param batchSize Lambda event-source mapping batch size, 1 to 10,000
 * @param lambdaMemoryMb Lambda memory, 128 to 10,240 MB
 * @param lambdaMsPerBatch billed milliseconds of one invocation
 * @param dynamoDbCapacity how DynamoDB capacity is bought
 * @param kclStages stages consumed by KCL workers (each priced as its own worker tasks)
 * @param hopStreams re-key hops: streams a stage puts the events into again, KPL-aggregated
 */
public record PlanInputs(
        long users,
        double eventsPerDay,
        double peakEventsPerDay,
        int recordBytes,
        int retentionDays,
        int streamRetentionHours,
        int fanOutConsumers,
        double headroom,
        int parallelization,
        int leasesPerWorker,
        long targetLatencyMs,
        double compression,
        int batchSize,
        int lambdaMemoryMb,
        int lambdaMsPerBatch,
        DynamoDbCapacity dynamoDbCapacity,
        int kclStages,
        int hopStreams) {

    /**
     * The highest peak rate a plan is made for: 100 million events a second (100,000 shards' worth of
     * records), far above any single pipeline, and low enough that every figure stays finite.
     */
    public static final long MAX_EVENTS_PER_SECOND = 100_000_000L;

    /** The presets of {@code ./sluice plan --example NAME}. */
    public static final List<String> EXAMPLES = List.of("payments", "clickstream");

    public PlanInputs {
        atLeast("users", users, 1);
        positive("events-per-day", eventsPerDay);
        positive("peak-events-per-day", peakEventsPerDay);
        if (peakEventsPerDay < eventsPerDay) {
            throw new IllegalArgumentException(String.format(
                    Locale.ROOT,
                    "peak-events-per-day (%s) must be at least events-per-day (%s)",
                    plain(peakEventsPerDay),
                    plain(eventsPerDay)));
        }
        double peakPerSecond = users * peakEventsPerDay / 86_400;
        if (!(peakPerSecond <= MAX_EVENTS_PER_SECOND)) {
            throw new IllegalArgumentException(String.format(
                    Locale.ROOT,
                    "users × peak-events-per-day is %.3g events a second at peak; at most %,d a second can be planned",
                    peakPerSecond,
                    MAX_EVENTS_PER_SECOND));
        }
        between("record-bytes", recordBytes, 1, 1_048_576);
        between("retention-days", retentionDays, 1, 36_500);
        between("fan-out-consumers", fanOutConsumers, 1, 20);
        between("stream-retention-hours", streamRetentionHours, 24, 168);
        if (!(headroom >= 0) || headroom > 10) {
            throw new IllegalArgumentException(
                    "headroom must be between 0 and 10 (a fraction), got " + plain(headroom));
        }
        between("parallelization", parallelization, 1, 10);
        atLeast("leases-per-worker", leasesPerWorker, 1);
        atLeast("target-latency-ms", targetLatencyMs, 1);
        if (!(compression > 0) || compression > 1) {
            throw new IllegalArgumentException(
                    "compression must be above 0 and at most 1 (compressed ÷ raw), got " + plain(compression));
        }
        between("batch-size", batchSize, 1, 10_000);
        between("lambda-memory-mb", lambdaMemoryMb, 128, 10_240);
        between("lambda-ms-per-batch", lambdaMsPerBatch, 1, 900_000);
        if (dynamoDbCapacity == null) {
            throw new IllegalArgumentException("dynamodb-capacity is required");
        }
        between("kcl-stages", kclStages, 0, 20);
        between("hop-streams", hopStreams, 0, 20);
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * A preset. {@code payments}: 1M customers, 3 payments a day on average, a peak rate of 20 a day, 1 KiB
     * records, a year in the lake. {@code clickstream}: 25,000 concurrent visitors × 5 page views a minute =
     * 7,200 a day each (125,000 events/min), peak twice that, 0.5 KiB records, 90 days in the lake, one
     * re-key hop and one KCL stage (page-counts), as pipelines/clickstream.yaml has them.
     */
    public static Builder example(String name) {
        return switch (name) {
            case "payments" ->
                builder()
                        .users(1_000_000)
                        .eventsPerDay(3)
                        .peakEventsPerDay(20)
                        .recordBytes(1024)
                        .retentionDays(365);
            case "clickstream" ->
                builder()
                        .users(25_000)
                        .eventsPerDay(7_200)
                        .peakEventsPerDay(14_400)
                        .recordBytes(512)
                        .retentionDays(90)
                        .hopStreams(1)
                        .kclStages(1);
            default ->
                throw new IllegalArgumentException(
                        "unknown example '" + name + "' (known: " + String.join(", ", EXAMPLES) + ")");
        };
    }

    private static void atLeast(String name, long value, long min) {
        if (value < min) {
            throw new IllegalArgumentException(name + " must be at least " + min + ", got " + value);
        }
    }

    private static void between(String name, long value, long min, long max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(name + " must be between " + min + " and " + max + ", got " + value);
        }
    }

    private static void positive(String name, double value) {
        if (!(value > 0) || Double.isInfinite(value)) {
            throw new IllegalArgumentException(name + " must be above 0, got " + plain(value));
        }
    }

    static String plain(double value) {
        return value == Math.rint(value) && Math.abs(value) < 1e15
                ? Long.toString((long) value)
                : Double.toString(value);
    }

    /** Inputs with the documented defaults; users, events, record bytes and lake retention have none. */
    public static final class Builder {
        private Long users;
        private Double eventsPerDay;
        private Double peakEventsPerDay;
        private Integer recordBytes;
        private Integer retentionDays;
        private int streamRetentionHours = 24;
        private int fanOutConsumers = 1;
        private double headroom = 0.25;
        private int parallelization = 1;
        private int leasesPerWorker = 8;
        private long targetLatencyMs = 2_000;
        private double compression = 0.2;
        private int batchSize = 100;
        private int lambdaMemoryMb = 1024;
        private int lambdaMsPerBatch = 200;
        private DynamoDbCapacity dynamoDbCapacity = DynamoDbCapacity.ON_DEMAND;
        private int kclStages;
        private int hopStreams;

        private Builder() {}

        public Builder users(long v) {
            users = v;
            return this;
        }

        public Builder eventsPerDay(double v) {
            eventsPerDay = v;
            return this;
        }

        /** Defaults to {@code eventsPerDay}: a flat load. */
        public Builder peakEventsPerDay(double v) {
            peakEventsPerDay = v;
            return this;
        }

        public Builder recordBytes(int v) {
            recordBytes = v;
            return this;
        }

        public Builder retentionDays(int v) {
            retentionDays = v;
            return this;
        }

        public Builder streamRetentionHours(int v) {
            streamRetentionHours = v;
            return this;
        }

        public Builder fanOutConsumers(int v) {
            fanOutConsumers = v;
            return this;
        }

        public Builder headroom(double v) {
            headroom = v;
            return this;
        }

        public Builder parallelization(int v) {
            parallelization = v;
            return this;
        }

        public Builder leasesPerWorker(int v) {
            leasesPerWorker = v;
            return this;
        }

        public Builder targetLatencyMs(long v) {
            targetLatencyMs = v;
            return this;
        }

        public Builder compression(double v) {
            compression = v;
            return this;
        }

        public Builder batchSize(int v) {
            batchSize = v;
            return this;
        }

        public Builder lambdaMemoryMb(int v) {
            lambdaMemoryMb = v;
            return this;
        }

        public Builder lambdaMsPerBatch(int v) {
            lambdaMsPerBatch = v;
            return this;
        }

        public Builder dynamoDbCapacity(DynamoDbCapacity v) {
            dynamoDbCapacity = v;
            return this;
        }

        public Builder kclStages(int v) {
            kclStages = v;
            return this;
        }

        public Builder hopStreams(int v) {
            hopStreams = v;
            return this;
        }

        public PlanInputs build() {
            require("users", users);
            require("events-per-day", eventsPerDay);
            require("record-bytes", recordBytes);
            require("retention-days", retentionDays);
            return new PlanInputs(
                    users,
                    eventsPerDay,
                    peakEventsPerDay == null ? eventsPerDay : peakEventsPerDay,
                    recordBytes,
                    retentionDays,
                    streamRetentionHours,
                    fanOutConsumers,
                    headroom,
                    parallelization,
                    leasesPerWorker,
                    targetLatencyMs,
                    compression,
                    batchSize,
                    lambdaMemoryMb,
                    lambdaMsPerBatch,
                    dynamoDbCapacity,
                    kclStages,
                    hopStreams);
        }

        private static void require(String name, Object value) {
            if (value == null) {
                throw new IllegalArgumentException(name + " is required");
            }
        }
    }
}
