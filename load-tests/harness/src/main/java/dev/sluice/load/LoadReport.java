package dev.sluice.load;

import dev.sluice.planner.CostModel;
import dev.sluice.report.Chart;
import dev.sluice.report.Report;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/** A {@link LoadResult} as a {@link Report}: summary, charts, tables and how it was measured. */
public final class LoadReport {

    static final List<String> NOTES = List.of(
            "Latency is end to end: from the event's occurredAt, which the harness stamps just before it puts the"
                    + " record, to the moment every sink of the batch holding it was durable. That moment is the"
                    + " _aws.Timestamp of the batch's Embedded Metric Format line, which the stage's function writes"
                    + " after its sinks returned; the line names the batch's first and last sequence numbers, so each"
                    + " record produced is matched to the first batch that completed it. It includes the put, Kinesis,"
                    + " the event-source mapping's polling and batching window, the function and every sink write."
                    + " Records that no batch reports are counted as unmatched, not guessed.",
            "Throughput: produced = records sent (and acknowledged by Kinesis) in each second, by send time; completed = records whose sinks"
                    + " became durable in each second. Consumer lag = produced so far − completed so far, at the end"
                    + " of each second. Events/s in the RESULT line is events ÷ (first send → last sink write).",
            "AWS requests are counted by a global SDK ExecutionInterceptor in the JVM that runs the functions (every"
                    + " HTTP attempt, retries included), by service, operation and resource: producer = PutRecords"
                    + " into the source stream; event-source mapping = Kinesis reads and the local mapping's"
                    + " checkpoint table (Lambda's own pollers, not billed per request in AWS); function = every"
                    + " other request (sinks, lake ledger, dead-letter queue, stream sinks).",
            "Cost per million events prices the measured requests with the planner's price table"
                    + " (load-tests/planner, prices marked unverified are list prices to check). Shard-hours are priced"
                    + " at the run's own rate; Lambda duration uses the planner's assumption per batch; storage,"
                    + " CloudWatch and data transfer are left out. The baselines are priced the same way.",
            "Throttles: locally the Kinesis gate enforces AWS's per-shard quotas (1,000 records/s and 1 MiB/s"
                    + " written, 5 GetRecords calls/s and 2 MiB/s read; docs/local-limits.md) and counts every record"
                    + " and GetRecords call it refuses with ProvisionedThroughputExceededException, per wall-clock"
                    + " second, drawn at the second of the run that second begins in. The producer re-sends refused"
                    + " records after a backoff and the event-source mapping reads a throttled shard again after a"
                    + " pause, so throttles cost latency, not events.",
            "On the local stack every service is an emulator on the same machine (kinesis-mock is single-threaded"
                    + " Node.js), so absolute latencies and rates are the laptop's, not AWS's; request counts per"
                    + " event do not depend on the machine.");

    private LoadReport() {}

