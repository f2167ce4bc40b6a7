package dev.sluice.cli;

import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.emulators.LocalAws;
import dev.sluice.emulators.LocalAwsOptions;
import dev.sluice.local.iam.LocalIam;
import dev.sluice.verify.faults.FaultScenario;
import dev.sluice.verify.faults.FaultSuite;
import dev.sluice.verify.faults.HopFaultSuite;
import dev.sluice.verify.faults.KclClusterFaults;
import dev.sluice.verify.faults.KclFaultSuite;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/** {@code ./sluice faults}: the fault suite, every scenario reconciled. */
final class FaultsCommand implements Command {

    /**
     * The scenarios that test a denial on purpose: {@code iam-grant-revoked} (the stage's role loses a
     * grant until its first denial; the batches in flight are denied too) and {@code persona-denied}
     * (each persona attempts what it must not). A denial in any other scenario is a grant that does not
     * match the code, and fails that scenario.
     */
    static final Set<String> DENIAL_SCENARIOS = Set.of("iam-grant-revoked", "persona-denied");

    /** Above this the producer alone outruns kinesis-mock on one core (a few thousand puts a second). */
    private static final int MAX_SCALE_RATE = 2_000;

    private final CliContext context;

    FaultsCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public String name() {
        return "faults";
    }

    @Override
    public String usage() {
        return String.join(
                "\n",
                "  faults [--scenario NAME|kcl-cluster] [--events N] [--rate R] [--aggregate]",
                "                                 run the fault suite on payments (and KCL workers) and reconcile every scenario (default 1,000 events each;",
                "                                 kcl-scale-out/-in run under a steady load of R page views a second, default "
                        + (int) KclClusterFaults.ScaleLoad.FULL.rate() + ")");
    }

    @Override
    public Set<String> options() {
        return Set.of("scenario", "events", "rate");
    }

    /** {@code --aggregate}: every payments scenario's producer packs its events into KPL aggregates. */
    @Override
    public Set<String> flags() {
        return Set.of("aggregate");
    }

