package dev.sluice.load;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What one shard of a stage can consume, from what the run measured: the stage's duration per batch
 * (Lambda: the local runtime's timing of each handler run; KCL: the interval between a shard's
 * consecutive batches), the per-shard consumer ceiling that follows, and whether a shard written at
 * Kinesis's limit — 1,000 records/s, or 1 MiB/s at the run's record size — is consumed in real time.
 * With {@code --aws-latency} every AWS call of the batch paid a modelled AWS latency, so these are the
 * figures to plan AWS capacity with; without it they are the emulators'.
 *
 * <p>Lambda: ceiling = batch size × parallelization factor ÷ (duration of a full batch + {@link
 * #POLL_INTERVAL_MS}), the duration of a full batch estimated by a least-squares line through the
 * measured (records, duration) pairs (the median duration when the batches were all the same size).
 * KCL: ceiling = records per GetRecords (min(10,000, batch size)) ÷ the median interval between a
 * shard's consecutive batches, which holds the worker's GetRecords call, its processing and its idle
 * time between reads.
 *
 * @param stage the stage
 * @param consumer {@code lambda} or {@code kcl}
 * @param batchSize records per batch at most (Lambda's batch size; KCL's records per GetRecords)
 * @param parallelizationFactor concurrent batches per shard (Lambda; 1 for KCL)
 * @param batches batches measured
 * @param recordsPerBatch their mean size
 * @param durationP50Ms median duration per batch (Lambda) or interval between batches (KCL)
 * @param durationP99Ms 99th percentile of the same
 * @param durationMeanMs mean of the same (what Lambda bills per invocation, on average)
 * @param fullBatchMs the duration estimated for a full batch (Lambda), the median interval (KCL)
 * @param durationBasis how the duration was measured
 * @param pollIntervalMs added per batch to the duration for the ceiling (Lambda), 0 for KCL (its
 *     interval holds it)
 * @param ceilingPerShard events a second one shard can be consumed at
 * @param recordBytes the run's average event size
 * @param requiredPerShard events a shard written at Kinesis's limit carries: min(1,000 × events per
 *     Kinesis record, 1 MiB ÷ event
 *     size) a second
 * @param requiredBasis which of the two limits that is
 * @param realTime whether the ceiling reaches it
 * @param margin ceiling ÷ required
 * @param gbSecondsPerMillion Lambda GB-seconds per million events from the measured mean duration
 *     and batch size (0 for KCL, and until {@link #priced} is called)
 * @param durationUsdPerMillion those GB-seconds at the price table's arm64 price
 */
public record StageCapacity(
        String stage,
        String consumer,
        int batchSize,
        int parallelizationFactor,
        long batches,
        double recordsPerBatch,
        double durationP50Ms,
        double durationP99Ms,
        double durationMeanMs,
        double fullBatchMs,
        String durationBasis,
        double pollIntervalMs,
        double ceilingPerShard,
        double recordBytes,
        double requiredPerShard,
        String requiredBasis,
        boolean realTime,
        double margin,
        double gbSecondsPerMillion,
        double durationUsdPerMillion) {

    /**
     * This Lambda stage's billed duration per million events: (1,000,000 ÷ mean records per batch)
     * invocations × mean duration × memory (GB), at {@code usdPerGbSecond}; a KCL stage unchanged.
     */
    public StageCapacity priced(int memoryMb, double usdPerGbSecond) {
        if (!consumer.equals("lambda") || recordsPerBatch <= 0) {
            return this;
        }
        double gbSeconds = 1e6 / recordsPerBatch * durationMeanMs / 1000.0 * memoryMb / 1024.0;
        return new StageCapacity(
                stage,
                consumer,
                batchSize,
                parallelizationFactor,
                batches,
                recordsPerBatch,
                durationP50Ms,
                durationP99Ms,
                durationMeanMs,
                fullBatchMs,
                durationBasis,
                pollIntervalMs,
                ceilingPerShard,
                recordBytes,
                requiredPerShard,
                requiredBasis,
                realTime,
                margin,
                gbSeconds,
                gbSeconds * usdPerGbSecond);
    }

    /**
     * The fastest a single consumer reads a shard: Kinesis serves 5 GetRecords calls per shard per
     * second, one every 200 ms (the event-source mapping reads again as soon as a batch is done).
     */
    public static final double POLL_INTERVAL_MS = 200;

    /** Kinesis's write limit per shard, records. */
    public static final double SHARD_RECORDS_PER_SECOND = 1_000;

    /** Kinesis's write limit per shard, bytes. */
    public static final double SHARD_BYTES_PER_SECOND = 1024 * 1024;

    /** One measured batch: its records and how long it took, in milliseconds. */
    public record Batch(int records, double millis) {}

    /** A Lambda stage's capacity from the handler's timed invocations (null when none was timed). */
    public static StageCapacity lambda(
            String stage, int batchSize, int parallelizationFactor, List<Batch> invocations, double recordBytes) {
        return lambda(stage, batchSize, parallelizationFactor, invocations, recordBytes, 1);
    }

    /**
     * A Lambda stage's capacity from the handler's timed invocations (null when none was timed), whose
     * Kinesis records carried {@code eventsPerRecord} events each on average (KPL aggregates; 1 when
     * nothing was aggregated). The batch size and the timings count Kinesis records, as Lambda does;
     * the ceiling, the events per batch and the shard's limit are in events: a full batch carries
     * {@code batchSize × eventsPerRecord} events, and a shard takes 1,000 records/s or 1 MiB/s,
     * whichever comes first, of records that carry that many events of {@code recordBytes} each.
     *
     * @param recordBytes the run's average event size
     */
    public static StageCapacity lambda(
            String stage,
            int batchSize,
            int parallelizationFactor,
            List<Batch> invocations,
            double recordBytes,
            double eventsPerRecord) {
        if (invocations.isEmpty()) {
            return null;
        }
        double perRecord = Math.max(1, eventsPerRecord);
        double[] millis =
                invocations.stream().mapToDouble(Batch::millis).sorted().toArray();
        double full = fullBatchMillis(invocations, batchSize, percentile(millis, 50));
        double ceiling = batchSize * perRecord * parallelizationFactor / ((full + POLL_INTERVAL_MS) / 1000.0);
        List<Batch> inEvents = perRecord == 1
                ? invocations
                : invocations.stream()
                        .map(b -> new Batch((int) Math.round(b.records() * perRecord), b.millis()))
                        .toList();
        return of(
                stage,
                "lambda",
                batchSize,
                parallelizationFactor,
                inEvents,
                millis,
                full,
                "measured: the local runtime's timing of " + invocations.size() + " handler runs"
                        + (perRecord == 1
                                ? ""
                                : String.format(
                                        java.util.Locale.ROOT,
                                        ", %.1f events in each Kinesis record (KPL aggregates)",
                                        perRecord)),
                POLL_INTERVAL_MS,
                ceiling,
                recordBytes,
                perRecord);
    }

    /**
     * A KCL stage's capacity from its batches' EMF timestamps: the intervals between a shard's
     * consecutive batches (null with fewer than two batches on any shard).
     */
    public static StageCapacity kcl(String stage, int recordsPerRead, List<EmfBatch> batches, double recordBytes) {
        Map<String, List<EmfBatch>> byShard = new HashMap<>();
        for (EmfBatch b : batches) {
            byShard.computeIfAbsent(b.shardId(), s -> new ArrayList<>()).add(b);
        }
        List<Batch> intervals = new ArrayList<>();
        for (List<EmfBatch> shard : byShard.values()) {
            shard.sort(Comparator.comparingLong(EmfBatch::timestampMillis));
            for (int i = 1; i < shard.size(); i++) {
                intervals.add(new Batch(
                        (int) shard.get(i).records(),
                        shard.get(i).timestampMillis() - shard.get(i - 1).timestampMillis()));
            }
        }
        if (intervals.isEmpty()) {
            return null;
        }
        double[] millis = intervals.stream().mapToDouble(Batch::millis).sorted().toArray();
        double median = Math.max(1, percentile(millis, 50));
        return of(
                stage,
                "kcl",
                recordsPerRead,
                1,
                intervals,
                millis,
                median,
                "measured: " + intervals.size() + " intervals between a shard's consecutive batches (EMF timestamps)",
                0,
                recordsPerRead / (median / 1000.0),
                recordBytes,
                1);
    }

    private static StageCapacity of(
            String stage,
            String consumer,
            int batchSize,
            int factor,
            List<Batch> batches,
            double[] sortedMillis,
            double fullBatchMs,
            String basis,
            double poll,
            double ceiling,
            double recordBytes,
            double eventsPerRecord) {
        double byBytes = recordBytes > 0 ? SHARD_BYTES_PER_SECOND / recordBytes : Double.POSITIVE_INFINITY;
        double byRecords = SHARD_RECORDS_PER_SECOND * eventsPerRecord;
        double required = Math.min(byRecords, byBytes);
        String requiredBasis = byBytes < byRecords
                ? String.format(java.util.Locale.ROOT, "1 MiB/s at %.0f bytes an event", recordBytes)
                : eventsPerRecord == 1
                        ? "1,000 records/s"
                        : String.format(java.util.Locale.ROOT, "1,000 records/s of %.1f events each", eventsPerRecord);
        return new StageCapacity(
                stage,
                consumer,
                batchSize,
                factor,
                batches.size(),
                batches.stream().mapToInt(Batch::records).average().orElse(0),
                percentile(sortedMillis, 50),
                percentile(sortedMillis, 99),
                Arrays.stream(sortedMillis).average().orElse(0),
                fullBatchMs,
                basis,
                poll,
                ceiling,
                recordBytes,
                required,
                requiredBasis,
                ceiling >= required,
                ceiling / required,
                0,
                0);
    }

    /**
     * The duration of a batch of {@code batchSize} records: the least-squares line through the
     * measured (records, duration) pairs, evaluated there; the median when the sizes do not vary or
     * the line falls with the size (more records cannot take less time).
     */
    static double fullBatchMillis(List<Batch> batches, int batchSize, double median) {
        int n = batches.size();
        double meanX = batches.stream().mapToDouble(Batch::records).average().orElse(0);
        double meanY = batches.stream().mapToDouble(Batch::millis).average().orElse(0);
        double sxx = 0;
        double sxy = 0;
        for (Batch b : batches) {
            sxx += (b.records() - meanX) * (b.records() - meanX);
            sxy += (b.records() - meanX) * (b.millis() - meanY);
        }
        if (n < 2 || sxx == 0 || sxy <= 0) {
            return median;
        }
        double slope = sxy / sxx;
        return Math.max(median, meanY + slope * (batchSize - meanX));
    }

    /** The nearest-rank percentile of sorted values. */
    static double percentile(double[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
    }
}
