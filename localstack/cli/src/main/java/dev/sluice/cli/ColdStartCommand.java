package dev.sluice.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.bench.handler.AwsStub;
import dev.sluice.bench.handler.HandWrittenHandler;
import dev.sluice.bench.handler.HandlerWorkload;
import dev.sluice.cli.coldstart.ColdStart;
import dev.sluice.cli.coldstart.MinimalHandler;
import dev.sluice.core.definition.EnvironmentNames;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.definition.SinkDefinition;
import dev.sluice.core.definition.StageDefinition;
import dev.sluice.generators.GeneratedEvent;
import dev.sluice.generators.PaymentGenerator;
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
import java.util.function.ToDoubleFunction;
import java.util.stream.Stream;

/**
 * {@code ./sluice bench coldstart}: the payments stage's cold start as Lambda's Java runtime would
 * see it — a fresh JVM per run, the deployment zip as the task root, the runtime interface client
 * loading the handler, one Kinesis event of valid payments — next to, in the same run and started
 * the same way: the hand-written handler ({@link HandWrittenHandler}, the AWS docs / Powertools way,
 * from its own zip built like the stage's: same SDK clients, same HTTP client) and a handler that
 * does nothing. Sluice and the hand-written handler work against one loopback AWS stub ({@link
 * AwsStub}) in this process, each with its own resource names, so that no emulator's CPU is in
 * either figure; after each run the command checks that the handler wrote every state item.
 */
final class ColdStartCommand implements Command {