    @Override
    public int run(Arguments args) {
        int events = args.positiveInt("events", 1_000, CliContext.MAX_EVENTS);
        // the scale scenarios' steady load (a rate the workers consume in real time on this machine)
        int scaleRate = args.positiveInt("rate", (int) KclClusterFaults.ScaleLoad.FULL.rate(), MAX_SCALE_RATE);
        List<FaultScenario> all = FaultSuite.scenarios(events);
        String only = args.get("scenario");
        List<FaultScenario> chosen = only == null
                ? all
                : all.stream().filter(s -> s.name().equals(only)).toList();
        List<String> kclChosen = only == null
                ? KclFaultSuite.scenarios()
                : KclFaultSuite.scenarios().stream().filter(only::equals).toList();
        List<String> hopChosen = only == null
                ? HopFaultSuite.scenarios()
                : HopFaultSuite.scenarios().stream().filter(only::equals).toList();
        // --scenario kcl-cluster: the five partial-cluster KCL scenarios, one stack for all
        List<String> clusterChosen = only == null || only.equals(KclClusterFaults.GROUP)
                ? KclClusterFaults.scenarios()
                : KclClusterFaults.scenarios().stream().filter(only::equals).toList();
        if (chosen.isEmpty() && kclChosen.isEmpty() && hopChosen.isEmpty() && clusterChosen.isEmpty()) {
            throw new UsageException("unknown scenario '" + only + "' (one of: "
                    + all.stream().map(FaultScenario::name).collect(Collectors.joining(", ")) + ", "
                    + String.join(", ", KclFaultSuite.scenarios()) + ", "
                    + String.join(", ", HopFaultSuite.scenarios()) + ", "
                    + String.join(", ", KclClusterFaults.scenarios()) + "; or " + KclClusterFaults.GROUP
                    + " for those five)");
        }
        PipelineDefinition payments = context.loader().load(context.root().resolve("pipelines/payments.yaml"));
        context.out()
                .printf(
                        Locale.ROOT,
                        "Sluice fault suite: %d scenario(s) × %,d payments through pipelines/payments.yaml (pf-*: the"
                                + " payments-pf test pipeline, parallelizationFactor 4) on local AWS%n",
                        chosen.size(),
                        events);
        Path work = context.root().resolve("localstack/.run/faults");
        List<FaultSuite.Row> rows = new ArrayList<>();
        Map<String, Double> takeovers = new java.util.LinkedHashMap<>();
        Map<String, Double> dips = new java.util.LinkedHashMap<>();
        Map<String, Double> handoffs = new java.util.LinkedHashMap<>();
        try {
            java.nio.file.Files.createDirectories(work);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("cannot create " + work, e);
        }
        LocalAwsOptions options = context.options().toBuilder()
                .kinesisDataDirectory(
                        work.resolve("kinesis-" + ProcessHandle.current().pid()))
                .build();
        String iamFields;
        Map<String, Long> deniedBy = new java.util.LinkedHashMap<>();
        try (LocalAws aws = LocalAws.start(options)) {
            Scenarios scenarios = new Scenarios(aws, deniedBy);
            FaultSuite suite = new FaultSuite(aws, payments, context.root(), work)
                    .aggregating("true".equals(args.get("aggregate")));
            for (FaultScenario scenario : chosen) {
                context.out().printf(Locale.ROOT, "  running %-24s %s …%n", scenario.name(), scenario.description());
                FaultSuite.Row row = scenarios.run(scenario.name(), () -> suite.run(scenario));
                rows.add(row);
                printOutcome(row);
            }
            KclFaultSuite kclSuite = new KclFaultSuite(aws, context.root());
            if (!kclChosen.isEmpty() && !kclSuite.available()) {
                context.out()
                        .println(
                                "  KCL scenarios skipped: the KCL app is not built (./mvnw -B package -pl functions/kcl -am)");
            } else {
                for (String scenario : kclChosen) {
                    context.out()
                            .printf(
                                    Locale.ROOT,
                                    "  running %-24s %s …%n",
                                    scenario,
                                    KclFaultSuite.description(scenario));
                    KclFaultSuite.KclRow[] ran = new KclFaultSuite.KclRow[1];
                    FaultSuite.Row row = scenarios.run(scenario, () -> {
                        ran[0] = kclSuite.run(scenario, Math.min(events, 600));
                        return ran[0].row();
                    });
                    KclFaultSuite.KclRow kclRow = ran[0];
                    rows.add(row);
                    kclRow.takeoverSeconds().ifPresent(t -> takeovers.put(scenario, t));
                    printOutcome(row);
                }
            }
            HopFaultSuite hopSuite = new HopFaultSuite(
                    aws, context.loader().load(context.root().resolve("pipelines/clickstream.yaml")), context.root());
            if (!hopChosen.isEmpty() && !hopSuite.available()) {
                context.out()
                        .println(
                                "  re-key hop scenarios skipped: the KCL app is not built (./mvnw -B package -pl functions/kcl -am)");
            } else {
                for (String scenario : hopChosen) {
                    context.out()
                            .printf(
                                    Locale.ROOT,
                                    "  running %-24s %s …%n",
                                    scenario,
                                    HopFaultSuite.description(scenario));
                    FaultSuite.Row row = scenarios.run(scenario, () -> hopSuite.run(scenario, Math.min(events, 600)));
                    rows.add(row);
                    printOutcome(row);
                }
            }
            // partitioned and zombie workers, scale out (2 → 6) and in (6 → 2) under load
            KclClusterFaults cluster = new KclClusterFaults(aws, context.root(), 2, 6)
                    .scaleLoad(KclClusterFaults.ScaleLoad.FULL.withRate(scaleRate));
            if (!clusterChosen.isEmpty() && !cluster.available()) {
                context.out()
                        .println("  KCL cluster scenarios skipped: the KCL app is not built or IAM is off"
                                + " (partitions need each worker's own key)");
            } else {
                for (String scenario : clusterChosen) {
                    context.out()
                            .printf(
                                    Locale.ROOT,
                                    "  running %-24s %s …%n",
                                    scenario,
                                    KclClusterFaults.description(scenario));
                    KclClusterFaults.ClusterRow[] ran = new KclClusterFaults.ClusterRow[1];
                    FaultSuite.Row row = scenarios.run(scenario, () -> {
                        ran[0] = cluster.run(scenario, Math.min(events, 600));
                        return ran[0].row();
                    });
                    KclClusterFaults.ClusterRow clusterRow = ran[0];
                    rows.add(row);
                    // scale-out's figure is a hand-off (change → every new worker holds a lease), not a takeover
                    clusterRow
                            .takeoverSeconds()
                            .ifPresent(t -> (scenario.equals(KclClusterFaults.SCALE_OUT) ? handoffs : takeovers)
                                    .put(scenario, t));
                    clusterRow.dipPercent().ifPresent(d -> dips.put(scenario, d));
                    printOutcome(row);
                    clusterRow.scale().ifPresent(this::printScale);
                    clusterRow.lateWrites().ifPresent(this::printLateWrites);
                }
            }
            LocalIam.summaryOf(aws).ifPresent(context.out()::println);
            context.out().println(dev.sluice.local.limits.LocalLimits.summary(aws));
            long planned = deniedBy.entrySet().stream()
                    .filter(e -> DENIAL_SCENARIOS.contains(e.getKey()))
                    .mapToLong(Map.Entry::getValue)
                    .sum();
            long unplanned = deniedBy.entrySet().stream()
                    .filter(e -> !DENIAL_SCENARIOS.contains(e.getKey()))
                    .mapToLong(Map.Entry::getValue)
                    .sum();
            context.out()
                    .println("access denied per scenario: "
                            + (deniedBy.values().stream().allMatch(d -> d == 0)
                                    ? "none"
                                    : deniedBy.entrySet().stream()
                                            .filter(e -> e.getValue() > 0)
                                            .map(e -> e.getKey() + " " + e.getValue()
                                                    + (DENIAL_SCENARIOS.contains(e.getKey())
                                                            ? " (tests a denial)"
                                                            : ""))
                                            .collect(Collectors.joining(", "))));
            iamFields = LocalIam.resultFields(aws)
                    + (aws.iamEnforced()
                            ? " access_denied_planned=" + planned + " access_denied_unplanned=" + unplanned
                            : "")
                    + " " + dev.sluice.local.limits.LocalLimits.resultFields(aws);
        }
        Map<String, Double> shown = new java.util.LinkedHashMap<>(takeovers);
        shown.putAll(handoffs);
        faultTable(rows, shown);
        long lost = rows.stream().mapToLong(FaultSuite.Row::lost).sum();
        long duplicates =
                rows.stream().mapToLong(FaultSuite.Row::duplicateEffects).sum();
        long order = rows.stream().mapToLong(FaultSuite.Row::orderViolations).sum();
        long failed = rows.stream().filter(r -> !r.passed()).count();
        context.out()
                .printf(
                        Locale.ROOT,
                        "RESULT scenarios=%d failed=%d events=%d lost=%d duplicate_effects=%d order_violations=%d"
                                + " faults_planned=%d faults_fired=%d kcl_takeover_seconds=%s kcl_handoff_seconds=%s scale_dip_percent=%s %s%n",
                        rows.size(),
                        failed,
                        rows.stream().mapToLong(FaultSuite.Row::events).sum(),
                        lost,
                        duplicates,
                        order,
                        rows.stream().mapToInt(FaultSuite.Row::faultsPlanned).sum(),
                        rows.stream().mapToInt(FaultSuite.Row::faultsFired).sum(),
                        // the hard kill's takeover (failover time + lease assignment), else the longest measured
                        takeovers.containsKey(KclFaultSuite.KILLED)
                                ? String.format(Locale.ROOT, "%.1f", takeovers.get(KclFaultSuite.KILLED))
                                : takeovers.values().stream()
                                        .max(Double::compare)
                                        .map(t -> String.format(Locale.ROOT, "%.1f", t))
                                        .orElse("n/a"),
                        // scale-out: seconds until every added worker holds a lease
                        handoffs.values().stream()
                                .max(Double::compare)
                                .map(h -> String.format(Locale.ROOT, "%.1f", h))
                                .orElse("n/a"),
                        // the deepest throughput dip of the scale scenarios
                        dips.values().stream()
                                .max(Double::compare)
                                .map(d -> String.format(Locale.ROOT, "%.0f", d))
                                .orElse("n/a"),
                        iamFields);
        return failed == 0 ? 0 : 1;
    }

