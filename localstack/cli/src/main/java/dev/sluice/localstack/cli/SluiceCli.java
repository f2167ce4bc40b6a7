package dev.sluice.localstack.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.core.definition.DefinitionException;
import dev.sluice.core.definition.DefinitionLoader;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.definition.SinkDefinition;
import dev.sluice.core.definition.StageDefinition;
import dev.sluice.emulators.LocalAws;
import dev.sluice.emulators.LocalAwsOptions;
import dev.sluice.generators.GeneratedEvent;
import dev.sluice.generators.PaymentGenerator;
import dev.sluice.localstack.LocalDefinitions;
import dev.sluice.localstack.LocalPipeline;
import dev.sluice.localstack.esm.LocalEventSourceMapping;
import dev.sluice.localstack.faults.FaultScenario;
import dev.sluice.localstack.faults.FaultSuite;
import dev.sluice.localstack.faults.KclFaultSuite;
import dev.sluice.localstack.reconcile.AggregateCheck;
import dev.sluice.localstack.reconcile.ClickstreamDemo;
import dev.sluice.localstack.reconcile.LedgerEntry;
import dev.sluice.localstack.reconcile.Producer;
import dev.sluice.localstack.reconcile.Reconciler;
import dev.sluice.localstack.reconcile.Reconciliation;
import dev.sluice.planner.CapacityPlanner;
import dev.sluice.planner.PlanInputs;
import dev.sluice.planner.PlanReport;
import dev.sluice.planner.PriceTable;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Collectors;

/**
 * The {@code ./sluice} launcher: {@code demo}, {@code faults}, {@code up} and {@code invoke} on the local stack;
 * {@code plan}, the capacity planner, needs none of it.
 */
public final class SluiceCli {

    static final String USAGE = """
            usage: ./sluice <command> [options]
              demo [--events N] [--seed S]   run payments end to end on local AWS and reconcile (default 10,000 events)
              faults [--scenario NAME] [--events N]
                                             run the fault suite on payments (and KCL workers) and reconcile every scenario (default 1,000 events each)
              load --pipeline payments|clickstream|FILE [--rate R] [--duration D] [--day] [--aws] [--seed S]
                   [--invalid-share F] [--stream NAME] [--reports DIR]
                                             steady-rate load, latency, requests and cost per million events; writes
                                             load-tests/reports/<time>/report.html and report.json (default 100/s, 30 s)
              up [--workers N]               start local AWS with every pipeline deployed (N local KCL workers per KCL stage, default 1); stop with Ctrl-C
              invoke --event FILE [--pipeline P] [--stage S]
                                             run a stage's handler once on a Kinesis event JSON file
              plan --example payments|clickstream | --users N --events-per-day X --record-bytes B --retention-days D
                   [--peak-events-per-day Y] [--stream-retention-hours H] [--fan-out-consumers C] [--headroom F]
                   [--parallelization P] [--leases-per-worker L] [--target-latency-ms T] [--compression R]
                   [--batch-size N] [--lambda-memory-mb M] [--lambda-ms-per-batch MS] [--price-table FILE]
                                             capacity plan and monthly AWS cost (see load-tests/planner/README.md)""";

    /**
     * The most events {@code demo} and {@code faults} produce: the producer's ledger of every event
     * is held in memory to reconcile against, and the local stack drains a few hundred a second.
     */
    static final int MAX_EVENTS = 100_000;

    private final Path root;
    private final PrintStream out;
    private final PrintStream err;
    private final ObjectMapper mapper = new ObjectMapper();

    SluiceCli(Path root, PrintStream out, PrintStream err) {
        this.root = root;
        this.out = out;
        this.err = err;
    }

    public static void main(String[] args) {
        Path root =
                Path.of(System.getProperty("sluice.root", ".")).toAbsolutePath().normalize();
        int status = new SluiceCli(root, System.out, System.err).run(List.of(args));
        System.out.flush();
        System.exit(status);
    }

