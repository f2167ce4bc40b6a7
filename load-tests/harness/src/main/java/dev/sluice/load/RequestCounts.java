package dev.sluice.load;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.ConcurrentHistogram;

/**
 * AWS SDK requests counted by service, operation and resource (stream, table, bucket or queue):
 * every HTTP attempt, retries included, and the entries the request carried (records of a
 * PutRecords, items of a BatchWriteItem, messages of a SendMessageBatch; 1 for a single-item call),
 * and how long the attempts took as their callers saw them.
 */
public final class RequestCounts {

    /** The longest attempt a histogram holds, in microseconds (longer ones count as this long). */
    static final long LONGEST_MICROS = 600_000_000L;

    private final Map<Key, LongAdder[]> counts = new ConcurrentHashMap<>();
    private final Map<Key, ConcurrentHistogram> times = new ConcurrentHashMap<>();

    /** One counted request. */
    public void record(String service, String operation, String resource, long entries) {
        LongAdder[] adders = counts.computeIfAbsent(
                key(service, operation, resource), k -> new LongAdder[] {new LongAdder(), new LongAdder()});
        adders[0].increment();
        adders[1].add(entries);
    }

    /**
     * How long one attempt took as its caller saw it, from the request's transmission to the
     * response's headers, in nanoseconds.
     */
    public void time(String service, String operation, String resource, long nanos) {
        times.computeIfAbsent(key(service, operation, resource), k -> new ConcurrentHistogram(LONGEST_MICROS, 2))
                .recordValue(Math.max(0, Math.min(LONGEST_MICROS, nanos / 1_000)));
    }

    private static Key key(String service, String operation, String resource) {
        return new Key(service, operation, resource == null ? "" : resource);
    }

    /** What was counted, by service, operation and resource. */
    public List<Row> rows() {
        List<Row> rows = new ArrayList<>();
        counts.forEach((k, v) -> {
            ConcurrentHistogram h = times.get(k);
            Timing timing = h == null || h.getTotalCount() == 0
                    ? null
                    : new Timing(
                            h.getTotalCount(),
                            h.getMean() / 1000.0,
                            h.getValueAtPercentile(50) / 1000.0,
                            h.getValueAtPercentile(99) / 1000.0,
                            h.getMean() * h.getTotalCount() / 1e6);
            rows.add(new Row(k.service, k.operation, k.resource, v[0].sum(), v[1].sum(), timing));
        });
        rows.sort(
                Comparator.comparing(Row::service).thenComparing(Row::operation).thenComparing(Row::resource));
        return rows;
    }

    private record Key(String service, String operation, String resource) {}

    /**
     * Requests of one operation on one resource.
     *
     * @param requests HTTP requests (attempts)
     * @param entries records, items or messages they carried
     */
    public record Row(String service, String operation, String resource, long requests, long entries, Timing timing) {
        /** Without timings. */
        public Row(String service, String operation, String resource, long requests, long entries) {
            this(service, operation, resource, requests, entries, null);
        }
    }

    /**
     * How long the timed attempts of one operation on one resource took, as their callers saw them
     * (transmission to response headers: the network, the local stack's gate and emulator, and the
     * modelled latency when there is one).
     *
     * @param attempts attempts timed
     * @param meanMillis their mean
     * @param p50Millis their median
     * @param p99Millis their 99th percentile
     * @param totalSeconds their sum
     */
    public record Timing(long attempts, double meanMillis, double p50Millis, double p99Millis, double totalSeconds) {}
}
