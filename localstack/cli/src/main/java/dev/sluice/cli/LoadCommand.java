package dev.sluice.cli;

import dev.sluice.load.LoadResult;
import dev.sluice.load.LoadRun;
import dev.sluice.load.LoadSettings;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Set;

/** {@code ./sluice load --pipeline P --rate R --duration D [--aws]}: see {@link LoadRun}. */
final class LoadCommand implements Command {

    static final Set<String> OPTIONS =
            Set.of("pipeline", "rate", "duration", "seed", "invalid-share", "stream", "reports");
    static final Set<String> FLAGS = Set.of("aws", "day", "aggregate", "aws-latency");

    /** The highest --rate: far beyond the local stack, and a sane ceiling for a load test of one stream. */
    static final int MAX_RATE = 1_000_000;

    /** The longest --duration: a week. */
    static final Duration MAX_DURATION = Duration.ofDays(7);

    private final Path root;
    private final PrintStream out;
    private final PrintStream err;

    LoadCommand(CliContext context) {
        this(context.root(), context.out(), context.err());
    }

    @Override
    public String name() {
        return "load";
    }

    @Override
    public String usage() {
        return String.join(
                "\n",
                "  load --pipeline payments|clickstream|FILE [--rate R] [--duration D] [--day] [--aws] [--seed S]",
                "       [--invalid-share F] [--stream NAME] [--reports DIR] [--aggregate[=true|false]] [--aws-latency]",
                "                                 steady-rate load, latency, requests and cost per million events; writes",
                "                                 load-tests/reports/<time>/report.html and report.json (default 100/s, 30 s);",
                "                                 --aws-latency: every local AWS call takes a published AWS latency");
    }

    @Override
    public Set<String> options() {
        return OPTIONS;
    }

    @Override
    public Set<String> flags() {
        return FLAGS;
    }

    LoadCommand(Path root, PrintStream out, PrintStream err) {
        this.root = root;
        this.out = out;
        this.err = err;
    }

    /** The settings the arguments ask for; a bad argument is a {@link UsageException}. */
    LoadSettings settings(Arguments args) {
        String pipeline = args.get("pipeline");
        if (pipeline == null) {
            throw new UsageException("load needs --pipeline (payments, clickstream or a definition file)");
        }
        Path definition = definition(pipeline);
        double rate = args.number("rate", 100, true);
        if (rate > MAX_RATE) {
            throw new UsageException(String.format(
                    Locale.ROOT,
                    "option --rate must be at most %,d events a second, got '%s'",
                    MAX_RATE,
                    args.get("rate")));
        }
        Duration duration = duration(args.get("duration", "30s"));
        if (rate * duration.toSeconds() < 1) {
            throw new UsageException(String.format(
                    Locale.ROOT,
                    "--rate %s for --duration %s produces no event: ask for at least one (rate × seconds ≥ 1)",
                    args.get("rate"),
                    args.get("duration", "30s")));
        }
        double invalidShare = args.number("invalid-share", 0.005, false);
        if (invalidShare > 1) {
            throw new UsageException(
                    "option --invalid-share must be between 0 and 1, got '" + args.get("invalid-share") + "'");
        }
        boolean aws = Boolean.parseBoolean(args.get("aws", "false"));
        if (aws && awsLatency(args)) {
            throw new UsageException(
                    "option --aws-latency models AWS on the local stack; with --aws the latency is AWS's own");
        }
        if (args.get("stream") != null && !aws) {
            throw new UsageException("option --stream needs --aws (locally the stream is the definition's)");
        }
        String reports = args.get("reports");
        return new LoadSettings(
                definition,
                rate,
                duration,
                aws,
                args.get("stream"),
                args.longValue("seed", 20_261_201L),
                invalidShare,
                reports == null
                        ? root.resolve("load-tests/reports")
                        : Path.of(reports).toAbsolutePath(),
                Boolean.parseBoolean(args.get("day", "false")));
    }

    /**
     * {@code --aggregate} (or {@code =true}): the producer packs events into KPL aggregates; {@code
     * =false}: it never does; absent: it does above {@link LoadRun#AGGREGATE_ABOVE_RATE} events a second.
     */
    static Boolean aggregate(Arguments args) {
        String value = args.get("aggregate");
        if (value == null) {
            return null;
        }
        if (!value.equals("true") && !value.equals("false")) {
            throw new UsageException("option --aggregate takes true or false, got '" + value + "'");
        }
        return Boolean.valueOf(value);
    }

    /** {@code --aws-latency}: the local stack takes AWS's published latencies ({@code AwsLatencyModel}). */
    static boolean awsLatency(Arguments args) {
        return Boolean.parseBoolean(args.get("aws-latency", "false"));
    }