    int run(List<String> args) {
        try {
            if (args.isEmpty()) {
                throw new UsageException("no command given");
            }
            String command = args.get(0);
            List<String> rest = args.subList(1, args.size());
            return switch (command) {
                case "demo" -> demo(new Arguments(command, rest, Set.of("events", "seed"), Set.of()));
                case "faults" -> faults(new Arguments(command, rest, Set.of("scenario", "events"), Set.of()));
                case "up" -> up(new Arguments(command, rest, Set.of("workers"), Set.of()));
                case "invoke" -> invoke(new Arguments(command, rest, Set.of("event", "pipeline", "stage"), Set.of()));
                case "plan" -> plan(new Arguments(command, rest, PLAN_OPTIONS, Set.of()));
                case "load" ->
                    new LoadCommand(root, out, err)
                            .run(new Arguments(command, rest, LoadCommand.OPTIONS, LoadCommand.FLAGS));
                case "help", "--help", "-h" -> {
                    out.println(USAGE);
                    yield 0;
                }
                default -> throw new UsageException("unknown command '" + command + "'");
            };
        } catch (UsageException e) {
            err.println("sluice: " + e.getMessage());
            err.println(USAGE);
            return 2;
        } catch (DefinitionException e) {
            err.println("sluice: " + e.getMessage());
            return 1;
        } catch (RuntimeException e) {
            err.println("sluice: " + e.getMessage());
            return 1;
        }
    }

    // plan

    private static final Set<String> PLAN_OPTIONS = Set.of(
            "example",
            "users",
            "events-per-day",
            "peak-events-per-day",
            "record-bytes",
            "retention-days",
            "stream-retention-hours",
            "fan-out-consumers",
            "headroom",
            "parallelization",
            "leases-per-worker",
            "target-latency-ms",
            "compression",
            "batch-size",
            "lambda-memory-mb",
            "lambda-ms-per-batch",
            "price-table");

    private int plan(Arguments args) {
        String example = args.get("example");
        PlanInputs.Builder inputs;
        if (example != null) {
            if (!PlanInputs.EXAMPLES.contains(example)) {
                throw new UsageException("unknown example '" + example + "' for 'plan' (known: "
                        + String.join(", ", PlanInputs.EXAMPLES) + ")");
            }
            inputs = PlanInputs.example(example);
        } else {
            for (String required : List.of("users", "events-per-day", "record-bytes", "retention-days")) {
                if (args.get(required) == null) {
                    throw new UsageException(
                            "plan needs --" + required + " (or --example payments, --example clickstream)");
                }
            }
            inputs = PlanInputs.builder();
        }
        if (args.get("users") != null) {
            inputs.users(args.positiveLong("users", 1));
        }
        if (args.get("events-per-day") != null) {
            inputs.eventsPerDay(args.number("events-per-day", 1, true));
        }
        if (args.get("peak-events-per-day") != null) {
            inputs.peakEventsPerDay(args.number("peak-events-per-day", 1, true));
        }
        if (args.get("record-bytes") != null) {
            inputs.recordBytes(args.positiveInt("record-bytes", 1));
        }
        if (args.get("retention-days") != null) {
            inputs.retentionDays(args.positiveInt("retention-days", 1));
        }
        inputs.streamRetentionHours(args.positiveInt("stream-retention-hours", 24))
                .fanOutConsumers(args.positiveInt("fan-out-consumers", 1))
                .headroom(args.number("headroom", 0.25, false))
                .parallelization(args.positiveInt("parallelization", 1))
                .leasesPerWorker(args.positiveInt("leases-per-worker", 8))
                .targetLatencyMs(args.positiveLong("target-latency-ms", 2_000))
                .compression(args.number("compression", 0.2, true))
                .batchSize(args.positiveInt("batch-size", 100))
                .lambdaMemoryMb(args.positiveInt("lambda-memory-mb", 1024))
                .lambdaMsPerBatch(args.positiveInt("lambda-ms-per-batch", 200));
        PlanInputs planInputs;
        try {
            planInputs = inputs.build();
        } catch (IllegalArgumentException e) {
            throw new UsageException("plan: " + e.getMessage());
        }
        String table = args.get("price-table");
        PriceTable prices = table == null ? PriceTable.bundled() : PriceTable.load(priceTablePath(table));
        PlanReport.lines(CapacityPlanner.plan(planInputs, prices)).forEach(out::println);
        return 0;
    }

    private Path priceTablePath(String value) {
        Path path = Path.of(value);
        return path.isAbsolute() || Files.exists(path) ? path : root.resolve(value);
    }

