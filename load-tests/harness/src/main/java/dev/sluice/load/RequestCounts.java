package dev.sluice.load;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * AWS SDK requests counted by service, operation and resource (stream, table, bucket or queue):
 * every HTTP attempt, retries included, and the entries the request carried (records of a
 * PutRecords, items of a BatchWriteItem, messages of a SendMessageBatch; 1 for a single-item call).
 */
public final class RequestCounts {

    private final Map<Key, LongAdder[]> counts = new ConcurrentHashMap<>();

    /** One counted request. */
    public void record(String service, String operation, String resource, long entries) {
        LongAdder[] adders = counts.computeIfAbsent(new Key(service, operation, resource == null ? "" : resource), k ->
                new LongAdder[] {new LongAdder(), new LongAdder()});
        adders[0].increment();
        adders[1].add(entries);
    }

    /** What was counted, by service, operation and resource. */
    public List<Row> rows() {
        List<Row> rows = new ArrayList<>();
        counts.forEach((k, v) -> rows.add(new Row(k.service, k.operation, k.resource, v[0].sum(), v[1].sum())));
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
    public record Row(String service, String operation, String resource, long requests, long entries) {}
}
