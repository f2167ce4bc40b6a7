package dev.sluice.planner;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.PriorityQueue;

/**
 * A stage's batch duration in AWS, modelled: the batch's recorded call graph ({@link Graph}: phases
 * one after the other, lanes of a phase concurrently, a lane's calls one after the other) with each
 * call's latency drawn from {@link AwsLatencyModel}'s log-normal of its operation, plus the batch's
 * CPU time scaled to the function's vCPU share; Monte Carlo over many batches for the p50 and p99.
 * And the per-shard ceiling those durations allow ({@link #lambdaCeiling}, {@link #kclCeiling}),
 * capped by Kinesis's read limits. Method, assumptions and limits: load-tests/README.md, "Modelled
 * AWS ceiling".
 */
public final class AwsBatchModel {

    /** Lambda allocates CPU in proportion to memory: 1,769 MB has the equivalent of one vCPU (AWS Lambda docs). */
    public static final double MB_PER_VCPU = 1_769;

    /** GetRecords: 5 calls a second per shard, shared by every polling consumer (Kinesis quotas). */
    public static final double GET_RECORDS_PER_SECOND_PER_SHARD = 5;
    /** GetRecords returns at most 10,000 records per call. */
    public static final int GET_RECORDS_MAX_RECORDS = 10_000;
    /** Read throughput: 2 MiB/s per shard, shared by polling consumers; per consumer with enhanced fan-out. */
    public static final double READ_BYTES_PER_SECOND_PER_SHARD = 2 * 1024 * 1024;

    /** Issue 29's goal a shard for a Lambda stage: a shard at its write limit, 1,000 records/s. */
    public static final double LAMBDA_GOAL_PER_SHARD = 1_000;
    /** Issue 29's goal a shard for a KCL stage: a shard's 2 MiB/s out. */
    public static final double KCL_GOAL_PER_SHARD = 2_000;

    private AwsBatchModel() {}

    /** The goal a shard for a stage of this consumer ({@code lambda} or {@code kcl}). */
    public static double goalPerShard(String consumer) {
        return "kcl".equalsIgnoreCase(consumer) ? KCL_GOAL_PER_SHARD : LAMBDA_GOAL_PER_SHARD;
    }

    /**
     * A batch's calls.
     *
     * @param phases in order; each a list of lanes; each lane its calls as {@code "SERVICE Operation"}
     * @param poolSize threads a phase's lanes share (a lane waits for a free thread); 0: one per lane
     */
    public record Graph(List<List<List<String>>> phases, int poolSize) {
        public Graph {
            phases = List.copyOf(phases);
            if (poolSize < 0) {
                throw new IllegalArgumentException("poolSize must be ≥ 0, got " + poolSize);
            }
        }
    }

    /**
     * Modelled batch durations, milliseconds.
     *
     * @param cpuMillis the batch's CPU time at the function's vCPU share (in every sample)
     * @param awsP50Millis the AWS calls' part alone, median
     */
    public record Durations(
            double p50Millis,
            double p99Millis,
            double meanMillis,
            double cpuMillis,
            double awsP50Millis,
            int samples) {}

    /** The function's vCPU share at {@code memoryMb} (1,024 MB ≈ 0.58), at most 6 vCPUs. */
    public static double vcpuShare(int memoryMb) {
        return Math.min(6, memoryMb / MB_PER_VCPU);
    }

    /** The batch's CPU time in the function: measured CPU µs an event × events ÷ the vCPU share. */
    public static double cpuMillis(double cpuMicrosPerEvent, int events, int memoryMb) {
        return cpuMicrosPerEvent * events / 1000 / vcpuShare(memoryMb);
    }

    /**
     * {@code samples} batches: each the CPU time (not overlapped with the calls: an upper bound) plus
     * each phase's makespan, the phase's lanes (a lane: the sum of its calls' draws) taken in order by
     * the first free of {@code min(poolSize, lanes)} threads.
     */
    public static Durations simulate(Graph graph, double cpuMillis, AwsLatencyModel latencies, int samples) {
        if (samples < 1) {
            throw new IllegalArgumentException("samples must be ≥ 1");
        }
        double[] total = new double[samples];
        double[] aws = new double[samples];
        for (int s = 0; s < samples; s++) {
            double batch = 0;
            for (List<List<String>> phase : graph.phases()) {
                batch += makespan(phase, graph.poolSize(), latencies);
            }
            aws[s] = batch;
            total[s] = batch + cpuMillis;
        }
        double mean = Arrays.stream(total).average().orElse(Double.NaN);
        Arrays.sort(total);
        Arrays.sort(aws);
        return new Durations(
                quantile(total, 0.50), quantile(total, 0.99), mean, cpuMillis, quantile(aws, 0.50), samples);
    }

