package dev.sluice.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.cli.coldstart.ColdStart;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.emulators.LocalAws;
import dev.sluice.generators.GeneratedEvent;
import dev.sluice.generators.PaymentGenerator;
import dev.sluice.local.LocalPipeline;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * {@code ./sluice bench coldstart}: the payments stage's cold start as Lambda's Java runtime would
 * see it — a fresh JVM per run, the deployment zip as the task root, the runtime interface client
 * loading the handler, one Kinesis event of valid payments against the local stack (IAM enforced as
 * usual) — next to a handler that does nothing, started the same way in the same run.
 */
final class ColdStartCommand implements Command {

    private final CliContext context;

    ColdStartCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public String name() {
        // the launcher sends ./sluice bench coldstart here (./sluice bench [core] runs JMH instead)
        return "bench";
    }

    @Override
    public String usage() {
        return String.join(
                "\n",
                "  bench coldstart [--runs N] [--events N]",
                "                                 cold start of the payments stage (fresh JVMs, Lambda's runtime client)"
                        + " against a handler that does nothing");
    }

    @Override
    public Set<String> options() {
        return Set.of("runs", "events");
    }

    @Override
    public int run(Arguments args) throws Exception {
        int runs = args.positiveInt("runs", 5, 50);
        int events = args.positiveInt("events", 100, 10_000);
        Path zip = lambdaZip(context.root());
        PipelineDefinition pipeline = context.loader().loadAll(context.root().resolve("pipelines")).stream()
                .filter(p -> p.pipeline().equals("payments"))
                .findFirst()
                .orElseThrow(() -> new UsageException("no pipeline 'payments' in pipelines/"));
        String stage = "validate";
        Path work = Files.createTempDirectory("sluice-coldstart");
        Path taskRoot = ColdStart.unzip(zip, work.resolve("task"));
        Path minimalRoot = ColdStart.minimalTaskRoot(work.resolve("minimal-task"));
        ColdStart coldStart = new ColdStart(
                Path.of(System.getProperty("java.home"), "bin", "java"),
                ColdStart.runtimeClasspath(),
                context.root().resolve("localstack/.run/logs/coldstart"));
        int memory = pipeline.stage(stage).function().memoryMb();
        context.out()
                .printf(
                        "cold start: %d runs each, %d payments per batch, zip %s (%,d bytes)%n",
                        runs, events, context.root().relativize(zip), Files.size(zip));
        List<ColdStart.Sample> sluice = new ArrayList<>();
        List<ColdStart.Sample> minimal = new ArrayList<>();
        try (LocalAws aws = LocalAws.start(context.options());
                LocalPipeline local = LocalPipeline.provision(aws, pipeline, null, null)) {
            String functionName = local.functionName(stage);
            String arn = "arn:aws:lambda:" + aws.region().id() + ":" + aws.accountId() + ":function:" + functionName
                    + ":live";
            String streamArn = "arn:aws:kinesis:" + aws.region().id() + ":" + aws.accountId() + ":stream/"
                    + local.resources().streams().get(pipeline.stage(stage).input());
            ColdStart.Function function = new ColdStart.Function(
                    functionName,
                    local.resources().functions().get(stage).handler(),
                    taskRoot,
                    local.functionEnvironment(stage),
                    memory);
            ColdStart.Function baseline = new ColdStart.Function(
                    "minimal", dev.sluice.cli.coldstart.MinimalHandler.class.getName(), minimalRoot, Map.of(), memory);
            // one unmeasured start of each first: the page cache then holds the jars for every run
            String warmEvent = event(events, 0, streamArn);
            coldStart.run(baseline, warmEvent, arn, "warmup-minimal");
            check(coldStart.run(function, warmEvent, arn, "warmup-sluice"));
            for (int run = 1; run <= runs; run++) {
                String event = event(events, run, streamArn);
                // interleaved, so that load on the machine falls on both alike
                minimal.add(coldStart.run(baseline, event, arn, "minimal-" + run));
                sluice.add(check(coldStart.run(function, event, arn, "sluice-" + run)));
                context.out()
                        .printf(
                                "  run %d: sluice init %.0f ms, first batch %.0f ms; minimal init %.0f ms%n",
                                run,
                                sluice.get(run - 1).initMs(),
                                sluice.get(run - 1).firstBatchMs(),
                                minimal.get(run - 1).initMs());
            }
        }
        report(sluice, minimal, Files.size(zip));
        return 0;
    }