    /** One scenario's outcome as it finishes: ok or FAIL, its time, and its problems. */
    private void printOutcome(FaultSuite.Row row) {
        context.out()
                .printf(
                        Locale.ROOT,
                        "  %s %-24s %.1f s%n",
                        row.passed() ? "ok  " : "FAIL",
                        row.scenario(),
                        row.seconds());
        row.problems().forEach(p -> context.out().println("       ! " + p));
    }

    /** The zombie's held requests, delivered after the new owner's checkpoint, under its outcome. */
    private void printLateWrites(KclClusterFaults.LateWrites w) {
        context.out()
                .printf(
                        Locale.ROOT,
                        "       late writes: %d requests held, %d writes landed after the new owner's checkpoint,"
                                + " %d refused by their condition, %d applied (%s)%n",
                        w.held(),
                        w.writes(),
                        w.refused(),
                        w.applied(),
                        new java.util.TreeMap<>(w.outcomes()));
    }

    /** A scale scenario's load and figures, under its outcome. */
    private void printScale(KclClusterFaults.ScaleFigures f) {
        context.out()
                .printf(
                        Locale.ROOT,
                        "       load %.0f/s asked, %.1f/s put; hand-off %.1f s; %s%n",
                        f.rate(),
                        f.producedPerSecond(),
                        f.handoffSeconds(),
                        f.dip()
                                .map(d -> String.format(
                                        Locale.ROOT,
                                        "processed %.1f/s before the change (lowest %d-s window %.1f/s), lowest"
                                                + " window after it %.1f/s (%d windows): dip %.0f %%; per window after"
                                                + " it: %s /s",
                                        d.beforePerSecond(),
                                        dev.sluice.verify.faults.ThroughputDip.WINDOW.toSeconds(),
                                        d.beforeLowestPerSecond(),
                                        d.lowestPerSecond(),
                                        d.windows(),
                                        d.percent(),
                                        d.afterWindows()))
                                .orElse("no dip measured"));
    }