    static final String PIPELINE = "payments";
    static final String STAGE = "validate";

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
                        + " against a hand-written handler and one that does nothing");
    }

    @Override
    public Set<String> options() {
        return Set.of("runs", "events");
    }

    /** One handler's measured starts and the zip it started from. */
    private record Measured(List<ColdStart.Sample> samples, long zipBytes) {
        double median(ToDoubleFunction<ColdStart.Sample> figure) {
            return ColdStart.median(
                    samples.stream().map(s -> figure.applyAsDouble(s)).toList());
        }

        long classes() {
            return Math.round(median(s -> (double) s.classesLoaded()));
        }
    }

    @Override
    public int run(Arguments args) throws Exception {
        int runs = args.positiveInt("runs", 5, 50);
        int events = args.positiveInt("events", 100, 10_000);
        Path sluiceZip = lambdaZip(context.root());
        Path naiveZip = handWrittenZip(context.root());
        Path pipelineFile = context.root().resolve("pipelines").resolve(PIPELINE + ".yaml");
        PipelineDefinition pipeline = context.loader().loadAll(context.root().resolve("pipelines")).stream()
                .filter(p -> p.pipeline().equals(PIPELINE))
                .findFirst()
                .orElseThrow(() -> new UsageException("no pipeline '" + PIPELINE + "' in pipelines/"));
        StageDefinition stage = pipeline.stage(STAGE);
        Path work = Files.createTempDirectory("sluice-coldstart");
        Path sluiceRoot = ColdStart.unzip(sluiceZip, work.resolve("task"));
        Path naiveRoot = ColdStart.unzip(naiveZip, work.resolve("handwritten-task"));
        Path minimalRoot = ColdStart.minimalTaskRoot(work.resolve("minimal-task"));
        ColdStart coldStart = new ColdStart(
                Path.of(System.getProperty("java.home"), "bin", "java"),
                ColdStart.runtimeClasspath(),
                context.root().resolve("localstack/.run/logs/coldstart"));
        int memory = stage.function().memoryMb();
        context.out()
                .printf(
                        "cold start: %d runs each, %d payments per batch; zips %s (%,d bytes), %s (%,d bytes);"
                                + " AWS: a loopback stub in this process%n",
                        runs,
                        events,
                        context.root().relativize(sluiceZip),
                        Files.size(sluiceZip),
                        context.root().relativize(naiveZip),
                        Files.size(naiveZip));
        Measured sluice = new Measured(new ArrayList<>(), Files.size(sluiceZip));
        Measured naive = new Measured(new ArrayList<>(), Files.size(naiveZip));
        Measured minimal = new Measured(new ArrayList<>(), 0);
        try (AwsStub stub = new AwsStub()) {
            Map<String, String> sluiceEnv =
                    HandlerWorkload.environment("sluice-", pipeline, STAGE, pipelineFile, stub.endpoint());
            Map<String, String> naiveEnv =
                    HandlerWorkload.environment("handwritten-", pipeline, STAGE, pipelineFile, stub.endpoint());
            HandlerWorkload.provision(stub, pipeline, stage, List.of(sluiceEnv, naiveEnv));
            String arn = "arn:aws:lambda:" + AwsStub.REGION + ":" + AwsStub.ACCOUNT + ":function:" + PIPELINE + "-"
                    + STAGE + ":live";
            String streamArn = streamArn(stage);
            ColdStart.Function function = new ColdStart.Function(
                    PIPELINE + "-" + STAGE, stage.handler() + "::handleRequest", sluiceRoot, sluiceEnv, memory);
            ColdStart.Function handWritten = new ColdStart.Function(
                    "handwritten-" + STAGE,
                    HandWrittenHandler.class.getName() + "::handleRequest",
                    naiveRoot,
                    naiveEnv,
                    memory);
            ColdStart.Function baseline =
                    new ColdStart.Function("minimal", MinimalHandler.class.getName(), minimalRoot, Map.of(), memory);
            // one unmeasured start of each first: the page cache then holds the jars for every run
            String warmEvent = event(context.mapper(), events, 0, streamArn);
            coldStart.run(baseline, warmEvent, arn, "warmup-minimal");
            check(stub, sluiceEnv, stage, events, coldStart.run(function, warmEvent, arn, "warmup-sluice"));
            check(stub, naiveEnv, stage, events, coldStart.run(handWritten, warmEvent, arn, "warmup-handwritten"));
            for (int run = 1; run <= runs; run++) {
                String event = event(context.mapper(), events, run, streamArn);
                // interleaved, so that load on the machine falls on all three alike
                minimal.samples().add(coldStart.run(baseline, event, arn, "minimal-" + run));
                sluice.samples()
                        .add(check(
                                stub,
                                sluiceEnv,
                                stage,
                                events * (run + 1),
                                coldStart.run(function, event, arn, "sluice-" + run)));
                naive.samples()
                        .add(check(
                                stub,
                                naiveEnv,
                                stage,
                                events * (run + 1),
                                coldStart.run(handWritten, event, arn, "handwritten-" + run)));
                context.out()
                        .printf(
                                "  run %d: sluice init %.0f ms, first batch %.0f ms; hand-written init %.0f ms,"
                                        + " first batch %.0f ms; minimal init %.0f ms%n",
                                run,
                                sluice.samples().get(run - 1).initMs(),
                                sluice.samples().get(run - 1).firstBatchMs(),
                                naive.samples().get(run - 1).initMs(),
                                naive.samples().get(run - 1).firstBatchMs(),
                                minimal.samples().get(run - 1).initMs());
            }
        }
        report(sluice, naive, minimal);
        return 0;
    }

    private void report(Measured sluice, Measured naive, Measured minimal) {
        double init = sluice.median(ColdStart.Sample::initMs);
        double firstBatch = sluice.median(ColdStart.Sample::firstBatchMs);
        double naiveInit = naive.median(ColdStart.Sample::initMs);
        double naiveFirst = naive.median(ColdStart.Sample::firstBatchMs);
        double minimalInit = minimal.median(ColdStart.Sample::initMs);
        double minimalFirst = minimal.median(ColdStart.Sample::firstBatchMs);
        double ratioInit = init / naiveInit;
        double ratioFirst = firstBatch / naiveFirst;
        double zipRatio = (double) sluice.zipBytes() / naive.zipBytes();
        String row = "%-28s %10.0f %16.0f %16d %14d%n";
        context.out().println();
        context.out()
                .printf(
                        "%-28s %10s %16s %16s %14s%n",
                        "handler (p50)", "init ms", "first batch ms", "classes loaded", "zip bytes");
        context.out().printf(row, "payments/validate (Sluice)", init, firstBatch, sluice.classes(), sluice.zipBytes());
        context.out()
                .printf(row, "hand-written (same clients)", naiveInit, naiveFirst, naive.classes(), naive.zipBytes());
        context.out()
                .printf(
                        "%-28s %10.0f %16.0f %16d %14s%n",
                        "minimal (does nothing)", minimalInit, minimalFirst, minimal.classes(), "(one class)");
        context.out()
                .printf(
                        Locale.ROOT,
                        "Sluice / hand-written: init %.2f, first batch %.2f, zip %.2f (goal ≤ 1.2 each)%n",
                        ratioInit,
                        ratioFirst,
                        zipRatio);
        context.out().printf(Locale.ROOT, "Sluice init / minimal init: %.2f%n", init / minimalInit);
        context.out()
                .println(String.format(
                        Locale.ROOT,
                        "RESULT init_ms_p50=%.0f first_batch_ms_p50=%.0f minimal_init_ms_p50=%.0f"
                                + " minimal_first_batch_ms_p50=%.0f ratio=%.2f zip_bytes=%d classes_loaded=%d"
                                + " minimal_classes_loaded=%d runs=%d ratio_init=%.2f ratio_first_batch=%.2f"
                                + " zip_ratio=%.2f naive_init_ms=%.0f naive_first_batch_ms=%.0f naive_zip_bytes=%d"
                                + " naive_classes_loaded=%d",
                        init,
                        firstBatch,
                        minimalInit,
                        minimalFirst,
                        init / minimalInit,
                        sluice.zipBytes(),
                        sluice.classes(),
                        minimal.classes(),
                        sluice.samples().size(),
                        ratioInit,
                        ratioFirst,
                        zipRatio,
                        naiveInit,
                        naiveFirst,
                        naive.zipBytes(),
                        naive.classes()));
    }

    /**
     * A processed batch answers no failures, and the stage's tables hold an item per event so far
     * (the payments stage writes one per event id): anything else means the handler did not do the work.
     */
    private ColdStart.Sample check(
            AwsStub stub, Map<String, String> env, StageDefinition stage, int expectedItems, ColdStart.Sample sample)
            throws IOException {
        if (!context.mapper()
                .readTree(sample.response())
                .path("batchItemFailures")
                .isEmpty()) {
            throw new IllegalStateException("the handler did not process the whole batch: " + sample.response());
        }
        for (SinkDefinition sink : stage.sinks()) {
            if (sink.kind() == SinkDefinition.Kind.TABLE) {
                String table = env.get(EnvironmentNames.table(sink.table()));
                int items = stub.items(table).size();
                if (items != expectedItems) {
                    throw new IllegalStateException(
                            table + " holds " + items + " items after the run, not " + expectedItems);
                }
            }
        }
        return sample;
    }

    /** The input stream's ARN as the stub's account and region would have it. */
    static String streamArn(StageDefinition stage) {
        return "arn:aws:kinesis:" + AwsStub.REGION + ":" + AwsStub.ACCOUNT + ":stream/" + stage.input();
    }

    /** {@code events} valid payments as one Kinesis event, new ids and positions per run. */
    static String event(ObjectMapper mapper, int events, int run, String streamArn) {
        PaymentGenerator generator = new PaymentGenerator(7_000L + run, 10_000, 0.0, Instant.now());
        ObjectNode event = mapper.createObjectNode();
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

    /** The stage's deployment zip {@code ./mvnw package} built. */
    static Path lambdaZip(Path root) throws IOException {
        return zip(root, "functions/lambda", "sluice-lambda");
    }

    /** The hand-written handler's deployment zip {@code ./mvnw package} built (load-tests/handler-baseline). */
    static Path handWrittenZip(Path root) throws IOException {
        return zip(root, "load-tests/handler-baseline", "sluice-handler-baseline");
    }

    private static Path zip(Path root, String module, String artifact) throws IOException {
        Path target = root.resolve(module).resolve("target");
        if (Files.isDirectory(target)) {
            try (Stream<Path> files = Files.list(target)) {
                var zip = files.filter(p -> p.getFileName().toString().matches(artifact + "-.*-lambda\\.zip"))
                        .findFirst();
                if (zip.isPresent()) {
                    return zip.get();
                }
            }
        }
        throw new UsageException("no Lambda deployment zip in " + module + "/target: build it with"
                + " ./mvnw -B -DskipTests package -pl " + module + " -am");
    }
}