    @Override
    public int run(Arguments args) {
        LoadSettings settings = settings(args);
        LoadRun.Outcome outcome = new LoadRun(root, settings, out, err)
                .aggregate(aggregate(args))
                .awsLatency(awsLatency(args))
                .run();
        LoadResult r = outcome.result();
        summary(r);
        out.println("report: " + outcome.reportDirectory().resolve("report.html"));
        LoadResult.Latency l = r.latency();
        out.printf(
                Locale.ROOT,
                "RESULT events=%d seconds=%.1f events_per_s=%.1f p50_ms=%s p99_ms=%s max_ms=%s lost=%s duplicates=%s"
                        + "%s%s%s%s %s%n",
                r.events(),
                r.endToEndSeconds(),
                r.eventsPerSecond(),
                l == null ? "na" : Long.toString(l.p50()),
                l == null ? "na" : Long.toString(l.p99()),
                l == null ? "na" : Long.toString(l.max()),
                r.reconciliation() == null ? "na" : Long.toString(r.lost()),
                r.reconciliation() == null ? "na" : Long.toString(r.duplicates()),
                stageFields(r),
                downstreamFields(r),
                cpuFields(r),
                capacityFields(r) + modelledFields(r),
                outcome.iam());
        return r.reconciliation() == null || r.reconciled() ? 0 : 1;
    }

    /**
     * Per stage: {@code <stage>_events_per_s= <stage>_p50_ms= <stage>_p99_ms=} (dashes as
     * underscores), when the run measured more than one stage.
     */
    static String stageFields(LoadResult r) {
        if (r.stages() == null || r.stages().size() < 2) {
            return "";
        }
        StringBuilder fields = new StringBuilder();
        for (dev.sluice.load.StageFigures f : r.stages()) {
            String key = f.stage().replace('-', '_');
            LoadResult.Latency l = f.latency();
            fields.append(String.format(
                    Locale.ROOT,
                    " %s_events_per_s=%.1f %s_p50_ms=%s %s_p99_ms=%s",
                    key,
                    f.eventsPerSecond(),
                    key,
                    l == null ? "na" : Long.toString(l.p50()),
                    key,
                    l == null ? "na" : Long.toString(l.p99())));
        }
        return fields.toString();
    }

    /**
     * Per stage behind the first with an aggregate: {@code <stage>_counted= <stage>_lost=
     * <stage>_duplicates=} (its aggregate against the events the first stage kept; the line's {@code
     * lost} and {@code duplicates} include them).
     */
    static String downstreamFields(LoadResult r) {
        StringBuilder fields = new StringBuilder();
        r.downstream().forEach((stage, a) -> {
            String key = stage.replace('-', '_');
            fields.append(String.format(
                    Locale.ROOT,
                    " %s_counted=%d %s_lost=%d %s_duplicates=%d",
                    key,
                    a.counted(),
                    key,
                    a.lost(),
                    key,
                    a.duplicates()));
        });
        return fields.toString();
    }

    /**
     * {@code cores=<machine's> cores_used=<all processes, on average> busiest=<process>
     * busiest_cores=<its average>} and, per process over 5 % of a core, {@code cpu_<process>=<cores>}.
     */
    static String cpuFields(LoadResult r) {
        if (r.cpu() == null || r.cpu().processes().isEmpty()) {
            return "";
        }
        var cpu = r.cpu();
        StringBuilder fields = new StringBuilder(String.format(
                Locale.ROOT,
                " cores=%d cores_used=%.2f machine_cores_used=%s busiest=%s busiest_cores=%.2f",
                cpu.cores(),
                cpu.totalCores(),
                Double.isNaN(cpu.machineCores()) ? "na" : String.format(Locale.ROOT, "%.2f", cpu.machineCores()),
                key(cpu.processes().get(0).name()),
                cpu.processes().get(0).averageCores()));
        for (var f : cpu.processes()) {
            if (f.averageCores() >= 0.05) {
                fields.append(String.format(Locale.ROOT, " cpu_%s=%.2f", key(f.name()), f.averageCores()));
            }
        }
        return fields.toString();
    }

    /** A process name as a RESULT key: lower case, runs of other characters as one underscore. */
    private static String key(String name) {
        return name.toLowerCase(Locale.ROOT)
                .replaceAll("\\(.*\\)", "")
                .trim()
                .replaceAll("[^a-z0-9]+", "_")
                .replaceAll("^_|_$", "");
    }

