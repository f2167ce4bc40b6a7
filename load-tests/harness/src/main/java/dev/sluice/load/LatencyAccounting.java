package dev.sluice.load;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * Turns what the producer sent and what the stage reported into throughput, latency and consumer
 * lag over time.
 *
 * <p>Latency of a record = the {@link EmfBatch#timestampMillis()} of the first batch that covered
 * it and completed it (all its sinks durable) − the record's {@code occurredAt}, which the harness
 * stamps just before it sends the record. It therefore includes the producer's put, Kinesis, the
 * event-source mapping's polling and batching window, the function and every sink write. A record
 * that no batch reports (an old function, a lost metrics line) is counted as unmatched, never
 * guessed.
 */
public final class LatencyAccounting {

    /** Latencies up to an hour at 3 significant digits. */
    static final long HIGHEST_MS = 3_600_000;

    /**
     * One record the producer got acknowledged.
     *
     * @param occurredAtMillis the event time it carries (= when it was sent)
     * @param ackedAtMillis when Kinesis acknowledged its put
     */
    public record Sent(String shardId, String sequenceNumber, long occurredAtMillis, long ackedAtMillis) {}

    /**
     * One second of the run (second 0 starts at the run's start).
     *
     * @param produced records sent during this second (and acknowledged by Kinesis)
     * @param completed records whose sinks became durable during this second
     * @param lag records produced but not yet completed at the end of this second (consumer lag)
     * @param p50Ms latency percentiles of the records completed in this second (0 when none)
     */
    public record Second(
            int second,
            long produced,
            long completed,
            long lag,
            double p50Ms,
            double p95Ms,
            double p99Ms,
            double maxMs) {}

    /**
     * The accounting.
     *
     * @param histogram latencies of every matched record, in milliseconds
     * @param matched records with a latency
     * @param unmatched records no completed batch reported
     * @param seconds per-second figures
     */
    public record Result(Histogram histogram, long matched, long unmatched, List<Second> seconds) {}

    private LatencyAccounting() {}

    public static Result account(List<Sent> sent, List<EmfBatch> batches, long startMillis) {
        Map<String, List<Entry>> byShard = new HashMap<>();
        for (Sent s : sent) {
            byShard.computeIfAbsent(s.shardId(), k -> new ArrayList<>()).add(new Entry(s));
        }
        byShard.values().forEach(list -> list.sort(Comparator.comparing(e -> e.sequence)));
        List<EmfBatch> ordered = new ArrayList<>(batches);
        ordered.sort(Comparator.comparingLong(EmfBatch::timestampMillis));

        Histogram all = new Histogram(HIGHEST_MS, 3);
        Map<Integer, Histogram> perSecond = new HashMap<>();
        Map<Integer, Long> completedPerSecond = new HashMap<>();
        long matched = 0;
        for (EmfBatch batch : ordered) {
            List<Entry> shard = byShard.get(batch.shardId());
            if (shard == null || batch.firstSequenceNumber() == null) {
                continue;
            }
            BigInteger first = new BigInteger(batch.firstSequenceNumber());
            BigInteger last = new BigInteger(batch.lastSequenceNumber());
            BigInteger failedFrom =
                    batch.failedFromSequenceNumber() == null ? null : new BigInteger(batch.failedFromSequenceNumber());
            int i = lowerBound(shard, first);
            for (; i < shard.size(); i++) {
                Entry e = shard.get(i);
                if (e.sequence.compareTo(last) > 0 || (failedFrom != null && e.sequence.compareTo(failedFrom) >= 0)) {
                    break;
                }
                if (e.done) {
                    continue;
                }
                e.done = true;
                matched++;
                long latency = Math.max(0, Math.min(HIGHEST_MS, batch.timestampMillis() - e.sent.occurredAtMillis()));
                all.recordValue(latency);
                int second = second(batch.timestampMillis(), startMillis);
                perSecond
                        .computeIfAbsent(second, k -> new Histogram(HIGHEST_MS, 3))
                        .recordValue(latency);
                completedPerSecond.merge(second, 1L, Long::sum);
            }
        }
        Map<Integer, Long> producedPerSecond = new HashMap<>();
        for (Sent s : sent) {
            // by send time: a record cannot become durable before it was sent, so the lag never goes
            // below zero (one put's acknowledgement may come after its first records were consumed)
            producedPerSecond.merge(second(s.occurredAtMillis(), startMillis), 1L, Long::sum);
        }
        int lastSecond = 0;
        for (int s : producedPerSecond.keySet()) {
            lastSecond = Math.max(lastSecond, s);
        }
        for (int s : completedPerSecond.keySet()) {
            lastSecond = Math.max(lastSecond, s);
        }
        List<Second> seconds = new ArrayList<>();
        long producedSoFar = 0;
        long completedSoFar = 0;
        for (int s = 0; s <= lastSecond && !sent.isEmpty(); s++) {
            long produced = producedPerSecond.getOrDefault(s, 0L);
            long completed = completedPerSecond.getOrDefault(s, 0L);
            producedSoFar += produced;
            completedSoFar += completed;
            Histogram h = perSecond.get(s);
            seconds.add(new Second(
                    s,
                    produced,
                    completed,
                    producedSoFar - completedSoFar,
                    h == null ? 0 : h.getValueAtPercentile(50),
                    h == null ? 0 : h.getValueAtPercentile(95),
                    h == null ? 0 : h.getValueAtPercentile(99),
                    h == null ? 0 : h.getMaxValue()));
        }
        return new Result(all, matched, sent.size() - matched, seconds);
    }

    private static int second(long millis, long startMillis) {
        return (int) Math.max(0, (millis - startMillis) / 1000);
    }

    private static int lowerBound(List<Entry> shard, BigInteger sequence) {
        int lo = 0;
        int hi = shard.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (shard.get(mid).sequence.compareTo(sequence) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    private static final class Entry {
        final Sent sent;
        final BigInteger sequence;
        boolean done;

        Entry(Sent sent) {
            this.sent = sent;
            this.sequence = new BigInteger(sent.sequenceNumber());
        }
    }
}