    // demo

    /** One line: the template a pipeline was provisioned from and what it gave locally. */
    private static String provisioned(LocalPipeline pipeline) {
        var resources = pipeline.resources();
        return String.format(
                Locale.ROOT,
                "provisioned from the synthesized CDK template %s: %d resources locally (streams %s, tables %s,"
                        + " queues %s, functions %s), the rest AWS-only",
                resources.stackName(),
                resources.provisioned().size(),
                resources.streams().values(),
                resources.tables().values(),
                resources.queueUrls().keySet(),
                resources.functions().keySet());
    }

    private int demo(Arguments args) {
        int events = args.positiveInt("events", 10_000, MAX_EVENTS);
        long seed = args.longValue("seed", 20_261_130L);
        long started = System.nanoTime();
        PipelineDefinition payments = loader().load(root.resolve("pipelines/payments.yaml"));
        String stageName = payments.stages().keySet().iterator().next();
        StageDefinition stage = payments.stage(stageName);
        out.printf(
                Locale.ROOT,
                "Sluice demo: %,d card payments through pipelines/payments.yaml, stage '%s', on local AWS"
                        + " (no Docker, no AWS account)%n",
                events,
                stageName);

        try (LocalAws aws = LocalAws.start(options())) {
            out.printf(
                    Locale.ROOT,
                    "local AWS ready in %,d ms: kinesis-mock %s, dynalite %s, s3proxy %s, ElasticMQ %s%n",
                    aws.stackStartupMillis(),
                    aws.kinesisEndpoint(),
                    aws.dynamoDbEndpoint(),
                    aws.s3Endpoint(),
                    aws.sqsEndpoint());
            try (LocalPipeline pipeline =
                    LocalPipeline.provision(aws, payments, null, root).start()) {
                out.println(provisioned(pipeline));
                String stream = pipeline.resources().streams().get(stage.input());
                PaymentGenerator generator = new PaymentGenerator(
                        seed, 1_000_000, 0.005, Instant.now().minusMillis(events * 250L));
                List<GeneratedEvent> generated = new ArrayList<>(events);
                for (int i = 0; i < events; i++) {
                    generated.add(generator.next());
                }
                Progress producing = new Progress(out, "producing", events);
                List<LedgerEntry> ledger = new Producer(aws.kinesis(), stream).send(generated, producing::update);
                producing.finish(ledger.size());

                Progress consuming = new Progress(out, "consuming", events);
                pipeline.awaitAcknowledged(ledger.size(), Duration.ofMinutes(2), consuming::update);
                consuming.finish(pipeline.acknowledged());

                Reconciliation result = reconcile(aws, pipeline, stage, ledger);
                summary(pipeline, stage, ledger, result);
                ClickstreamDemo.Result clicks = clickstream(aws, Math.max(100, Math.min(2_000, events / 5)));
                double seconds = (System.nanoTime() - started) / 1e9;
                out.printf(
                        Locale.ROOT,
                        "RESULT produced=%d lake=%d table=%d aggregated=%d dead_lettered=%d late=%d lost=%d"
                                + " duplicates=%d kcl_counted=%d kcl_lost=%d kcl_duplicates=%d seconds=%.1f%n",
                        result.produced(),
                        result.lake(),
                        result.table(),
                        result.aggregated(),
                        result.deadLettered(),
                        result.late(),
                        result.lost(),
                        result.duplicates(),
                        clicks.counted(),
                        clicks.lost(),
                        clicks.duplicates(),
                        seconds);
                return result.reconciled() && clicks.reconciled() ? 0 : 1;
            }
        }
    }