    /**
     * Per stage measured: {@code <stage>_ms_per_batch_p50= <stage>_ceiling_per_shard=
     * <stage>_real_time=yes|no}, then {@code aws_latency=modelled|off} (nothing on AWS).
     */
    static String capacityFields(LoadResult r) {
        if (r.capacity() == null || !r.target().equals("local")) {
            return "";
        }
        StringBuilder fields = new StringBuilder();
        for (dev.sluice.load.StageCapacity c : r.capacity()) {
            String key = c.stage().replace('-', '_');
            fields.append(String.format(
                    Locale.ROOT,
                    " %s_ms_per_batch_p50=%.0f %s_ceiling_per_shard=%.0f %s_real_time=%s",
                    key,
                    c.durationP50Ms(),
                    key,
                    c.ceilingPerShard(),
                    key,
                    c.realTime() ? "yes" : "no"));
        }
        fields.append(" aws_latency=").append(r.awsLatency() ? "modelled" : "off");
        return fields.toString();
    }

    /**
     * Per stage the newest handler bench modelled: {@code <stage>_aws_batch_ms_p50=
     * <stage>_aws_ceiling_per_shard=}, and {@code aws_usd_per_million=} (the run's stream with the
     * bench's requests and duration); {@code aws_model=none} without a bench of the pipeline.
     */
    static String modelledFields(LoadResult r) {
        if (r.modelled() == null) {
            return " aws_model=none";
        }
        StringBuilder fields = new StringBuilder();
        for (dev.sluice.planner.ModelledStages.Stage m : r.modelled().stages()) {
            String key = m.stage().replace('-', '_');
            fields.append(String.format(
                    Locale.ROOT,
                    " %s_aws_batch_ms_p50=%.0f %s_aws_ceiling_per_shard=%.0f",
                    key,
                    m.batchP50Millis(),
                    key,
                    m.ceilingPerShard()));
        }
        r.costs().stream()
                .filter(c -> c.design().equals(dev.sluice.planner.CostModel.MODELLED))
                .findFirst()
                .ifPresent(
                        c -> fields.append(String.format(Locale.ROOT, " aws_usd_per_million=%.4f", c.usdPerMillion())));
        return fields.toString();
    }

    private void summary(LoadResult r) {
        out.println();
        out.printf(
                Locale.ROOT,
                "  events          %,d produced at %,.1f/s (target %,.0f/s), %,.1f/s sustained end to end%n",
                r.events(),
                r.producedPerSecond(),
                r.targetRate(),
                r.eventsPerSecond());
        if (r.latency() != null) {
            LoadResult.Latency l = r.latency();
            out.printf(
                    Locale.ROOT,
                    "  latency         p50 %,d ms, p95 %,d ms, p99 %,d ms, max %,d ms (occurredAt → sink write, %,d"
                            + " records)%n",
                    l.p50(),
                    l.p95(),
                    l.p99(),
                    l.max(),
                    l.matched());
        }
        if (r.cpu() != null) {
            out.printf(Locale.ROOT, "  bound by        %s%n", r.cpu().bound());
            r.cpu().processes().stream()
                    .filter(f -> f.averageCores() >= 0.05)
                    .forEach(f -> out.printf(
                            Locale.ROOT,
                            "  cpu             %-32s %5.2f cores (peak %.2f), %,.0f µs per event%n",
                            f.name(),
                            f.averageCores(),
                            f.peakCores(),
                            r.events() == 0 ? 0.0 : f.cpuSeconds() * 1e6 / r.events()));
            // the harness's own JVM: which of its threads used the CPU (pools grouped by name)
            r.cpu().threads().stream()
                    .filter(t -> t.averageCores() >= 0.03)
                    .forEach(t -> out.printf(
                            Locale.ROOT,
                            "  cpu thread      %-32s %5.2f cores%s, %,.0f µs per event%n",
                            t.threads() > 1 ? t.name() + " ×" + t.threads() : t.name(),
                            t.averageCores(),
                            t.threads() > 1
                                    ? String.format(Locale.ROOT, " (busiest thread %.2f)", t.busiestThreadCores())
                                    : "",
                            r.events() == 0 ? 0.0 : t.cpuSeconds() * 1e6 / r.events()));
        }
        if (r.latency() != null) {
            out.printf(
                    Locale.ROOT,
                    "  consumer lag    max %,d events%n",
                    r.seconds().stream().mapToLong(s -> s.lag()).max().orElse(0));
        } else {
            out.println("  latency, lag    not measured (no stage metrics to read; --aws: see load-tests/README.md)");
        }
        r.requests().stream()
                .collect(java.util.stream.Collectors.groupingBy(
                        q -> q.role() + " " + q.service(),
                        java.util.TreeMap::new,
                        java.util.stream.Collectors.summingDouble(LoadResult.Request::perThousandEvents)))
                .forEach((k, v) -> out.printf(Locale.ROOT, "  requests/1k     %-32s %,8.1f%n", k, v));
        for (dev.sluice.load.StageCapacity c : r.capacity()) {
            out.printf(
                    Locale.ROOT,
                    "  %-15s %s per batch p50 %,.0f ms, p99 %,.0f ms (%,.0f records); ceiling %,.0f events/s a shard;"
                            + " %s at %s (×%.2f)%n",
                    c.stage(),
                    c.consumer().equals("kcl") ? "interval" : "duration",
                    c.durationP50Ms(),
                    c.durationP99Ms(),
                    c.recordsPerBatch(),
                    c.ceilingPerShard(),
                    c.realTime() ? "real time" : "NOT real time",
                    c.requiredBasis(),
                    c.margin());
        }
        if (r.modelled() != null) {
            for (dev.sluice.planner.ModelledStages.Stage m : r.modelled().stages()) {
                out.printf(
                        Locale.ROOT,
                        "  %-15s modelled in AWS: batch p50 %,.0f ms, p99 %,.0f ms (%,d records); ceiling %,.0f"
                                + " events/s a shard, goal ≥ %,.0f %s%n",
                        m.stage(),
                        m.batchP50Millis(),
                        m.batchP99Millis(),
                        m.batchSize(),
                        m.ceilingPerShard(),
                        m.goalPerShard(),
                        m.ceilingPerShard() >= m.goalPerShard() ? "met" : "not met");
            }
            out.println("  modelled by     " + r.modelled().report() + " ("
                    + r.modelled().generatedAt() + ")");
        } else {
            out.println(
                    "  modelled AWS    " + dev.sluice.load.LoadReport.NO_BENCH.formatted(r.pipeline(), r.pipeline()));
        }
        for (dev.sluice.load.BatchTime t : dev.sluice.load.BatchTime.of(r)) {
            out.printf(Locale.ROOT, "  %-15s %s%n", t.stage() + " calls", t.line());
        }
        r.costs()
                .forEach(
                        c -> out.printf(Locale.ROOT, "  USD/million     %-32s %8.4f%n", c.design(), c.usdPerMillion()));
        if (r.reconciliation() != null) {
            var c = r.reconciliation();
            out.printf(
                    Locale.ROOT,
                    "  reconciliation  %s: lake %,d, dead-lettered %,d, lost %d, duplicates %d, unexpected %d%n",
                    r.reconciled() ? "ok" : "FAILED",
                    c.lake(),
                    c.deadLettered(),
                    c.lost(),
                    c.duplicates(),
                    c.unexpected());
            c.problems().forEach(p -> out.println("  ! " + p));
            r.downstream().forEach((stage, a) -> {
                out.printf(
                        Locale.ROOT,
                        "  reconciliation  %s's aggregate %s: expected %,d, counted %,d, lost %d, duplicates %d,"
                                + " unexpected %d%n",
                        stage,
                        a.reconciled() ? "ok" : "FAILED",
                        a.expected(),
                        a.counted(),
                        a.lost(),
                        a.duplicates(),
                        a.unexpected());
                a.problems().forEach(p -> out.println("  ! " + p));
            });
        } else {
            out.println("  reconciliation  not run (--aws: see load-tests/README.md)");
        }
    }