    public static Report of(LoadResult r, Histogram histogram, Instant endedAt) {
        Map<String, Object> summary = new LinkedHashMap<>();
        summary.put("pipeline / stage", r.pipeline() + " / " + r.stage() + " (" + r.target() + ")");
        summary.put(
                "target rate",
                r.day()
                        ? fmt(
                                "%,.0f events/s on average over one day compressed into %.0f s (daily curve: night"
                                        + " ×0.11, evening peak ×2.3)",
                                r.targetRate(), r.produceSeconds())
                        : fmt("%,.0f events/s for %.0f s", r.targetRate(), r.produceSeconds()));
        summary.put("events", fmt("%,d (%.0f bytes each on average)", r.events(), r.recordBytes()));
        summary.put("produced", fmt("%,.1f events/s", r.producedPerSecond()));
        summary.put(
                "sustained end to end", fmt("%,.1f events/s over %.1f s", r.eventsPerSecond(), r.endToEndSeconds()));
        if (r.latency() != null) {
            LoadResult.Latency l = r.latency();
            summary.put(
                    "latency occurredAt → sink write",
                    fmt("p50 %,d ms · p95 %,d ms · p99 %,d ms · max %,d ms", l.p50(), l.p95(), l.p99(), l.max()));
            summary.put("latency matched / unmatched", fmt("%,d / %,d", l.matched(), l.unmatched()));
        }
        summary.put(
                "max consumer lag",
                r.latency() == null
                        ? "not measured (no stage metrics to read)"
                        : fmt(
                                "%,d events",
                                r.seconds().stream()
                                        .mapToLong(LatencyAccounting.Second::lag)
                                        .max()
                                        .orElse(0)));
        for (StageFigures f : r.stages()) {
            LoadResult.Latency l = f.latency();
            summary.put(
                    "stage " + f.stage() + " (" + f.consumer() + ", reads " + f.input() + ")",
                    l == null
                            ? fmt("%,d records, %,d batches, no latency matched", f.records(), f.batches())
                            : fmt(
                                    "%,d records, %,d batches, %,.1f events/s; occurredAt → durable p50 %,d ms · p99"
                                            + " %,d ms · max %,d ms (%,d unmatched); max lag %,d%s",
                                    f.records(),
                                    f.batches(),
                                    f.eventsPerSecond(),
                                    l.p50(),
                                    l.p99(),
                                    l.max(),
                                    l.unmatched(),
                                    f.maxLag(),
                                    f.maxMillisBehindLatest() < 0
                                            ? ""
                                            : fmt("; MillisBehindLatest max %,d", f.maxMillisBehindLatest())));
        }
        summary.put("AWS limits (Kinesis)", limits(r.limits()));
        summary.put("invocations", fmt("%,d", r.invocations()));
        summary.put("dead-lettered (reported)", fmt("%,d", r.deadLetteredReported()));
        if (r.reconciliation() != null) {
            var c = r.reconciliation();
            summary.put(
                    "reconciliation",
                    fmt(
                            "%s: produced %,d, lake %,d, dead-lettered %,d, lost %d, duplicates %d, unexpected %d",
                            r.reconciled() ? "OK" : "FAILED",
                            c.produced(),
                            c.lake(),
                            c.deadLettered(),
                            c.lost(),
                            c.duplicates(),
                            c.unexpected()));
        } else {
            summary.put("reconciliation", "not run");
        }
        for (CostModel.Breakdown b : r.costs()) {
            summary.put("USD per million events: " + b.design(), fmt("%.4f", b.usdPerMillion()));
        }
        List<Chart> charts = new ArrayList<>();
        List<Double> x = r.seconds().stream().map(s -> (double) s.second()).toList();
        charts.add(Chart.line(
                "throughput",
                "Throughput over time",
                "seconds since the start",
                "events per second",
                List.of(
                        new Chart.Series(
                                "produced",
                                x,
                                r.seconds().stream()
                                        .map(s -> (double) s.produced())
                                        .toList()),
                        new Chart.Series(
                                "completed",
                                x,
                                r.seconds().stream()
                                        .map(s -> (double) s.completed())
                                        .toList()),
                        new Chart.Series(
                                "consumer lag (events)",
                                x,
                                r.seconds().stream().map(s -> (double) s.lag()).toList()))));
        List<LatencyAccounting.Second> withLatency =
                r.seconds().stream().filter(s -> s.completed() > 0).toList();
        List<Double> lx = withLatency.stream().map(s -> (double) s.second()).toList();
        charts.add(Chart.line(
                "latency-over-time",
                "Latency percentiles over time",
                "seconds since the start (second of the sink write)",
                "milliseconds",
                List.of(
                        new Chart.Series(
                                "p50",
                                lx,
                                withLatency.stream()
                                        .map(LatencyAccounting.Second::p50Ms)
                                        .toList()),
                        new Chart.Series(
                                "p95",
                                lx,
                                withLatency.stream()
                                        .map(LatencyAccounting.Second::p95Ms)
                                        .toList()),
                        new Chart.Series(
                                "p99",
                                lx,
                                withLatency.stream()
                                        .map(LatencyAccounting.Second::p99Ms)
                                        .toList()),
                        new Chart.Series(
                                "max",
                                lx,
                                withLatency.stream()
                                        .map(LatencyAccounting.Second::maxMs)
                                        .toList()))));
        if (r.limits() != null && r.limits().enforced()) {
            charts.add(throttles(r.limits()));
        }
        charts.add(distribution(histogram));
        charts.add(requestsChart(r));
        charts.add(Chart.bars(
                "cost",
                "Cost per million events",
                "USD per million events",
                r.costs().stream().map(CostModel.Breakdown::design).toList(),
                List.of(Chart.Series.bars(
                        "USD",
                        r.costs().stream()
                                .map(CostModel.Breakdown::usdPerMillion)
                                .toList()))));

        List<Report.Table> tables = new ArrayList<>();
        List<List<String>> costRows = new ArrayList<>();
        for (CostModel.Breakdown b : r.costs()) {
            for (CostModel.Line line : b.lines()) {
                costRows.add(List.of(
                        b.design(),
                        line.service() + ": " + line.item(),
                        fmt("%,.2f %s", line.quantityPerMillion(), line.unit()),
                        fmt("%.4f", line.usdPerMillion())));
            }
            costRows.add(List.of(b.design(), "total", "", fmt("%.4f", b.usdPerMillion())));
        }
        tables.add(new Report.Table(
                "Cost per million events, line by line",
                List.of("design", "line", "quantity per million events", "USD"),
                costRows,
                String.join(
                        "; ",
                        r.costs().stream()
                                .map(b -> b.design() + ": " + b.note())
                                .toList())));
        tables.add(new Report.Table(
                "AWS requests by operation",
                List.of("role", "service", "operation", "resource", "requests", "entries", "per 1,000 events"),
                r.requests().stream()
                        .map(q -> List.of(
                                q.role(),
                                q.service(),
                                q.operation(),
                                q.resource(),
                                fmt("%,d", q.requests()),
                                fmt("%,d", q.entries()),
                                fmt("%.1f", q.perThousandEvents())))
                        .toList(),
                "entries: records of a PutRecords, items of a batch write, messages of a batch send; 1 for a"
                        + " single-item request"));
        if (r.reconciliation() != null && !r.reconciliation().problems().isEmpty()) {
            tables.add(new Report.Table(
                    "Reconciliation problems",
                    List.of("problem"),
                    r.reconciliation().problems().stream().map(List::of).toList(),
                    ""));
        }
        return new Report(
                "load",
                fmt(
                        "Load: %s at %,.0f events/s for %.0f s (%s)",
                        r.pipeline(), r.targetRate(), r.produceSeconds(), r.target()),
                endedAt.toString(),
                Report.thisMachine(),
                summary,
                charts,
                tables,
                NOTES,
                r);
    }