    /**
     * The clickstream pipeline's KCL stage ({@code page-counts}) behind its Lambda stage: human page
     * views counted once per page per minute by a local KCL worker.
     */
    private ClickstreamDemo.Result clickstream(LocalAws aws, int clicks) {
        PipelineDefinition clickstream = loader().load(root.resolve("pipelines/clickstream.yaml"));
        out.println();
        out.printf(
                Locale.ROOT,
                "Clickstream: %,d page views through pipelines/clickstream.yaml: mask-and-rekey (Lambda) then"
                        + " page-counts (KCL worker)%n",
                clicks);
        Progress counting = new Progress(out, "counting", clicks - clicks / 10); // a tenth are bots
        ClickstreamDemo.Result r = ClickstreamDemo.run(aws, clickstream, root, clicks, 1, counting::update);
        counting.finish(r.counted());
        out.printf(
                Locale.ROOT,
                "  produced %,d (%,d from bots, filtered), counted %,d of %,d human views in page-views-per-minute by"
                        + " %d KCL worker(s); lost %d, duplicates %d%n",
                r.clicks(),
                r.bots(),
                r.counted(),
                r.expected(),
                r.workers(),
                r.lost(),
                r.duplicates());
        out.println(
                r.reconciled()
                        ? "Every human view was counted exactly once by the KCL stage."
                        : "NOT RECONCILED: the KCL stage's counts differ from the ledger.");
        return r;
    }

    private static Reconciliation reconcile(
            LocalAws aws, LocalPipeline pipeline, StageDefinition stage, List<LedgerEntry> ledger) {
        return new Reconciler(aws.s3(), aws.dynamoDb(), aws.sqs()).reconcile(ledger, pipeline.resources(), stage);
    }

    private static String sink(StageDefinition stage, SinkDefinition.Kind kind) {
        return Reconciler.sink(stage, kind);
    }

    private void summary(LocalPipeline pipeline, StageDefinition stage, List<LedgerEntry> ledger, Reconciliation r) {
        Map<String, Long> reasons = ledger.stream()
                .filter(e -> !e.event().valid())
                .collect(Collectors.groupingBy(e -> e.event().expectedReason(), TreeMap::new, Collectors.counting()));
        var resources = pipeline.resources();
        LocalEventSourceMapping.Stats stats =
                pipeline.mappings().values().iterator().next().stats();
        out.println();
        out.println("Reconciliation of the producer's ledger against every target");
        out.printf(
                Locale.ROOT,
                "  produced       %,8d  into stream %s%n",
                r.produced(),
                resources.streams().get(stage.input()));
        out.printf(
                Locale.ROOT,
                "  lake           %,8d  records in s3://%s/%s%n",
                r.lake(),
                resources.bucket(),
                resources
                        .definition()
                        .lakes()
                        .get(sink(stage, SinkDefinition.Kind.LAKE))
                        .prefix());
        out.printf(
                Locale.ROOT,
                "  table          %,8d  items in %s%n",
                r.table(),
                resources.tables().get(sink(stage, SinkDefinition.Kind.TABLE)));
        AggregateCheck.of(stage, resources.tables())
                .ifPresent(aggregate -> out.printf(
                        Locale.ROOT,
                        "  aggregated     %,8d  events counted in %s (aggregate %s by %s, %s windows)%n",
                        r.aggregated(),
                        aggregate.table(),
                        aggregate.aggregate(),
                        aggregate.keyField(),
                        aggregate.window()));
        out.printf(
                Locale.ROOT,
                "  dead-lettered  %,8d  in %s %s%n",
                r.deadLettered(),
                stage.failure().deadLetterQueue(),
                reasons);
        if (r.late() > 0) {
            out.printf(
                    Locale.ROOT,
                    "  late           %,8d  valid events reported LATE (left out of the aggregate, still in the"
                            + " lake and the table)%n",
                    r.late());
        }
        out.printf(Locale.ROOT, "  lost %d, duplicates %d, unexpected %d%n", r.lost(), r.duplicates(), r.unexpected());
        out.printf(
                Locale.ROOT,
                "  invocations %,d, records invoked %,d, retries %,d%n",
                stats.invocations(),
                stats.recordsInvoked(),
                stats.retries());
        r.problems().forEach(p -> out.println("  ! " + p));
        out.println(
                r.reconciled()
                        ? "Every event took effect exactly once: in the lake, the table and the aggregate, or in the"
                                + " dead-letter queue."
                        : "NOT RECONCILED: see the problems above.");
    }

    // faults

