package dev.sluice.planner;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * {@code ./sluice load --aws-latency}: how long each AWS operation the pipeline calls takes in AWS,
 * as a log-normal distribution fitted to a median and a 99th percentile taken from published
 * figures ({@link #PUBLISHED}, cited in load-tests/README.md, "AWS latency model"). The local stack
 * delays every call to the four services by a draw from its operation's distribution, at the
 * services' gates ({@code LocalAws.latency}), so the functions, the event-source mapping, the KCL
 * worker JVMs and the producer all pay it.
 *
 * <p>Log-normal: {@code ln(latency)} is normal with mean {@code ln(p50)} and standard deviation
 * {@code ln(p99 / p50) / z₀.₉₉}, so the distribution's median is p50 and its 99th percentile p99.
 * Seeded: each operation draws from its own generator, seeded from the run's seed and the
 * operation's name, so the n-th call of an operation gets the same latency in every run with the
 * same seed (which call is n-th depends on the threads' timing).
 */
public final class AwsLatencyModel {

    /** The standard normal distribution's 99th percentile. */
    static final double Z_99 = 2.3263478740408408;

    /** Where a figure comes from. */
    public enum Basis {
        /** A percentile a source publishes. */
        PUBLISHED_PERCENTILE,
        /** A typical value a source states (an average, "single-digit ms", "tens of ms"). */
        TYPICAL_VALUE,
        /** No figure found: an assumption, stated as one. */
        ASSUMED
    }

    /**
     * One operation's latency in AWS (client-observed, same Region).
     *
     * @param service {@code KINESIS}, {@code DYNAMODB}, {@code S3} or {@code SQS}
     * @param operation the API operation as the request names it
     * @param p50Millis median
     * @param p99Millis 99th percentile
     * @param basis how the figures were obtained
     * @param source what the source says, in short
     * @param url the source
     */
    public record Figure(
            String service,
            String operation,
            double p50Millis,
            double p99Millis,
            Basis basis,
            String source,
            String url) {

        public Figure {
            if (!(p50Millis > 0) || !(p99Millis >= p50Millis)) {
                throw new IllegalArgumentException(
                        operation + ": a latency needs 0 < p50 ≤ p99, got " + p50Millis + " / " + p99Millis);
            }
        }

        double mu() {
            return Math.log(p50Millis);
        }

        double sigma() {
            return Math.log(p99Millis / p50Millis) / Z_99;
        }

        /** The latency at standard normal quantile {@code z} (z = 0: the median; z = 2.326: p99). */
        double quantileAt(double z) {
            return Math.exp(mu() + sigma() * z);
        }
    }

    private static final String DDB_REPOST = "https://repost.aws/knowledge-center/dynamodb-high-latency";
    private static final String DDB_BLOG =
            "https://aws.amazon.com/blogs/database/understanding-amazon-dynamodb-latency/";
    private static final String S3_WHITEPAPER = "https://docs.aws.amazon.com/whitepapers/latest/"
            + "s3-optimizing-performance-best-practices/timeouts-and-retries-for-latency-sensitive-applications.html";
    private static final String S3_BENCHMARK = "https://github.com/dvassallo/s3-benchmark";
    private static final String SQS_FAQ = "https://aws.amazon.com/sqs/faqs/";
    private static final String KDS_LOW_LATENCY =
            "https://docs.aws.amazon.com/streams/latest/dev/kinesis-low-latency.html";

    /**
     * The figures the model uses (load-tests/README.md lists them with their sources). Operations not
     * listed (control-plane calls, ListShards, DescribeTable, HeadObject's neighbours) are not
     * delayed.
     */
    public static final List<Figure> PUBLISHED = List.of(
            new Figure(
                    "DYNAMODB",
                    "GetItem",
                    4,
                    12,
                    Basis.TYPICAL_VALUE,
                    "GetItem and PutItem: average latency in single-digit milliseconds; p99 assumed 3 × p50",
                    DDB_REPOST),
            new Figure(
                    "DYNAMODB",
                    "PutItem",
                    6,
                    18,
                    Basis.TYPICAL_VALUE,
                    "single-digit milliseconds; a conditional write replicates to a quorum before it answers;"
                            + " p99 assumed 3 × p50",
                    DDB_REPOST),
            new Figure(
                    "DYNAMODB",
                    "UpdateItem",
                    6,
                    18,
                    Basis.TYPICAL_VALUE,
                    "as PutItem (single-digit milliseconds; p99 assumed 3 × p50)",
                    DDB_BLOG),
            new Figure(
                    "DYNAMODB",
                    "BatchWriteItem",
                    15,
                    50,
                    Basis.ASSUMED,
                    "non-atomic operations depend on the items written (no figure given); assumed",
                    DDB_REPOST),
            new Figure(
                    "DYNAMODB",
                    "Query",
                    8,
                    25,
                    Basis.ASSUMED,
                    "depends on the result set (no figure given); assumed 2 × GetItem",
                    DDB_REPOST),
            new Figure(
                    "DYNAMODB",
                    "Scan",
                    15,
                    60,
                    Basis.ASSUMED,
                    "depends on the result set (no figure given); assumed",
                    DDB_REPOST),
            new Figure(
                    "S3",
                    "PutObject",
                    30,
                    150,
                    Basis.TYPICAL_VALUE,
                    "small requests (< 512 KB): median latencies often in the tens of milliseconds (retry after"
                            + " 2 s); p99 assumed 5 × p50",
                    S3_WHITEPAPER),
            new Figure(
                    "S3",
                    "GetObject",
                    12,
                    30,
                    Basis.PUBLISHED_PERCENTILE,
                    "time to first byte p90 typically about 20 ms from EC2; p50 assumed 12 ms, p99 extrapolated"
                            + " from the two",
                    S3_BENCHMARK),
            new Figure(
                    "S3", "HeadObject", 12, 30, Basis.PUBLISHED_PERCENTILE, "as GetObject's first byte", S3_BENCHMARK),
            new Figure(
                    "SQS",
                    "SendMessage",
                    20,
                    100,
                    Basis.TYPICAL_VALUE,
                    "SendMessage, ReceiveMessage, DeleteMessage: typically tens or low hundreds of milliseconds",
                    SQS_FAQ),
            new Figure(
                    "SQS",
                    "SendMessageBatch",
                    25,
                    120,
                    Basis.TYPICAL_VALUE,
                    "as SendMessage, up to ten messages",
                    SQS_FAQ),
            new Figure(
                    "KINESIS",
                    "PutRecords",
                    25,
                    100,
                    Basis.ASSUMED,
                    "no published latency found; records are readable at once after the put (propagation"
                            + " delay typically below 1 s with 1 s polling); assumed",
                    KDS_LOW_LATENCY),
            new Figure(
                    "KINESIS",
                    "PutRecord",
                    15,
                    60,
                    Basis.ASSUMED,
                    "as PutRecords, one record; assumed",
                    KDS_LOW_LATENCY),
            new Figure(
                    "KINESIS",
                    "GetRecords",
                    15,
                    60,
                    Basis.ASSUMED,
                    "no published latency found; at most 5 calls per shard per second (one every 200 ms);" + " assumed",
                    KDS_LOW_LATENCY),
            new Figure(
                    "KINESIS",
                    "GetShardIterator",
                    8,
                    30,
                    Basis.ASSUMED,
                    "no published latency found; assumed",
                    KDS_LOW_LATENCY));

    private final long seed;
    private final Map<String, Figure> figures = new LinkedHashMap<>();
    private final Map<String, SplittableRandom> generators = new LinkedHashMap<>();
    private final Map<String, java.util.concurrent.atomic.LongAdder> drawn =
            new java.util.concurrent.ConcurrentHashMap<>();

    /** The published figures, seeded. */
    public AwsLatencyModel(long seed) {
        this(seed, PUBLISHED);
    }

    public AwsLatencyModel(long seed, List<Figure> figures) {
        this.seed = seed;
        for (Figure f : figures) {
            String key = key(f.service(), f.operation());
            if (this.figures.put(key, f) != null) {
                throw new IllegalArgumentException("two figures for " + key);
            }
            generators.put(key, new SplittableRandom(seed ^ mix(key)));
        }
    }

    public long seed() {
        return seed;
    }

    public List<Figure> figures() {
        return List.copyOf(figures.values());
    }

    /** The figure of an operation, or null when the model leaves it alone. */
    public Figure figure(String service, String operation) {
        return figures.get(key(service, operation));
    }

    /** The next latency of an operation, in milliseconds (0 for an operation the model leaves alone). */
    public double nextMillis(String service, String operation) {
        String key = key(service, operation);
        Figure f = figures.get(key);
        if (f == null) {
            return 0;
        }
        SplittableRandom random = generators.get(key);
        drawn.computeIfAbsent(key, k -> new java.util.concurrent.atomic.LongAdder())
                .increment();
        double z;
        synchronized (random) {
            z = random.nextGaussian();
        }
        return f.quantileAt(z);
    }

    /**
     * How many calls each operation delayed so far ({@code "KINESIS GetRecords"} → calls), whichever
     * process made them: the gates ask the model for every call of every client.
     */
    public Map<String, Long> delayedCalls() {
        Map<String, Long> calls = new java.util.TreeMap<>();
        drawn.forEach((key, count) -> calls.put(key, count.sum()));
        return calls;
    }

    /** {@link #nextMillis} in nanoseconds, for the gates. */
    public long nextNanos(String service, String operation) {
        return Math.round(nextMillis(service, operation) * 1_000_000);
    }

    private static String key(String service, String operation) {
        return service.toUpperCase(Locale.ROOT) + " " + operation;
    }

    /** A 64-bit mix of a name (SplittableRandom's own seeds are spread by a similar finaliser). */
    private static long mix(String name) {
        long h = 0x9E3779B97F4A7C15L;
        for (int i = 0; i < name.length(); i++) {
            h = (h ^ name.charAt(i)) * 0xBF58476D1CE4E5B9L;
            h ^= h >>> 31;
        }
        return h;
    }
}