    private static String limits(LoadResult.Limits limits) {
        if (limits == null) {
            return "not recorded";
        }
        return switch (limits.mode()) {
            case "enforced" ->
                fmt(
                        "enforced: %,d records and %,d GetRecords calls throttled"
                                + " (ProvisionedThroughputExceededException)",
                        limits.throttledRecords(), limits.throttledReads());
            case "off" -> "off (--limits off or SLUICE_LIMITS=off)";
            default -> "AWS's own (throttles not counted on a deployed stack)";
        };
    }

    /** Kinesis throttles per second of the run, as the local gate refused them. */
    static Chart throttles(LoadResult.Limits limits) {
        List<Double> x = limits.seconds().stream().map(s -> (double) s.second()).toList();
        return Chart.line(
                "throttles",
                "Kinesis throttles over time",
                "seconds since the start",
                "throttled per second",
                List.of(
                        new Chart.Series(
                                "records refused (PutRecord/PutRecords entries)",
                                x,
                                limits.seconds().stream()
                                        .map(s -> (double) s.records())
                                        .toList()),
                        new Chart.Series(
                                "GetRecords calls refused",
                                x,
                                limits.seconds().stream()
                                        .map(s -> (double) s.reads())
                                        .toList())));
    }

    /** Records per latency bucket: about 40 buckets from 0 to the maximum. */
    static Chart distribution(Histogram histogram) {
        List<Double> x = new ArrayList<>();
        List<Double> y = new ArrayList<>();
        if (histogram.getTotalCount() > 0) {
            long max = Math.max(1, histogram.getMaxValue());
            long width = Math.max(1, (long) Math.ceil(max / 40.0));
            for (long from = 0; from <= max; from += width) {
                x.add((double) from + width / 2.0);
                y.add((double) histogram.getCountBetweenValues(from, from + width - 1));
            }
        }
        return Chart.line(
                "latency-distribution",
                "Latency distribution",
                "milliseconds, occurredAt → sink write",
                "records",
                List.of(new Chart.Series("records", x, y)));
    }

    private static Chart requestsChart(LoadResult r) {
        Map<String, Double> perService = new TreeMap<>();
        for (LoadResult.Request q : r.requests()) {
            perService.merge(q.role() + " · " + q.service(), q.perThousandEvents(), Double::sum);
        }
        List<String> categories = new ArrayList<>(perService.keySet());
        return Chart.bars(
                "requests",
                "AWS requests per 1,000 events",
                "requests per 1,000 events",
                categories,
                List.of(Chart.Series.bars(
                        "measured", categories.stream().map(perService::get).toList())));
    }

    private static String fmt(String format, Object... args) {
        return String.format(Locale.ROOT, format, args);
    }
}