    private void faultTable(List<FaultSuite.Row> rows, Map<String, Double> takeovers) {
        context.out().println();
        String format = "%-24s %7s %10s %8s %8s %6s %5s %6s %6s %8s %9s %s%n";
        context.out()
                .printf(
                        Locale.ROOT,
                        format,
                        "scenario",
                        "events",
                        "deliveries",
                        "effects",
                        "absorbed",
                        "dlq",
                        "lost",
                        "dupes",
                        "order",
                        "faults",
                        "takeover",
                        "");
        for (FaultSuite.Row row : rows) {
            context.out()
                    .printf(
                            Locale.ROOT,
                            format,
                            row.scenario(),
                            row.events(),
                            row.deliveries(),
                            row.effects(),
                            row.absorbed(),
                            row.deadLettered(),
                            row.lost(),
                            row.duplicateEffects(),
                            row.orderViolations(),
                            row.faultsFired() + "/" + row.faultsPlanned(),
                            takeovers.containsKey(row.scenario())
                                    ? String.format(Locale.ROOT, "%.1f s", takeovers.get(row.scenario()))
                                    : "-",
                            row.passed() ? "ok" : "FAIL");
        }
        context.out().println();
        context.out()
                .println("deliveries: records handed to the function, redeliveries included; effects: records that took"
                        + " effect (valid ones in the lake, bad ones in the dead-letter queue); absorbed: duplicates the sinks"
                        + " recognised (stage metrics); faults: fired/planned; takeover: seconds from a KCL worker's death to"
                        + " its successor's first batch on one of its shards (kcl-zombie: from the partition; kcl-scale-out:"
                        + " the hand-off, from the change until every added worker holds a lease) (kcl-* scenarios: the"
                        + " kclviews test pipeline, effects counted in its table, its lake reconciled too, order checked"
                        + " in its output stream and its lake)");
    }

    /**
     * Runs each scenario on the shared stack: counts the requests the local IAM denied during it (a
     * scenario outside {@link #DENIAL_SCENARIOS} that was denied anything fails), then deletes every
     * stream the scenario left. kinesis-mock writes its whole state to disk every second (the stack
     * persists Kinesis data for {@code kinesis-restarted}), so the records of every finished scenario
     * would otherwise be written out again each second: 46 MB of them kept one idle kinesis-mock at
     * about half a core (docs/exactly-once.md, section 10), and the later scenarios' reads waited.
     */
    private final class Scenarios {
        private final LocalAws aws;
        private final Map<String, Long> deniedBy;

        Scenarios(LocalAws aws, Map<String, Long> deniedBy) {
            this.aws = aws;
            this.deniedBy = deniedBy;
        }

        FaultSuite.Row run(String scenario, java.util.function.Supplier<FaultSuite.Row> body) {
            long before = aws.accessControl().denied();
            FaultSuite.Row row;
            try {
                row = body.get();
            } finally {
                deleteStreams();
            }
            long denied = aws.accessControl().denied() - before;
            deniedBy.merge(scenario, denied, Long::sum);
            if (denied == 0 || DENIAL_SCENARIOS.contains(scenario)) {
                return row;
            }
            List<dev.sluice.emulators.iam.Decision> recent = aws.accessControl().recentDenials();
            return row.withProblem(denied + " requests denied by the local IAM in a scenario that tests no denial: "
                    + recent.subList(Math.max(0, recent.size() - 3), recent.size()));
        }

        /** Deletes every stream on the stack: the scenario that made them is reconciled and over. */
        private void deleteStreams() {
            try {
                List<String> names = new ArrayList<>();
                boolean more = true;
                while (more) {
                    String after = names.isEmpty() ? null : names.get(names.size() - 1);
                    var page = aws.kinesis().listStreams(b -> b.limit(100).exclusiveStartStreamName(after));
                    names.addAll(page.streamNames());
                    more = Boolean.TRUE.equals(page.hasMoreStreams())
                            && !page.streamNames().isEmpty();
                }
                for (String name : names) {
                    try {
                        aws.kinesis().deleteStream(b -> b.streamName(name).enforceConsumerDeletion(true));
                    } catch (RuntimeException e) {
                        // already being deleted, or gone
                    }
                }
            } catch (RuntimeException e) {
                context.out().println("  (could not delete the finished scenario's streams: " + e.getMessage() + ")");
            }
        }
    }
}