    private int faults(Arguments args) {
        int events = args.positiveInt("events", 1_000, MAX_EVENTS);
        List<FaultScenario> all = FaultSuite.scenarios(events);
        String only = args.get("scenario");
        List<FaultScenario> chosen = only == null
                ? all
                : all.stream().filter(s -> s.name().equals(only)).toList();
        List<String> kclChosen = only == null
                ? KclFaultSuite.scenarios()
                : KclFaultSuite.scenarios().stream().filter(only::equals).toList();
        if (chosen.isEmpty() && kclChosen.isEmpty()) {
            throw new UsageException("unknown scenario '" + only + "' (one of: "
                    + all.stream().map(FaultScenario::name).collect(Collectors.joining(", ")) + ", "
                    + String.join(", ", KclFaultSuite.scenarios()) + ")");
        }
        PipelineDefinition payments = loader().load(root.resolve("pipelines/payments.yaml"));
        out.printf(
                Locale.ROOT,
                "Sluice fault suite: %d scenario(s) × %,d payments through pipelines/payments.yaml on local AWS%n",
                chosen.size(),
                events);
        Path work = root.resolve("localstack/.run/faults");
        List<FaultSuite.Row> rows = new ArrayList<>();
        Map<String, Double> takeovers = new java.util.LinkedHashMap<>();
        try {
            java.nio.file.Files.createDirectories(work);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("cannot create " + work, e);
        }
        LocalAwsOptions options = options().toBuilder()
                .kinesisDataDirectory(
                        work.resolve("kinesis-" + ProcessHandle.current().pid()))
                .build();
        try (LocalAws aws = LocalAws.start(options)) {
            FaultSuite suite = new FaultSuite(aws, payments, root, work);
            for (FaultScenario scenario : chosen) {
                out.printf(Locale.ROOT, "  running %-24s %s …%n", scenario.name(), scenario.description());
                FaultSuite.Row row = suite.run(scenario);
                rows.add(row);
                printOutcome(row);
            }
            KclFaultSuite kclSuite = new KclFaultSuite(aws, root);
            if (!kclChosen.isEmpty() && !kclSuite.available()) {
                out.println(
                        "  KCL scenarios skipped: the KCL app is not built (./mvnw -B package -pl functions/kcl -am)");
            } else {
                for (String scenario : kclChosen) {
                    out.printf(Locale.ROOT, "  running %-24s %s …%n", scenario, KclFaultSuite.description(scenario));
                    KclFaultSuite.KclRow kclRow = kclSuite.run(scenario, Math.min(events, 600));
                    FaultSuite.Row row = kclRow.row();
                    rows.add(row);
                    kclRow.takeoverSeconds().ifPresent(t -> takeovers.put(scenario, t));
                    printOutcome(row);
                }
            }
        }
        faultTable(rows, takeovers);
        long lost = rows.stream().mapToLong(FaultSuite.Row::lost).sum();
        long duplicates =
                rows.stream().mapToLong(FaultSuite.Row::duplicateEffects).sum();
        long order = rows.stream().mapToLong(FaultSuite.Row::orderViolations).sum();
        long failed = rows.stream().filter(r -> !r.passed()).count();
        out.printf(
                Locale.ROOT,
                "RESULT scenarios=%d failed=%d events=%d lost=%d duplicate_effects=%d order_violations=%d"
                        + " faults_planned=%d faults_fired=%d kcl_takeover_seconds=%s%n",
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
                                .orElse("n/a"));
        return failed == 0 ? 0 : 1;
    }

    /** One scenario's outcome as it finishes: ok or FAIL, its time, and its problems. */
    private void printOutcome(FaultSuite.Row row) {
        out.printf(Locale.ROOT, "  %s %-24s %.1f s%n", row.passed() ? "ok  " : "FAIL", row.scenario(), row.seconds());
        row.problems().forEach(p -> out.println("       ! " + p));
    }