    private void report(List<ColdStart.Sample> sluice, List<ColdStart.Sample> minimal, long zipBytes) {
        double init =
                ColdStart.median(sluice.stream().map(ColdStart.Sample::initMs).toList());
        double firstBatch = ColdStart.median(
                sluice.stream().map(ColdStart.Sample::firstBatchMs).toList());
        double minimalInit =
                ColdStart.median(minimal.stream().map(ColdStart.Sample::initMs).toList());
        double minimalFirst = ColdStart.median(
                minimal.stream().map(ColdStart.Sample::firstBatchMs).toList());
        long classes = Math.round(ColdStart.median(
                sluice.stream().map(s -> (double) s.classesLoaded()).toList()));
        long minimalClasses = Math.round(ColdStart.median(
                minimal.stream().map(s -> (double) s.classesLoaded()).toList()));
        context.out().println();
        context.out().printf("%-24s %12s %16s %16s%n", "handler (p50)", "init ms", "first batch ms", "classes loaded");
        context.out().printf("%-24s %12.0f %16.0f %16d%n", "payments/validate", init, firstBatch, classes);
        context.out()
                .printf(
                        "%-24s %12.0f %16.0f %16d%n",
                        "minimal (does nothing)", minimalInit, minimalFirst, minimalClasses);
        context.out().printf("ratio (init / minimal init): %.2f (target ≤ 1.5)%n", init / minimalInit);
        context.out()
                .println(String.format(
                        Locale.ROOT,
                        "RESULT init_ms_p50=%.0f first_batch_ms_p50=%.0f minimal_init_ms_p50=%.0f"
                                + " minimal_first_batch_ms_p50=%.0f ratio=%.2f zip_bytes=%d classes_loaded=%d"
                                + " minimal_classes_loaded=%d runs=%d",
                        init,
                        firstBatch,
                        minimalInit,
                        minimalFirst,
                        init / minimalInit,
                        zipBytes,
                        classes,
                        minimalClasses,
                        sluice.size()));
    }

    /** A processed batch answers no failures; anything else means the stage did not process it. */
    private ColdStart.Sample check(ColdStart.Sample sample) throws IOException {
        if (!context.mapper()
                .readTree(sample.response())
                .path("batchItemFailures")
                .isEmpty()) {
            throw new IllegalStateException("the stage did not process the whole batch: " + sample.response());
        }
        return sample;
    }

    /** {@code events} valid payments as one Kinesis event, new ids and positions per run. */
    String event(int events, int run, String streamArn) {
        PaymentGenerator generator = new PaymentGenerator(7_000L + run, 10_000, 0.0, Instant.now());
        ObjectNode event = context.mapper().createObjectNode();
        ArrayNode records = event.putArray("Records");
        String shard = "shardId-000000000000";
        BigDecimal arrival = BigDecimal.valueOf(System.currentTimeMillis(), 3);
        for (int i = 0; i < events; i++) {
            GeneratedEvent payment = generator.next();
            String sequence = String.format("49%06d%048d", run, i + 1);
            ObjectNode record = records.addObject();
            ObjectNode kinesis = record.putObject("kinesis");
            kinesis.put("kinesisSchemaVersion", "1.0");
            kinesis.put("partitionKey", payment.partitionKey());
            kinesis.put("sequenceNumber", sequence);
            kinesis.put("data", Base64.getEncoder().encodeToString(payment.data()));
            kinesis.put("approximateArrivalTimestamp", arrival);
            record.put("eventSource", "aws:kinesis");
            record.put("eventVersion", "1.0");
            record.put("eventID", shard + ":" + sequence);
            record.put("eventName", "aws:kinesis:record");
            record.put("awsRegion", streamArn.split(":")[3]);
            record.put("eventSourceARN", streamArn);
        }
        return event.toString();
    }

    /** The deployment zip {@code ./mvnw package} built. */
    static Path lambdaZip(Path root) throws IOException {
        Path target = root.resolve("functions/lambda/target");
        if (Files.isDirectory(target)) {
            try (Stream<Path> files = Files.list(target)) {
                var zip = files.filter(p -> p.getFileName().toString().matches("sluice-lambda-.*-lambda\\.zip"))
                        .findFirst();
                if (zip.isPresent()) {
                    return zip.get();
                }
            }
        }
        throw new UsageException("no Lambda deployment zip in functions/lambda/target: build it with"
                + " ./mvnw -B -DskipTests package -pl functions/lambda -am");
    }
}
