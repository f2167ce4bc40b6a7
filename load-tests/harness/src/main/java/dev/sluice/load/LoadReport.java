package dev.sluice.load;

import dev.sluice.planner.CostModel;
import dev.sluice.planner.ModelledStages;
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
                    + " at the run's own rate; Lambda duration is the mean measured per batch (the local runtime's"
                    + " timing of each handler run) when the stage's function was timed, else the planner's"
                    + " assumption of 200 ms (the cost table's note says which); storage, CloudWatch and data"
                    + " transfer are left out. The baselines are priced the same way.",
            "Capacity per stage: Lambda's duration per batch is each handler run as the local runtime timed"
                    + " it; the per-shard consumer ceiling is batch size × parallelization factor ÷ (the duration"
                    + " of a full batch, estimated by a least-squares line through (records, duration), + 200 ms,"
                    + " the fastest Kinesis serves one reader of a shard: 5 GetRecords calls a second). For a KCL"
                    + " stage the duration is the interval between a shard's consecutive batches (EMF timestamps,"
                    + " its GetRecords call, processing and idle time between reads together) and the ceiling"
                    + " records per GetRecords ÷ its median. Real time means the ceiling reaches what a shard"
                    + " written at Kinesis's limit carries: min(1,000 records/s, 1 MiB/s ÷ the record size). With"
                    + " --aws-latency every call to the local services paid a latency drawn from published AWS"
                    + " figures (load-tests/README.md, \"AWS latency model\"); without it the figures are the"
                    + " emulators' own.",
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
        if (r.target().equals("local")) {
            summary.put(
                    "AWS latency",
                    r.awsLatency()
                            ? "modelled: every call to the local services took a latency drawn from published AWS"
                                    + " figures (--aws-latency)"
                            : "not modelled: the local emulators' own latency (--aws-latency models AWS's)");
            if (r.awsLatency()) {
                summary.put(
                        "calls the AWS latency model delayed",
                        String.join(
                                ", ",
                                r.delayedCalls().entrySet().stream()
                                        .sorted(Map.Entry.comparingByKey()) // the same order every run
                                        .map(e -> fmt("%s %,d", e.getKey(), e.getValue()))
                                        .toList()));
            }
        }
        for (StageCapacity c : r.capacity()) {
            summary.put(
                    "capacity " + c.stage() + " (" + c.consumer() + ")",
                    fmt(
                            "%s per batch p50 %,.0f ms · p99 %,.0f ms (%,.1f records on average); ceiling %,.0f"
                                    + " events/s a shard; %s at %s (ceiling ÷ required %.2f)",
                            c.consumer().equals("kcl") ? "interval" : "duration",
                            c.durationP50Ms(),
                            c.durationP99Ms(),
                            c.recordsPerBatch(),
                            c.ceilingPerShard(),
                            c.realTime() ? "real time" : "NOT real time",
                            c.requiredBasis(),
                            c.margin()));
        }
        if (r.modelled() != null) {
            for (ModelledStages.Stage m : r.modelled().stages()) {
                summary.put(
                        "modelled in AWS " + m.stage() + " (" + m.consumer() + ")",
                        fmt(
                                "batch p50 %,.0f ms · p99 %,.0f ms (%,d records); ceiling %,.0f events/s a shard"
                                        + " (goal ≥ %,.0f: %s; %s binds)",
                                m.batchP50Millis(),
                                m.batchP99Millis(),
                                m.batchSize(),
                                m.ceilingPerShard(),
                                m.goalPerShard(),
                                m.ceilingPerShard() >= m.goalPerShard() ? "met" : "not met",
                                m.binding()));
            }
        } else {
            summary.put("modelled in AWS", NO_BENCH.formatted(r.pipeline(), r.pipeline()));
        }
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
        for (var d : r.downstream().entrySet()) {
            var a = d.getValue();
            summary.put(
                    "reconciliation of " + d.getKey() + "'s aggregate",
                    fmt(
                            "%s: expected %,d (the first stage's kept events, less those reported late), counted %,d,"
                                    + " lost %d, duplicates %d, unexpected %d",
                            a.reconciled() ? "OK" : "FAILED",
                            a.expected(),
                            a.counted(),
                            a.lost(),
                            a.duplicates(),
                            a.unexpected()));
        }
        if (r.cpu() != null) {
            summary.put("what bounded the run (CPU)", r.cpu().bound());
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
        if (r.cpu() != null && !r.cpu().processes().isEmpty()) {
            charts.add(cpuChart(r.cpu()));
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
        if (r.cpu() != null) {
            tables.add(cpuTable(r.cpu(), r.events()));
            if (!r.cpu().threads().isEmpty()) {
                tables.add(threadTable(r.cpu(), r.events()));
            }
        }
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
        if (!r.capacity().isEmpty()) {
            tables.add(capacityTable(r.capacity()));
        }
        if (r.modelled() != null) {
            tables.add(modelledTable(r.modelled()));
        }
        List<BatchTime> batchTimes = BatchTime.of(r);
        if (!batchTimes.isEmpty()) {
            tables.add(new Report.Table(
                    "Where a batch's time goes: the function's AWS calls",
                    List.of(
                            "stage",
                            "operation",
                            "resource",
                            "calls a batch",
                            "ms each p50 / p99 (as the function saw them)",
                            "AWS model p50 / p99",
                            "ms a batch, added up",
                            "in flight on average"),
                    batchTimes.stream()
                            .map(t -> List.of(
                                    t.stage(),
                                    t.operation(),
                                    t.resource(),
                                    fmt("%.1f", t.callsPerBatch()),
                                    BatchTime.millis(t.observedP50Millis()) + " / "
                                            + BatchTime.millis(t.observedP99Millis()),
                                    Double.isNaN(t.modelP50Millis())
                                            ? "–"
                                            : BatchTime.millis(t.modelP50Millis()) + " / "
                                                    + BatchTime.millis(t.modelP99Millis()),
                                    fmt("%,.0f", t.millisPerBatch()),
                                    fmt("%.1f", t.inFlight())))
                            .toList(),
                    "Each attempt timed from its transmission to the response's headers in the function (a global SDK"
                            + " interceptor), so it holds the local stack's gate and emulator and, with --aws-latency,"
                            + " the modelled delay. In flight: the attempts' time added up per batch ÷ the mean"
                            + " batch duration (the sink's item writes run on 8 threads, so up to 8 PutItem calls"
                            + " overlap)."));
        }
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

    /** Said when no handler bench of the run's pipeline is in the reports folder. */
    public static final String NO_BENCH = "not in this report: no handler bench of %s in the reports folder"
            + " (./sluice bench handler --pipeline pipelines/%s.yaml models every stage's AWS batch, ceiling and"
            + " requests without the emulators; a load run made after it shows them here)";

    /** Per stage as the newest handler bench modelled it in AWS: CPU, requests, batch, ceiling. */
    static Report.Table modelledTable(ModelledStages modelled) {
        return new Report.Table(
                "Modelled in AWS a shard (handler bench)",
                List.of(
                        "stage",
                        "consumer",
                        "batch size",
                        "CPU on",
                        "CPU µs/event (Sluice / hand-written)",
                        "requests per 1,000 events",
                        "modelled batch p50 / p99 / mean ms",
                        "ceiling events/s a shard",
                        "goal",
                        "binds"),
                modelled.stages().stream()
                        .map(m -> List.of(
                                m.stage(),
                                m.consumer(),
                                fmt("%,d (PF %d)", m.batchSize(), m.parallelization()),
                                m.memoryMb() > 0
                                        ? fmt("%,d MB (%.2f vCPU)", m.memoryMb(), m.vcpu())
                                        : fmt("%.2f vCPU", m.vcpu()),
                                m.naiveCpuMicrosPerEvent() > 0
                                        ? fmt(
                                                "%,.1f / %,.1f (%.2f)",
                                                m.cpuMicrosPerEvent(),
                                                m.naiveCpuMicrosPerEvent(),
                                                m.cpuMicrosPerEvent() / m.naiveCpuMicrosPerEvent())
                                        : fmt("%,.1f", m.cpuMicrosPerEvent()),
                                String.join(
                                        ", ",
                                        m.requestsPer1000().entrySet().stream()
                                                .sorted(Map.Entry.comparingByKey())
                                                .map(e -> fmt("%s %,.1f", e.getKey(), e.getValue()))
                                                .toList()),
                                fmt(
                                        "%,.0f / %,.0f / %,.1f",
                                        m.batchP50Millis(), m.batchP99Millis(), m.batchMeanMillis()),
                                fmt("%,.0f", m.ceilingPerShard()),
                                fmt(
                                        "≥ %,.0f: %s",
                                        m.goalPerShard(), m.ceilingPerShard() >= m.goalPerShard() ? "met" : "not met"),
                                m.binding()))
                        .toList(),
                "from " + modelled.report() + " (" + modelled.generatedAt() + "): the stage's real handler"
                        + " against a loopback AWS stub, its CPU and call graph modelled with AWS's published"
                        + " latencies (load-tests/README.md \"Modelled AWS ceiling a shard\"); no emulator CPU"
                        + " in these figures, unlike the capacity table above");
    }

    /** Per stage: measured duration per batch, the per-shard ceiling, real time or not, GB-seconds. */
    static Report.Table capacityTable(List<StageCapacity> capacity) {
        return new Report.Table(
                "Capacity per stage (per shard)",
                List.of(
                        "stage",
                        "consumer",
                        "batches",
                        "records per batch",
                        "duration p50 / p99 / mean ms",
                        "full batch ms",
                        "ceiling events/s a shard",
                        "a shard at Kinesis's limit",
                        "real time",
                        "Lambda GB-s per million events",
                        "Lambda duration USD per million events",
                        "duration measured"),
                capacity.stream()
                        .map(c -> List.of(
                                c.stage(),
                                c.consumer(),
                                fmt("%,d", c.batches()),
                                fmt("%,.1f of %,d", c.recordsPerBatch(), c.batchSize()),
                                fmt("%,.0f / %,.0f / %,.1f", c.durationP50Ms(), c.durationP99Ms(), c.durationMeanMs()),
                                fmt("%,.0f", c.fullBatchMs()),
                                fmt(
                                        "%,.0f = %,d × %d ÷ (%,.0f + %,.0f ms)",
                                        c.ceilingPerShard(),
                                        c.batchSize(),
                                        c.parallelizationFactor(),
                                        c.fullBatchMs(),
                                        c.pollIntervalMs()),
                                fmt("%,.0f records/s (%s)", c.requiredPerShard(), c.requiredBasis()),
                                fmt("%s (×%.2f)", c.realTime() ? "yes" : "no", c.margin()),
                                c.consumer().equals("lambda") ? fmt("%,.1f", c.gbSecondsPerMillion()) : "—",
                                c.consumer().equals("lambda") ? fmt("%.4f", c.durationUsdPerMillion()) : "—",
                                c.durationBasis()))
                        .toList(),
                "ceiling = batch size × parallelization factor ÷ (full batch + poll interval); a KCL stage's"
                        + " interval already holds its poll, so its poll interval is 0");
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

    /** Cores used by each process, second by second. */
    static Chart cpuChart(ProcessCpu.Usage cpu) {
        List<Chart.Series> series = new ArrayList<>();
        for (ProcessCpu.Figure f : cpu.processes()) {
            if (f.cpuSeconds() < 0.05 * cpu.seconds()) {
                continue; // under 5 % of a core: a flat line at the bottom
            }
            List<Double> x = new ArrayList<>();
            for (int i = 0; i < f.perSecond().size(); i++) {
                x.add((double) i);
            }
            series.add(new Chart.Series(f.name(), x, f.perSecond()));
        }
        return Chart.line(
                "cpu",
                fmt("CPU per process over time (%d cores)", cpu.cores()),
                "seconds since the producer started",
                "cores",
                series);
    }

    /** CPU time per thread (pools grouped by name) of the JVM that ran the command, busiest first. */
    static Report.Table threadTable(ProcessCpu.Usage cpu, long events) {
        List<List<String>> rows = new ArrayList<>();
        for (ProcessCpu.ThreadFigure t : cpu.threads()) {
            rows.add(List.of(
                    t.name(),
                    t.threads() == 0 ? "–" : Integer.toString(t.threads()),
                    fmt("%.1f", t.cpuSeconds()),
                    fmt("%.2f", t.averageCores()),
                    t.threads() == 0 ? "–" : fmt("%.2f", t.busiestThreadCores()),
                    events == 0 ? "–" : fmt("%.1f", t.cpuSeconds() * 1e6 / events)));
        }
        return new Report.Table(
                "CPU per thread of the sluice JVM (threads of one pool grouped by name)",
                List.of(
                        "threads named",
                        "threads",
                        "CPU seconds",
                        "cores on average",
                        "busiest thread (cores)",
                        "CPU µs per event"),
                rows,
                "Each Java thread's CPU time (ThreadMXBean) over the same window, read once a second; the"
                        + " process's CPU time that no Java thread accounts for is the JIT compilers', the garbage"
                        + " collector's and the VM's own threads'.");
    }

    /** CPU time per process over the run, busiest first. */
    static Report.Table cpuTable(ProcessCpu.Usage cpu, long events) {
        List<List<String>> rows = new ArrayList<>();
        for (ProcessCpu.Figure f : cpu.processes()) {
            rows.add(List.of(
                    f.name(),
                    Long.toString(f.pid()),
                    fmt("%.1f", f.cpuSeconds()),
                    fmt("%.2f", f.averageCores()),
                    fmt("%.2f", f.peakCores()),
                    events == 0 ? "–" : fmt("%.1f", f.cpuSeconds() * 1e6 / events)));
        }
        return new Report.Table(
                "CPU per process (from the producer's start to the last stage's checkpoint)",
                List.of("process", "pid", "CPU seconds", "cores on average", "cores at peak (5 s)", "CPU µs per event"),
                rows,
                fmt(
                        "%d cores, %.1f s of wall time, %.2f cores in use on average. Bound: %s. Read from the"
                                + " operating system's accounting of each process (user + system time) once a second.",
                        cpu.cores(), cpu.seconds(), cpu.totalCores(), cpu.bound()));
    }
}