    private void faultTable(List<FaultSuite.Row> rows, Map<String, Double> takeovers) {
        out.println();
        String format = "%-24s %7s %10s %8s %8s %6s %5s %6s %6s %8s %9s %s%n";
        out.printf(
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
            out.printf(
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
        out.println();
        out.println("deliveries: records handed to the function, redeliveries included; effects: records that took"
                + " effect (valid ones in the lake, bad ones in the dead-letter queue); absorbed: duplicates the sinks"
                + " recognised (stage metrics); faults: fired/planned; takeover: seconds from a KCL worker's death to"
                + " its successor's first batch on one of its shards (kcl-* scenarios: the kclviews test pipeline,"
                + " effects in its table instead of a lake, order checked in its output stream)");
    }

    // up

    /** The lock of a running {@code up}, beside the endpoints file it writes. */
    static final String UP_LOCK = "localstack/.run/up.lock";

    private static final String ENDPOINTS = "localstack/.run/endpoints.json";

    private int up(Arguments args) {
        int workers = args.positiveInt("workers", 1, 10);
        // one instance at a time: a second would overwrite endpoints.json, which then points at dead
        // ports once either stops
        RunLock lock;
        try {
            lock = RunLock.acquire(root.resolve(UP_LOCK), UP_LOCK);
        } catch (RunLock.HeldException e) {
            err.println("sluice: " + e.getMessage());
            return 1;
        }
        Path file = root.resolve(ENDPOINTS);
        LocalAws aws;
        List<PipelineDefinition> pipelines;
        try {
            pipelines = loader().loadAll(root.resolve("pipelines"));
            aws = LocalAws.start(options());
        } catch (RuntimeException e) {
            lock.close();
            throw e;
        }
        List<LocalPipeline> running = new ArrayList<>();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            running.forEach(LocalPipeline::close);
                            aws.close();
                            try {
                                // its ports are closed now: no file may point at them
                                Files.deleteIfExists(file);
                            } catch (IOException e) {
                                // left for the next up to overwrite
                            }
                            lock.close();
                            stopped.countDown();
                        },
                        "sluice-up-shutdown"));
        ObjectNode endpoints = mapper.createObjectNode();
        endpoints.put("region", aws.region().id());
        endpoints.put("accessKeyId", LocalAws.ACCESS_KEY_ID);
        endpoints.put("secretAccessKey", LocalAws.SECRET_ACCESS_KEY);
        endpoints.put("kinesis", aws.kinesisEndpoint().toString());
        endpoints.put("dynamodb", aws.dynamoDbEndpoint().toString());
        endpoints.put("s3", aws.s3Endpoint().toString());
        endpoints.put("sqs", aws.sqsEndpoint().toString());
        ObjectNode perPipeline = endpoints.putObject("pipelines");
        for (PipelineDefinition definition : pipelines) {
            LocalPipeline pipeline = LocalPipeline.provision(aws, definition, null, root)
                    .withKclWorkers(workers, dev.sluice.localstack.kcl.KclTimings.LOCAL)
                    .start();
            running.add(pipeline);
            out.println(provisioned(pipeline));
            var resources = pipeline.resources();
            ObjectNode p = perPipeline.putObject(definition.pipeline());
            p.put("template", resources.stackName()); // provisioned from this stack's synthesized template
            p.set("streams", mapper.valueToTree(resources.streams()));
            p.set("tables", mapper.valueToTree(resources.tables()));
            p.put("bucket", resources.bucket());
            p.set("queues", mapper.valueToTree(resources.queueUrls()));
            Map<String, String> skipped = pipeline.notRunLocally();
            p.set(
                    "functions",
                    mapper.valueToTree(resources.functions().keySet().stream()
                            .filter(stage -> !skipped.containsKey(stage))
                            .map(pipeline::functionName)
                            .toList()));
            if (!resources.kclServices().isEmpty()) {
                ObjectNode services = p.putObject("kclServices");
                resources.kclServices().forEach((stage, service) -> {
                    ObjectNode s = services.putObject(stage);
                    s.put("workers", service.workers());
                    s.set("environment", mapper.valueToTree(service.environment()));
                });
            }
            if (!skipped.isEmpty()) {
                p.set("notRunLocally", mapper.valueToTree(skipped));
            }
            ObjectNode kcl = mapper.createObjectNode();
            definition.stages().forEach((name, stage) -> {
                if (stage.consumer() == dev.sluice.core.definition.ConsumerType.KCL && !skipped.containsKey(name)) {
                    var stageWorkers = pipeline.kclWorkers(name);
                    ObjectNode s = kcl.putObject(name);
                    s.put("leaseTable", stageWorkers.leaseTable());
                    s.set(
                            "workers",
                            mapper.valueToTree(stageWorkers.workers().stream()
                                    .map(Object::toString)
                                    .toList()));
                }
            });
            if (!kcl.isEmpty()) {
                p.set("kclWorkers", kcl);
            }
        }
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(
                    file, mapper.enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(endpoints) + "\n");
        } catch (IOException e) {
            throw new IllegalStateException("cannot write " + file + ": " + e.getMessage(), e);
        }
        out.printf(
                Locale.ROOT,
                "local AWS is up (%,d ms), pipelines deployed: %s%n",
                aws.stackStartupMillis(),
                pipelines.stream().map(PipelineDefinition::pipeline).toList());
        out.println(endpoints.toPrettyString());
        out.println("written to " + root.relativize(file));
        String firstStream = pipelines.isEmpty()
                ? "STREAM"
                : pipelines.get(0).streams().keySet().iterator().next();
        out.printf(
                Locale.ROOT,
                """
                Try it with the AWS CLI:
                  export AWS_ACCESS_KEY_ID=%s AWS_SECRET_ACCESS_KEY=%s AWS_DEFAULT_REGION=%s
                  aws --endpoint-url %s kinesis put-record --stream-name %s --partition-key k1 \\
                      --cli-binary-format raw-in-base64-out --data file://event.json
                Stop with Ctrl-C.%n""",
                LocalAws.ACCESS_KEY_ID,
                LocalAws.SECRET_ACCESS_KEY,
                aws.region().id(),
                aws.kinesisEndpoint(),
                firstStream);
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 0;
    }

    // invoke

    private int invoke(Arguments args) {
        String eventFile = args.get("event");
        if (eventFile == null) {
            throw new UsageException("invoke needs --event FILE");
        }
        String event;
        try {
            event = Files.readString(Path.of(eventFile), StandardCharsets.UTF_8);
            String problem = dev.sluice.localstack.esm.KinesisEventJson.problem(mapper.readTree(event));
            if (problem != null) {
                throw new UsageException(eventFile + " is not a Kinesis event: " + problem);
            }
        } catch (NoSuchFileException e) {
            throw new UsageException("no such file: " + eventFile);
        } catch (IOException e) {
            throw new UsageException(eventFile + " is not JSON: "
                    + e.getMessage().lines().findFirst().orElse(""));
        }
        List<PipelineDefinition> pipelines = loader().loadAll(root.resolve("pipelines"));
        PipelineDefinition pipeline = pick(pipelines, args.get("pipeline"));
        String stage = args.get("stage", pipeline.stages().keySet().iterator().next());
        if (!pipeline.stages().containsKey(stage)) {
            throw new UsageException("pipeline '" + pipeline.pipeline() + "' has no stage '" + stage + "' (stages: "
                    + pipeline.stages().keySet() + ")");
        }
        try (LocalAws aws = LocalAws.start(options());
                LocalPipeline local = LocalPipeline.provision(aws, pipeline, null, root)) {
            if (!local.resources().functions().containsKey(stage)) {
                throw new UsageException("stage '" + stage + "' of pipeline '" + pipeline.pipeline()
                        + "' has no Lambda function in its template (consumer "
                        + pipeline.stage(stage).consumer().yamlName() + "); invoke runs Lambda stages");
            }
            String response = local.function(stage).invoke(event);
            out.println(response);
            return 0;
        } catch (dev.sluice.localstack.esm.LocalFunction.FunctionError e) {
            err.println("sluice: function error: " + e.getMessage());
            return 1;
        }
    }

    private static PipelineDefinition pick(List<PipelineDefinition> pipelines, String name) {
        if (name == null) {
            if (pipelines.size() != 1) {
                throw new UsageException("several pipelines: choose one with --pipeline "
                        + pipelines.stream().map(PipelineDefinition::pipeline).toList());
            }
            return pipelines.get(0);
        }
        return pipelines.stream()
                .filter(p -> p.pipeline().equals(name))
                .findFirst()
                .orElseThrow(() -> new UsageException("no pipeline '" + name + "' in pipelines/ (pipelines: "
                        + pipelines.stream().map(PipelineDefinition::pipeline).toList() + ")"));
    }

    private DefinitionLoader loader() {
        return LocalDefinitions.loader(root);
    }

    private LocalAwsOptions options() {
        return LocalAwsOptions.builder()
                .localstackDirectory(root.resolve("localstack"))
                .logDirectory(root.resolve("localstack/.run/logs"))
                .build();
    }
}
