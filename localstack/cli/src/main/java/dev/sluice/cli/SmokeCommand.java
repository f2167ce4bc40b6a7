package dev.sluice.cli;

import dev.sluice.core.definition.PipelineDefinition;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * {@code ./sluice smoke [--aws] --pipeline P}: the first thing to run after {@code cdk deploy}. See
 * {@link SmokeRun}; without {@code --aws} it starts its own local stack ({@link LocalSmokeTarget}),
 * with {@code --aws} it uses the deployed stack ({@link AwsSmokeTarget}).
 */
final class SmokeCommand implements Command {

    private final CliContext context;

    SmokeCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public String name() {
        return "smoke";
    }

    @Override
    public String usage() {
        return "  smoke --pipeline payments|clickstream [--aws] [--events N] [--timeout SECONDS]   after a deploy: put"
                + " valid and invalid events as source-operator and check every target (default: a local stack)";
    }

    @Override
    public Set<String> options() {
        return Set.of("pipeline", "events", "timeout");
    }

    @Override
    public Set<String> flags() {
        return Set.of("aws");
    }

    @Override
    public int run(Arguments args) {
        String name = args.get("pipeline");
        if (name == null) {
            throw new UsageException("smoke needs --pipeline (payments or clickstream)");
        }
        Path file = context.root().resolve("pipelines").resolve(name + ".yaml");
        if (!name.matches("[a-z0-9-]+") || !Files.isRegularFile(file)) {
            throw new UsageException("no pipeline '" + name + "' in pipelines/");
        }
        int events = args.positiveInt("events", 5, 100);
        int timeoutSeconds = args.positiveInt("timeout", 180, 3600);
        boolean aws = Boolean.parseBoolean(args.get("aws", "false"));
        PipelineDefinition definition = context.loader().load(file);
        context.out()
                .printf(
                        Locale.ROOT,
                        "Sluice smoke: pipelines/%s.yaml %s%n",
                        name,
                        aws ? "in AWS (default credentials and region)" : "on a local stack (no account)");
        try (SmokeTarget target = aws
                ? AwsSmokeTarget.connect(definition)
                : LocalSmokeTarget.start(context.options(), definition, context.root())) {
            context.out().println("  target     " + target.where());
            context.out().println("  dashboard  " + target.dashboard());
            SmokeRun.Result result = new SmokeRun(
                            target, context.root(), events, Duration.ofSeconds(timeoutSeconds), Duration.ofSeconds(2))
                    .run();
            summary(result);
            // the one figure only AWS gives: each Lambda stage's first SnapStart restore after the deploy
            List<StageRestore> restores = target.restores();
            restores.forEach(restore -> context.out().println("  " + restore.line()));
            String iam = target instanceof LocalSmokeTarget local ? " " + local.iamFields() : "";
            context.out().println(result.resultLine() + " " + StageRestore.resultFields(restores) + iam);
            if (!result.ok()) {
                context.err()
                        .println("sluice: smoke failed for " + name + ": "
                                + (result.reconciliation().problems().isEmpty()
                                        ? "not every event reached its targets within " + timeoutSeconds + " s"
                                        : result.reconciliation().problems().get(0)));
                return 1;
            }
            return 0;
        }
    }

    private void summary(SmokeRun.Result r) {
        var c = r.reconciliation();
        context.out().println();
        context.out()
                .printf(Locale.ROOT, "Put %d valid and %d invalid events; read back as:%n", r.valid(), r.invalid());
        r.readers().entrySet().stream()
                .sorted(java.util.Map.Entry.comparingByKey())
                .forEach(e -> context.out()
                        .printf(
                                Locale.ROOT,
                                "  %-40s %s%n",
                                e.getKey(),
                                e.getValue().yamlName()));
        line("lake", r.lakeChecked(), c.lake(), r.valid(), "valid events once in the lake");
        line("table", r.tableChecked(), c.table(), r.valid(), "valid events once in the serving table");
        line(
                "aggregated",
                r.aggregateChecked(),
                c.aggregated(),
                r.valid(),
                "valid events counted once in the aggregate");
        line(
                "dead-lettered",
                true,
                c.deadLettered(),
                r.invalid(),
                "invalid records in the dead-letter queue, each with" + " its expected reason code");
        context.out()
                .printf(
                        Locale.ROOT,
                        "  lost %d, duplicates %d, unexpected %d%n",
                        c.lost(),
                        c.duplicates(),
                        c.unexpected());
        c.problems().forEach(p -> context.out().println("  ! " + p));
        context.out()
                .println(
                        r.ok()
                                ? "The deployed pipeline works: every event took effect once where it belongs."
                                : "SMOKE FAILED: see the problems above.");
    }

    private void line(String what, boolean checked, long found, long expected, String meaning) {
        if (checked) {
            context.out().printf(Locale.ROOT, "  %-14s %3d of %3d  %s%n", what, found, expected, meaning);
        } else {
            context.out().printf(Locale.ROOT, "  %-14s n/a         the pipeline has none%n", what);
        }
    }
}