    static double makespan(List<List<String>> lanes, int poolSize, AwsLatencyModel latencies) {
        if (lanes.isEmpty()) {
            return 0;
        }
        int threads = poolSize == 0 ? lanes.size() : Math.min(poolSize, lanes.size());
        PriorityQueue<Double> free = new PriorityQueue<>();
        for (int i = 0; i < threads; i++) {
            free.add(0.0);
        }
        double end = 0;
        for (List<String> lane : lanes) {
            double start = free.poll();
            double t = start;
            for (String call : lane) {
                int space = call.indexOf(' ');
                t += latencies.nextMillis(call.substring(0, space), call.substring(space + 1));
            }
            free.add(t);
            end = Math.max(end, t);
        }
        return end;
    }

    /** The q-quantile of sorted values (nearest rank). */
    static double quantile(double[] sorted, double q) {
        int rank = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank))];
    }

    /**
     * A per-shard ceiling and what binds it.
     *
     * @param byProcessing events a second the consumer's batches allow
     * @param byReadBytes the shard's read throughput for this consumer ÷ bytes a record
     * @param byGetRecords GetRecords calls a second for this consumer × records a call
     * @param perShard the least of the three
     * @param binding {@code processing}, {@code read-bytes} or {@code get-records}
     */
    public record Ceiling(
            double byProcessing, double byReadBytes, double byGetRecords, double perShard, String binding) {
        static Ceiling of(double processing, double bytes, double calls) {
            double min = Math.min(processing, Math.min(bytes, calls));
            String binding = min == processing ? "processing" : min == bytes ? "read-bytes" : "get-records";
            return new Ceiling(processing, bytes, calls, min, binding);
        }

        public String line() {
            return String.format(
                    Locale.ROOT,
                    "%,.0f events/s a shard (%s binds; processing %,.0f, read bytes %,.0f, GetRecords %,.0f)",
                    perShard,
                    binding,
                    byProcessing,
                    byReadBytes,
                    byGetRecords);
        }
    }

    /**
     * A Lambda stage (event-source mapping): when the shard is busy the mapping polls again as soon as
     * a batch returns, so each of the PF concurrent batches of a shard takes {@code batchMillis +
     * pollGapMillis}: {@code batchSize × PF ÷ (batch + gap)}. One GetRecords a round feeds the PF
     * batches (up to 10,000 records); polling consumers of the shard share its 5 calls and 2 MiB a
     * second; with enhanced fan-out the 2 MiB/s are the consumer's own and GetRecords is not used.
     */
    public static Ceiling lambdaCeiling(
            int batchSize,
            int parallelization,
            double batchMillis,
            double pollGapMillis,
            double recordBytes,
            int pollingConsumers,
            boolean enhancedFanOut) {
        double processing = batchSize * (double) parallelization / ((batchMillis + pollGapMillis) / 1000);
        int sharing = enhancedFanOut ? 1 : Math.max(1, pollingConsumers);
        double bytes = READ_BYTES_PER_SECOND_PER_SHARD / sharing / recordBytes;
        double calls = enhancedFanOut
                ? Double.POSITIVE_INFINITY
                : GET_RECORDS_PER_SECOND_PER_SHARD
                        / sharing
                        * Math.min(GET_RECORDS_MAX_RECORDS, batchSize * (double) parallelization);
        return Ceiling.of(processing, bytes, calls);
    }

    /**
     * A KCL stage (polling): the record processor handles one batch of up to {@code maxRecords} at a
     * time per shard while the prefetcher fetches the next; the fetcher calls GetRecords at most once
     * every {@code idleBetweenReadsMillis} (KCL's {@code idleTimeBetweenReadsInMillis}, Sluice's
     * default 1 s), each returning up to {@code maxRecords}.
     */
    public static Ceiling kclCeiling(
            int maxRecords,
            double batchMillis,
            double idleBetweenReadsMillis,
            double getRecordsMillis,
            double recordBytes,
            int pollingConsumers) {
        double processing = maxRecords / (batchMillis / 1000);
        int sharing = Math.max(1, pollingConsumers);
        double bytes = READ_BYTES_PER_SECOND_PER_SHARD / sharing / recordBytes;
        double perSecond = Math.min(
                GET_RECORDS_PER_SECOND_PER_SHARD / sharing, 1000 / Math.max(idleBetweenReadsMillis, getRecordsMillis));
        double calls = perSecond * Math.min(GET_RECORDS_MAX_RECORDS, maxRecords);
        return Ceiling.of(processing, bytes, calls);
    }
}