    private Path definition(String pipeline) {
        if (pipeline.endsWith(".yaml") || pipeline.endsWith(".yml") || pipeline.contains("/")) {
            Path file = Path.of(pipeline);
            if (!file.isAbsolute() && !Files.exists(file)) {
                file = root.resolve(pipeline);
            }
            if (!Files.isRegularFile(file)) {
                throw new UsageException("no such pipeline definition: " + pipeline);
            }
            return file;
        }
        Path file = root.resolve("pipelines/" + pipeline + ".yaml");
        if (!Files.isRegularFile(file)) {
            throw new UsageException("no pipeline '" + pipeline + "' in pipelines/ (payments, clickstream, or a file)");
        }
        return file;
    }

    /** {@code 60}, {@code 60s}, {@code 2m} or {@code 1h}; at least one second. */
    static Duration duration(String value) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        long unit = 1;
        if (v.endsWith("s")) {
            v = v.substring(0, v.length() - 1);
        } else if (v.endsWith("m")) {
            unit = 60;
            v = v.substring(0, v.length() - 1);
        } else if (v.endsWith("h")) {
            unit = 3600;
            v = v.substring(0, v.length() - 1);
        }
        long n;
        try {
            n = Long.parseLong(v);
            if (n <= 0) {
                throw new NumberFormatException();
            }
        } catch (NumberFormatException e) {
            if (v.matches("[0-9]{19,}")) {
                n = Long.MAX_VALUE; // too long for a long: reported as too long below
            } else {
                throw new UsageException("option --duration must be a positive whole number of seconds (or 2m, 1h),"
                        + " got '" + value + "'");
            }
        }
        if (n > MAX_DURATION.toSeconds() / unit) {
            throw new UsageException(
                    "option --duration must be at most " + MAX_DURATION.toHours() + "h (a week), got '" + value + "'");
        }
        return Duration.ofSeconds(n * unit);
    }
}
