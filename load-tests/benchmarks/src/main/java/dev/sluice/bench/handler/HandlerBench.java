package dev.sluice.bench.handler;

import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.sluice.aws.StageRuntime;
import dev.sluice.core.definition.ConsumerType;
import dev.sluice.core.definition.DefinitionLoader;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.definition.StageDefinition;
import dev.sluice.core.schema.SchemaCatalog;
import dev.sluice.lambda.KinesisStageHandler;
import dev.sluice.planner.AwsBatchModel;
import dev.sluice.planner.AwsLatencyModel;
import dev.sluice.report.Report;
import dev.sluice.report.ReportWriter;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * {@code ./sluice bench handler}: a stage's real Lambda handler ({@link KinesisStageHandler}: chain,
 * sinks, lake ledger, de-duplication, dead-letter queue, the SDK v2 clients and their Apache 5 HTTP
 * client, wired from the environment as in AWS) and a hand-written handler doing the same work the
 * way the AWS docs and Powertools examples do ({@link HandWrittenHandler}), in this JVM, side by side,
 * against one loopback stub of the AWS APIs ({@link AwsStub}), driven with Kinesis events of the
 * stage's input at the definition's batch size.
 *
 * <p>A {@code consumer: kcl} stage is benched through its KCL record processor ({@link
 * KclStageTarget}: {@code StageRecordProcessor} wired as {@code KclWorker} wires it, fed KCL's
 * {@code ProcessRecordsInput} at KCL's maxRecords, checkpointing through KCL's {@code
 * ShardRecordProcessorCheckpointer} over a recording checkpointer) against the same hand-written
 * handler logic applied to the same batch, and modelled with {@link AwsBatchModel#kclCeiling}.
 *
 * <p>After a warm-up, rounds alternate between the handlers (one invocation at a time, as Lambda
 * runs one per shard). CPU: the CPU time of every thread of this JVM except the stub's ({@code
 * ThreadMXBean}: the handler thread, the sinks' and writers' pools, the SDK's and HTTP client's
 * threads), per event; the median of the rounds. Bytes: the same threads' allocated bytes, per
 * event. Also reported: process CPU (GC and JIT threads included) minus the stub's threads. Requests:
 * what the stub answered, per 1,000 events, by service and operation. The call graph: one batch with
 * a dead letter, recorded by an SDK interceptor while the stub delays every answer by {@value
 * #GRAPH_LATENCY_MILLIS} ms so that whatever can run concurrently does.
 *
 * <p>Ends with {@code RESULT cpu_us_per_event=… naive_cpu_us_per_event=… ratio=… bytes_per_event=…
 * naive_bytes_per_event=… requests_per_1000_<service>_<op>=… naive_requests_per_1000_…}; with
 * several stages every key is prefixed with the stage's name.
 */
public final class HandlerBench {

    static final String USAGE = "usage: ./sluice bench handler [--pipeline FILE] [--stage NAME] [--quick]";

    /** How long the stub delays each answer while a call graph is recorded. */
    static final long GRAPH_LATENCY_MILLIS = 5;

    static final String SLUICE = "sluice";
    static final String NAIVE = "hand-written";

    /** Events generated per stage and cycled (the stub's state of a handler is cleared at each wrap). */
    static final int EVENTS = 10_000;

    /**
     * What the command line asks for.
     *
     * @param warmupEvents events each handler handles before measuring
     * @param rounds measured rounds per handler (alternating)
     * @param eventsPerRound events per measured round
     */
    record Settings(
            Path pipeline,
            String stage,
            boolean quick,
            boolean help,
            int warmupEvents,
            int rounds,
            int eventsPerRound) {

        static Settings of(Path pipeline, String stage, boolean quick) {
            return quick
                    ? new Settings(pipeline, stage, true, false, 6_000, 4, 1_000)
                    : new Settings(pipeline, stage, false, false, 20_000, 9, 2_000);
        }
    }

    /** One handler's measured figures. */
    record Figures(
            String handler,
            double cpuMicrosPerEvent,
            double cpuMinMicros,
            double cpuMaxMicros,
            double processCpuMicrosPerEvent,
            double bytesPerEvent,
            double eventsPerSecond,
            Map<String, Double> requestsPer1000,
            List<String> initCalls,
            int lostThreads,
            int roundsRepeated,
            Map<String, Double> cpuShareByThreadGroup) {}

    /** One stage's result: both handlers' figures and call graphs. */
    record StageResult(
            String pipeline,
            String stage,
            ConsumerType consumer,
            double checkpointsPer1000,
            int batchSize,
            int eventsMeasuredPerHandler,
            Figures sluice,
            Figures naive,
            CallGraph sluiceGraph,
            CallGraph naiveGraph,
            Modelled model,
            Modelled naiveModel) {

        double ratio() {
            return sluice.cpuMicrosPerEvent() / naive.cpuMicrosPerEvent();
        }
    }

    /** Monte Carlo samples of the modelled batch duration. */
    static final int MODEL_SAMPLES = 20_000;

    /** The latency model's seed: the same call graph and CPU give the same modelled figures. */
    static final long MODEL_SEED = 29;

    /**
     * A stage's batch in AWS, modelled from the measured CPU and the recorded call graph ({@link
     * AwsBatchModel}; load-tests/README.md, "Modelled AWS ceiling").
     *
     * @param consumer Lambda or KCL
     * @param memoryMb the function's memory (its vCPU share scales the CPU); a KCL stage: 0
     * @param vcpu the vCPU the batch's CPU runs on (a function's share of its memory; a KCL task's)
     * @param parallelization the stage's parallelization factor (a KCL stage: 1, one batch a shard)
     * @param pollingConsumers stages of the definition polling the same stream (they share its read limits)
     * @param recordBytes mean bytes of a record of the benched batches
     * @param pollGapMillis between a batch's end and the next one's start on a busy shard: one GetRecords
     *     (a KCL stage: one GetRecords, prefetched while the batch runs)
     * @param idleBetweenReadsMillis a KCL stage: the fetcher's pause between two GetRecords of a shard
     */
    record Modelled(
            ConsumerType consumer,
            int memoryMb,
            double vcpu,
            double idleBetweenReadsMillis,
            int parallelization,
            int pollingConsumers,
            double recordBytes,
            double pollGapMillis,
            AwsBatchModel.Durations durations,
            AwsBatchModel.Ceiling ceiling) {}

    private HandlerBench() {}

    /**
     * KCL's pause between two GetRecords of a shard, as Sluice's worker sets it: {@code
     * sluice.kcl.idle-time-between-reads}, default 1 s (functions/kcl KclSettings; KclWorker passes it
     * to PollingConfig.idleTimeBetweenReadsInMillis). KCL's own default is 1,500 ms (the
     * PollingConfig(String, KinesisAsyncClient) constructor in amazon-kinesis-client 3.5.1, read
     * with javap); its maxRecords default is PollingConfig.DEFAULT_MAX_RECORDS = 10,000, which
     * KclWorker lowers to the stage's batch size.
     */
    static final double KCL_IDLE_BETWEEN_READS_MILLIS = 1_000;

    /**
     * The vCPU a KCL stage's batch runs on: the definition states no worker CPU, and infra-cdk's
     * KclStage deploys each worker as a Fargate task of 1,024 CPU units (1 vCPU) and 2,048 MiB.
     */
    static final double KCL_VCPU = 1.0;

    /** A KCL stage's records a batch: KCL's maxRecords, which KclWorker sets to the stage's batch size (≤ 10,000). */
    static int batchSize(StageDefinition stage) {
        return stage.consumer() == ConsumerType.KCL
                ? Math.min(
                        AwsBatchModel.GET_RECORDS_MAX_RECORDS, stage.batching().batchSize())
                : stage.batching().batchSize();
    }

    /** Models one handler's batch in AWS. */
    static Modelled model(
            PipelineDefinition definition,
            StageDefinition stage,
            CallGraph graph,
            double cpuMicrosPerEvent,
            double recordBytes) {
        boolean isKcl = stage.consumer() == ConsumerType.KCL;
        int memory = isKcl ? 0 : stage.function().memoryMb();
        int pf = isKcl ? 1 : stage.batching().parallelizationFactor();
        int consumers = (int) definition.stages().values().stream()
                .filter(s -> s.input().equals(stage.input()))
                .count();
        List<List<List<String>>> phases = new ArrayList<>();
        for (CallGraph.Phase phase : graph.phases()) {
            List<List<String>> lanes = new ArrayList<>();
            for (CallGraph.Lane lane : phase.lanes()) {
                lanes.add(lane.calls().stream()
                        .map(i -> graph.calls().get(i).name())
                        .toList());
            }
            phases.add(lanes);
        }
        if (isKcl) {
            // the checkpoint after the sinks: one conditional UpdateItem of the lease (KCL's
            // DynamoDBCheckpointer), counted by KclStageTarget but not sent to the stub
            phases.add(List.of(List.of("DYNAMODB UpdateItem")));
        }
        AwsLatencyModel latencies = new AwsLatencyModel(MODEL_SEED);
        double vcpu = isKcl ? KCL_VCPU : AwsBatchModel.vcpuShare(memory);
        double cpu = isKcl
                ? cpuMicrosPerEvent * graph.records() / 1000 / KCL_VCPU
                : AwsBatchModel.cpuMillis(cpuMicrosPerEvent, graph.records(), memory);
        AwsBatchModel.Durations d =
                AwsBatchModel.simulate(new AwsBatchModel.Graph(phases, 0), cpu, latencies, MODEL_SAMPLES);
        double gap = latencies.figure("KINESIS", "GetRecords").p50Millis();
        AwsBatchModel.Ceiling ceiling = isKcl
                ? AwsBatchModel.kclCeiling(
                        graph.records(), d.meanMillis(), KCL_IDLE_BETWEEN_READS_MILLIS, gap, recordBytes, consumers)
                : AwsBatchModel.lambdaCeiling(graph.records(), pf, d.meanMillis(), gap, recordBytes, consumers, false);
        return new Modelled(
                stage.consumer(),
                memory,
                vcpu,
                isKcl ? KCL_IDLE_BETWEEN_READS_MILLIS : 0,
                pf,
                consumers,
                recordBytes,
                gap,
                d,
                ceiling);
    }

    static double recordBytes(List<KinesisEvent> events) {
        long bytes = 0;
        long records = 0;
        for (KinesisEvent event : events.subList(0, Math.min(10, events.size()))) {
            for (KinesisEvent.KinesisEventRecord r : event.getRecords()) {
                bytes += r.getKinesis().getData().remaining();
                records++;
            }
        }
        return records == 0 ? 0 : (double) bytes / records;
    }

    public static void main(String[] args) {
        Settings settings;
        try {
            settings = parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("sluice bench handler: " + e.getMessage() + " (" + USAGE + ")");
            System.exit(2);
            return;
        }
        if (settings.help()) {
            System.out.println(USAGE);
            System.out.println("  --pipeline FILE  the definition (default: pipelines/payments.yaml of the checkout)");
            System.out.println("  --stage NAME     one stage (default: every stage of the definition, Lambda and KCL)");
            System.out.println("  --quick          a short run (fewer, shorter rounds); numbers are rough");
            return;
        }
        try {
            List<StageResult> results = run(settings, System.out);
            Path report = write(results, settings);
            System.out.println("report: " + report.resolve(ReportWriter.HTML));
            System.out.println(resultLine(results));
            System.exit(0);
        } catch (IllegalArgumentException e) {
            System.err.println("sluice bench handler: " + e.getMessage());
            System.exit(2);
        } catch (RuntimeException e) {
            System.err.println("sluice bench handler: the run failed: " + e);
            e.printStackTrace();
            System.exit(1);
        }
    }

    static Settings parse(String[] args) {
        boolean quick = false;
        String pipeline = null;
        String stage = "";
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            switch (arg) {
                case "handler" -> {}
                case "--quick" -> quick = true;
                case "-h", "--help", "help" -> {
                    return new Settings(null, "", false, true, 0, 0, 0);
                }
                case "--pipeline", "--stage" -> {
                    if (i + 1 >= args.length || args[i + 1].startsWith("--") || args[i + 1].isBlank()) {
                        throw new IllegalArgumentException(arg + " needs a value");
                    }
                    String value = args[++i];
                    if (arg.equals("--stage")) {
                        stage = value;
                    } else {
                        pipeline = value;
                    }
                }
                default ->
                    throw new IllegalArgumentException(
                            arg.startsWith("-") ? "unknown option '" + arg + "'" : "unexpected argument '" + arg + "'");
            }
        }
        Path file;
        if (pipeline != null) {
            file = Path.of(pipeline).toAbsolutePath().normalize();
        } else {
            String root = System.getProperty("sluice.root", ".");
            file = Path.of(root, "pipelines", "payments.yaml").toAbsolutePath().normalize();
        }
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("pipeline definition " + file + " does not exist");
        }
        return Settings.of(file, stage, quick);
    }

    /** Runs every stage asked for and prints each one's table and call graphs. */
    static List<StageResult> run(Settings settings, PrintStream out) {
        SchemaCatalog schemas = dev.sluice.bench.Workload.schemas(StageRuntime.mapper());
        PipelineDefinition definition = new DefinitionLoader(schemas).load(settings.pipeline());
        List<String> stages = new ArrayList<>();
        if (settings.stage().isBlank()) {
            stages.addAll(definition.stages().keySet());
            if (stages.isEmpty()) {
                throw new IllegalArgumentException(definition.pipeline() + " has no stage");
            }
        } else {
            definition.stage(settings.stage());
            stages.add(settings.stage());
        }
        List<StageResult> results = new ArrayList<>();
        for (String stage : stages) {
            StageResult result = measure(definition, settings, stage);
            print(result, settings, out);
            results.add(result);
        }
        return results;
    }

    /** A handler under test, cycling through the events. */
    private static final class Driver {
        final String name;
        final String prefix;
        final Target target;
        final List<KinesisEvent> events;
        final AwsStub stub;
        final List<String> initCalls;
        int cursor;

        Driver(
                String name,
                String prefix,
                Target target,
                List<KinesisEvent> events,
                AwsStub stub,
                List<String> initCalls) {
            this.name = name;
            this.prefix = prefix;
            this.target = target;
            this.events = events;
            this.stub = stub;
            this.initCalls = initCalls;
        }

        /** Forgets this handler's tables, objects and messages, and starts the events again. */
        /** Checkpoints written so far (KCL stages; 0 for a Lambda handler). */
        long checkpoints() {
            return target instanceof CheckpointCounter c ? c.checkpoints() : 0;
        }

        void reset() {
            stub.reset(resource -> resource.contains(prefix));
            target.reset();
            cursor = 0;
        }

        /** Handles {@code batches} batches; resets first if they would run past the last event. */
        int handle(int batches) {
            if (cursor + batches > events.size()) {
                reset();
            }
            int records = 0;
            for (int i = 0; i < batches; i++) {
                int index = cursor++;
                target.invoke(index);
                records += events.get(index).getRecords().size();
            }
            return records;
        }
    }

    /** What a driver hands batch {@code index} of the events to. */
    interface Target {
        void invoke(int index);

        /** The stub forgot this handler's state: start again (a KCL lease starts from TRIM_HORIZON). */
        default void reset() {}
    }

    /** A Lambda handler: batch {@code index} as Lambda's Kinesis event; a reported failure fails the run. */
    static Target lambda(
            String name, RequestHandler<KinesisEvent, StreamsEventResponse> handler, List<KinesisEvent> events) {
        return index -> {
            StreamsEventResponse response = handler.handleRequest(events.get(index), null);
            if (response.getBatchItemFailures() != null
                    && !response.getBatchItemFailures().isEmpty()) {
                throw new IllegalStateException(name + " handler reported a failed batch (from "
                        + response.getBatchItemFailures().get(0).getItemIdentifier()
                        + "): the stub answered something the handler did not expect");
            }
        };
    }

    /** A target that checkpoints. */
    interface CheckpointCounter {
        long checkpoints();
    }

    /** A KCL stage's record processor, batch {@code index} as KCL's ProcessRecordsInput. */
    static Target kcl(KclStageTarget kcl) {
        abstract class KclTarget implements Target, CheckpointCounter {}
        return new KclTarget() {
            @Override
            public long checkpoints() {
                return kcl.checkpointWrites();
            }

            @Override
            public void invoke(int index) {
                kcl.process(index);
            }

            @Override
            public void reset() {
                kcl.lease();
            }
        };
    }

    static StageResult measure(PipelineDefinition definition, Settings settings, String stageName) {
        return measure(definition, settings, stageName, System.err);
    }

    /** Measures one stage, with a line on {@code progress} at each step. */
    static StageResult measure(
            PipelineDefinition definition, Settings settings, String stageName, PrintStream progress) {
        StageDefinition stage = definition.stage(stageName);
        boolean isKcl = stage.consumer() == ConsumerType.KCL;
        int batchSize = batchSize(stage);
        int batchesPerRound = Math.max(1, settings.eventsPerRound() / batchSize);
        int cycle = Math.max(batchesPerRound, EVENTS / batchSize);
        HandlerWorkload.Batches batches = HandlerWorkload.events(definition, stage, cycle);
        try (AwsStub stub = new AwsStub()) {
            Map<String, String> sluiceEnv =
                    HandlerWorkload.environment("sluice-", definition, stageName, settings.pipeline(), stub.endpoint());
            Map<String, String> naiveEnv = HandlerWorkload.environment(
                    "handwritten-", definition, stageName, settings.pipeline(), stub.endpoint());
            HandlerWorkload.provision(stub, definition, stage, List.of(sluiceEnv, naiveEnv));
            CallRecorder.start();
            KclStageTarget kclTarget = null;
            Target sluiceTarget;
            if (isKcl) {
                kclTarget = new KclStageTarget(sluiceEnv, stage.input(), batches.events());
                sluiceTarget = kcl(kclTarget);
            } else {
                sluiceTarget = lambda(
                        SLUICE,
                        new KinesisStageHandler(StageRuntime.fromEnvironment(sluiceEnv), sluiceEnv),
                        batches.events());
            }
            List<String> sluiceInit = names(CallRecorder.stop());
            CallRecorder.start();
            // a KCL stage's baseline is the same hand-written logic applied to the same batch
            Target naiveTarget = lambda(NAIVE, new HandWrittenHandler(naiveEnv), batches.events());
            List<String> naiveInit = names(CallRecorder.stop());
            Driver sluice = new Driver(SLUICE, "sluice-", sluiceTarget, batches.events(), stub, sluiceInit);
            Driver naive = new Driver(NAIVE, "handwritten-", naiveTarget, batches.events(), stub, naiveInit);

            int warmupBatches = Math.max(1, settings.warmupEvents() / batchSize);
            progress.printf(
                    Locale.ROOT,
                    "%s/%s: warming up (%d batches each)...%n",
                    definition.pipeline(),
                    stageName,
                    warmupBatches);
            for (int i = 0; i < warmupBatches; i++) {
                sluice.handle(1);
                naive.handle(1);
            }

            CallGraph sluiceGraph = graph(sluice, batches);
            CallGraph naiveGraph = graph(naive, batches);
            progress.printf(
                    Locale.ROOT,
                    "%s/%s: call graphs recorded; %d rounds of %d batches each...%n",
                    definition.pipeline(),
                    stageName,
                    settings.rounds(),
                    batchesPerRound);

            List<Sample> sluiceSamples = new ArrayList<>();
            List<Sample> naiveSamples = new ArrayList<>();
            for (int r = 0; r < settings.rounds(); r++) {
                boolean sluiceFirst = r % 2 == 0;
                for (Driver d : sluiceFirst ? List.of(sluice, naive) : List.of(naive, sluice)) {
                    Sample sample = round(d, batchesPerRound);
                    (d == sluice ? sluiceSamples : naiveSamples).add(sample);
                    progress.printf(
                            Locale.ROOT,
                            "  round %d %-12s %6.1f µs CPU/event%n",
                            r + 1,
                            d.name,
                            sample.cpuNanos() / 1e3 / sample.events());
                }
            }
            Figures sluiceFigures = figures(sluice, sluiceSamples);
            Figures naiveFigures = figures(naive, naiveSamples);
            double recordBytes = recordBytes(batches.events());
            long measured = sluiceSamples.stream().mapToLong(Sample::events).sum();
            double checkpointsPer1000 = isKcl
                    ? sluiceSamples.stream().mapToLong(Sample::checkpoints).sum() * 1000.0 / measured
                    : Double.NaN;
            return new StageResult(
                    definition.pipeline(),
                    stageName,
                    stage.consumer(),
                    checkpointsPer1000,
                    batchSize,
                    batchesPerRound * batchSize * settings.rounds(),
                    sluiceFigures,
                    naiveFigures,
                    sluiceGraph,
                    naiveGraph,
                    model(definition, stage, sluiceGraph, sluiceFigures.cpuMicrosPerEvent(), recordBytes),
                    model(definition, stage, naiveGraph, naiveFigures.cpuMicrosPerEvent(), recordBytes));
        }
    }

    private static List<String> names(List<CallRecorder.Call> calls) {
        return calls.stream()
                .map(c -> c.service() + " " + c.operation() + " [" + c.resource() + "]")
                .toList();
    }

    /** The call graph of the first batch with a dead letter, on fresh state, the stub slowed down. */
    private static CallGraph graph(Driver driver, HandlerWorkload.Batches batches) {
        int index = batches.firstWithInvalid();
        KinesisEvent event = batches.events().get(index);
        driver.reset();
        driver.stub.latency(GRAPH_LATENCY_MILLIS);
        try {
            CallRecorder.start();
            driver.target.invoke(index);
            List<CallRecorder.Call> calls = CallRecorder.stop();
            int records = event.getRecords().size();
            int invalid = batches.invalid()[index];
            return CallGraph.of(driver.name, records, records - invalid, invalid, GRAPH_LATENCY_MILLIS, calls);
        } finally {
            driver.stub.latency(0);
            driver.reset();
        }
    }

    /** One measured round. */
    record Sample(
            long events,
            long cpuNanos,
            long processCpuNanos,
            long bytes,
            long wallNanos,
            Map<String, Long> requests,
            int lostThreads,
            Map<String, Long> cpuByThreadGroup,
            long checkpoints,
            int repeats) {

        Sample withRepeats(int n) {
            return new Sample(
                    events,
                    cpuNanos,
                    processCpuNanos,
                    bytes,
                    wallNanos,
                    requests,
                    lostThreads,
                    cpuByThreadGroup,
                    checkpoints,
                    n);
        }
    }

    /** Times a round is measured again when a counted thread ended within it, before it is kept as is. */
    static final int ROUND_ATTEMPTS = 3;

    /**
     * One measured round. A thread that ends within the round takes its last CPU reading with it (an
     * idle pool thread of an earlier runtime expiring, say), so such a round is measured again, up to
     * {@link #ROUND_ATTEMPTS} times; the repeats are counted and printed.
     */
    private static Sample round(Driver driver, int batches) {
        Sample sample = null;
        int repeats = 0;
        for (int attempt = 1; attempt <= ROUND_ATTEMPTS; attempt++) {
            sample = measureOnce(driver, batches);
            if (sample.lostThreads() == 0) {
                break;
            }
            repeats = attempt < ROUND_ATTEMPTS ? repeats + 1 : repeats;
        }
        return sample.withRepeats(repeats);
    }

    private static Sample measureOnce(Driver driver, int batches) {
        long checkpointsBefore = driver.checkpoints();
        Map<String, Long> requestsBefore = driver.stub.requests();
        ThreadCpu.Snapshot before = ThreadCpu.take();
        long t0 = System.nanoTime();
        int events = driver.handle(batches);
        long wall = System.nanoTime() - t0;
        ThreadCpu.Snapshot after = ThreadCpu.take();
        ThreadCpu.Delta delta = after.since(before);
        Map<String, Long> requests = new TreeMap<>();
        driver.stub.requests().forEach((op, n) -> {
            long d = n - requestsBefore.getOrDefault(op, 0L);
            if (d > 0) {
                requests.put(op, d);
            }
        });
        return new Sample(
                events,
                delta.cpuNanos(),
                delta.processCpuNanos(),
                delta.allocatedBytes(),
                wall,
                requests,
                delta.lostThreads(),
                delta.cpuByThreadGroup(),
                driver.checkpoints() - checkpointsBefore,
                0);
    }

    private static Figures figures(Driver driver, List<Sample> samples) {
        double[] cpu = samples.stream()
                .mapToDouble(s -> s.cpuNanos() / 1e3 / s.events())
                .toArray();
        double[] process = samples.stream()
                .mapToDouble(s -> s.processCpuNanos() / 1e3 / s.events())
                .toArray();
        double[] bytes = samples.stream()
                .mapToDouble(s -> (double) s.bytes() / s.events())
                .toArray();
        double[] rate = samples.stream()
                .mapToDouble(s -> s.events() / (s.wallNanos() / 1e9))
                .toArray();
        long events = samples.stream().mapToLong(Sample::events).sum();
        Map<String, Long> requests = new TreeMap<>();
        samples.forEach(s -> s.requests().forEach((op, n) -> requests.merge(op, n, Long::sum)));
        Map<String, Double> per1000 = new TreeMap<>();
        requests.forEach((op, n) -> per1000.put(op, n * 1000.0 / events));
        Map<String, Long> groups = new TreeMap<>();
        samples.forEach(s -> s.cpuByThreadGroup().forEach((g, n) -> groups.merge(g, n, Long::sum)));
        long all = groups.values().stream().mapToLong(Long::longValue).sum();
        Map<String, Double> shares = new TreeMap<>();
        groups.forEach((g, n) -> shares.put(g, (double) n / all));
        return new Figures(
                driver.name,
                median(cpu),
                Arrays.stream(cpu).min().orElse(Double.NaN),
                Arrays.stream(cpu).max().orElse(Double.NaN),
                median(process),
                median(bytes),
                median(rate),
                per1000,
                driver.initCalls,
                samples.stream().mapToInt(Sample::lostThreads).sum(),
                samples.stream().mapToInt(Sample::repeats).sum(),
                shares);
    }

    static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted.length == 0 ? Double.NaN : sorted[sorted.length / 2];
    }

    // ---- output

    private static void print(StageResult r, Settings settings, PrintStream out) {
        out.println();
        out.printf(
                Locale.ROOT,
                "Sluice handler benchmark: %s/%s (%s), %s of %d, %,d events per handler measured in %d"
                        + " alternating rounds%s%n",
                r.pipeline(),
                r.stage(),
                r.consumer() == ConsumerType.KCL
                        ? "consumer: kcl; Sluice: KCL's record processor StageRecordProcessor; hand-written: the same"
                                + " handler logic applied to the batch"
                        : "consumer: lambda",
                r.consumer() == ConsumerType.KCL ? "KCL ProcessRecordsInput batches (maxRecords)" : "Kinesis batches",
                r.batchSize(),
                r.eventsMeasuredPerHandler(),
                settings.rounds(),
                settings.quick() ? " (quick run: rough numbers)" : "");
        out.println("AWS: a loopback stub in this JVM (127.0.0.1, plain HTTP); its threads' CPU and allocation are"
                + " not counted");
        out.printf(
                Locale.ROOT,
                "%-13s %12s %17s %13s %15s %14s%n",
                "handler",
                "CPU µs/event",
                "(rounds min–max)",
                "bytes/event",
                "process CPU µs",
                "events/s wall");
        for (Figures f : List.of(r.sluice(), r.naive())) {
            out.printf(
                    Locale.ROOT,
                    "%-13s %12.1f %17s %,13.0f %15.1f %,14.0f%n",
                    f.handler(),
                    f.cpuMicrosPerEvent(),
                    String.format(Locale.ROOT, "%.1f–%.1f", f.cpuMinMicros(), f.cpuMaxMicros()),
                    f.bytesPerEvent(),
                    f.processCpuMicrosPerEvent(),
                    f.eventsPerSecond());
        }
        out.printf(Locale.ROOT, "ratio (Sluice CPU / hand-written CPU): %.2f  (goal ≤ 0.50)%n", r.ratio());
        out.println("(CPU: every thread of this JVM but the stub's, median of the rounds; process CPU adds GC and JIT"
                + " threads; events/s: one invocation at a time)");
        for (Figures f : List.of(r.sluice(), r.naive())) {
            List<String> shares = new ArrayList<>();
            f.cpuShareByThreadGroup().entrySet().stream()
                    .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
                    .filter(e -> e.getValue() >= 0.005)
                    .forEach(e -> shares.add(String.format(Locale.ROOT, "%s %.0f %%", e.getKey(), e.getValue() * 100)));
            out.println("  CPU by thread, " + f.handler() + ": " + String.join(", ", shares)
                    + (f.lostThreads() > 0 ? " (" + f.lostThreads() + " threads ended mid-round: not counted)" : "")
                    + (f.roundsRepeated() > 0
                            ? " (" + f.roundsRepeated() + " rounds measured again: a thread ended within them)"
                            : ""));
        }
        out.println();
        out.println("AWS requests per 1,000 events:");
        TreeSet<String> ops = new TreeSet<>(r.sluice().requestsPer1000().keySet());
        ops.addAll(r.naive().requestsPer1000().keySet());
        out.printf(Locale.ROOT, "  %-32s %10s %13s%n", "service operation", SLUICE, NAIVE);
        for (String op : ops) {
            out.printf(
                    Locale.ROOT,
                    "  %-32s %10.1f %13.1f%n",
                    op,
                    r.sluice().requestsPer1000().getOrDefault(op, 0.0),
                    r.naive().requestsPer1000().getOrDefault(op, 0.0));
        }
        out.printf(
                Locale.ROOT,
                "  %-32s %10.1f %13.1f%n",
                "total",
                r.sluice().requestsPer1000().values().stream()
                        .mapToDouble(Double::doubleValue)
                        .sum(),
                r.naive().requestsPer1000().values().stream()
                        .mapToDouble(Double::doubleValue)
                        .sum());
        for (Figures f : List.of(r.sluice(), r.naive())) {
            out.println("  at init, " + f.handler() + ": " + (f.initCalls().isEmpty() ? "no call" : f.initCalls()));
        }
        if (r.consumer() == ConsumerType.KCL) {
            out.printf(
                    Locale.ROOT,
                    "  checkpoints, %s: %.1f per 1,000 events (KCL's ShardRecordProcessorCheckpointer over a recording"
                            + " Checkpointer: the lease-table UpdateItem is modelled below, not sent to the stub)%n",
                    SLUICE,
                    r.checkpointsPer1000());
        }
        printModel(r, out);
        for (CallGraph g : List.of(r.sluiceGraph(), r.naiveGraph())) {
            out.println();
            out.printf(
                    Locale.ROOT,
                    "Call graph of one batch, %s (%d records: %d accepted, %d dead-lettered; stub answering after"
                            + " %d ms; phases run one after the other, lanes of a phase concurrently):%n",
                    g.handler(),
                    g.records(),
                    g.accepted(),
                    g.deadLettered(),
                    g.latencyMillis());
            g.describe().forEach(line -> out.println("  " + line));
        }
    }

    /** The modelled AWS batch and ceiling of both handlers. */
    static void printModel(StageResult r, PrintStream out) {
        Modelled m = r.model();
        out.println();
        if (m.consumer() == ConsumerType.KCL) {
            out.printf(
                    Locale.ROOT,
                    "Modelled in AWS (KCL worker: %.2f vCPU — assumed: the definition sets no worker CPU, infra-cdk"
                            + " deploys 1,024 CPU units; AwsLatencyModel's latencies along the call graph below plus the"
                            + " checkpoint's UpdateItem, %,d Monte Carlo batches, seed %d; one batch a shard at a time"
                            + " while the next GetRecords (p50 %.0f ms) is prefetched, at most one every %.0f ms;"
                            + " maxRecords %d; %d polling consumer%s of the stream; %.0f B a record):%n",
                    m.vcpu(),
                    MODEL_SAMPLES,
                    MODEL_SEED,
                    m.pollGapMillis(),
                    m.idleBetweenReadsMillis(),
                    r.batchSize(),
                    m.pollingConsumers(),
                    m.pollingConsumers() == 1 ? "" : "s",
                    m.recordBytes());
        } else {
            out.printf(
                    Locale.ROOT,
                    "Modelled in AWS (%d MB = %.2f vCPU; AwsLatencyModel's latencies along the call graph below, %,d"
                            + " Monte Carlo batches, seed %d; PF %d; %d polling consumer%s of the stream; %.0f B a record;"
                            + " next batch %.0f ms after one ends):%n",
                    m.memoryMb(),
                    AwsBatchModel.vcpuShare(m.memoryMb()),
                    MODEL_SAMPLES,
                    MODEL_SEED,
                    m.parallelization(),
                    m.pollingConsumers(),
                    m.pollingConsumers() == 1 ? "" : "s",
                    m.recordBytes(),
                    m.pollGapMillis());
        }
        for (Modelled x : List.of(r.model(), r.naiveModel())) {
            AwsBatchModel.Durations d = x.durations();
            out.printf(
                    Locale.ROOT,
                    "  %-13s batch p50 %.0f ms, p99 %.0f ms, mean %.0f (CPU %.1f ms + AWS calls p50 %.0f); %s%n",
                    x == r.model() ? SLUICE : NAIVE,
                    d.p50Millis(),
                    d.p99Millis(),
                    d.meanMillis(),
                    d.cpuMillis(),
                    d.awsP50Millis(),
                    x.ceiling().line());
        }
        double goal = goal(r.consumer());
        out.printf(
                Locale.ROOT,
                "  goal ≥ %,.0f events/s a shard for a %s stage: %s%n",
                goal,
                r.consumer() == ConsumerType.KCL ? "KCL" : "Lambda",
                m.ceiling().perShard() >= goal
                        ? "met"
                        : String.format(
                                Locale.ROOT,
                                "not met (%.0f %% of it; %,.0f events/s short)",
                                m.ceiling().perShard() / goal * 100,
                                goal - m.ceiling().perShard()));
    }

    /** Issue 29's goal a shard: 1,000 events/s for a Lambda stage, 2,000 for a KCL stage. */
    static double goal(ConsumerType consumer) {
        return AwsBatchModel.goalPerShard(consumer.name());
    }

    /** The last line: every figure as {@code key=value}. */
    static String resultLine(List<StageResult> results) {
        StringBuilder line = new StringBuilder("RESULT");
        for (StageResult r : results) {
            String p = results.size() == 1 ? "" : r.stage().replace('-', '_') + "_";
            line.append(String.format(
                    Locale.ROOT,
                    " %scpu_us_per_event=%.1f %snaive_cpu_us_per_event=%.1f %sratio=%.2f %sbytes_per_event=%d"
                            + " %snaive_bytes_per_event=%d",
                    p,
                    r.sluice().cpuMicrosPerEvent(),
                    p,
                    r.naive().cpuMicrosPerEvent(),
                    p,
                    r.ratio(),
                    p,
                    Math.round(r.sluice().bytesPerEvent()),
                    p,
                    Math.round(r.naive().bytesPerEvent())));
            r.sluice()
                    .requestsPer1000()
                    .forEach((op, n) ->
                            line.append(String.format(Locale.ROOT, " %srequests_per_1000_%s=%.1f", p, key(op), n)));
            // the modelled AWS figures always carry the stage's name (issue 29: <stage>_aws_…)
            String st = r.stage().replace('-', '_') + "_";
            line.append(String.format(
                    Locale.ROOT,
                    " %saws_batch_ms_p50=%.0f %saws_batch_ms_p99=%.0f %saws_ceiling_per_shard=%.0f"
                            + " %snaive_aws_batch_ms_p50=%.0f %snaive_aws_ceiling_per_shard=%.0f",
                    st,
                    r.model().durations().p50Millis(),
                    st,
                    r.model().durations().p99Millis(),
                    st,
                    r.model().ceiling().perShard(),
                    st,
                    r.naiveModel().durations().p50Millis(),
                    st,
                    r.naiveModel().ceiling().perShard()));
            r.naive()
                    .requestsPer1000()
                    .forEach((op, n) -> line.append(
                            String.format(Locale.ROOT, " %snaive_requests_per_1000_%s=%.1f", p, key(op), n)));
            if (r.consumer() == ConsumerType.KCL) {
                line.append(String.format(Locale.ROOT, " %scheckpoints_per_1000=%.1f", p, r.checkpointsPer1000()));
            }
        }
        return line.toString();
    }

    private static String key(String op) {
        return op.toLowerCase(Locale.ROOT).replace(' ', '_');
    }

    /** report.json and report.html, plus each stage's call graphs as JSON, under load-tests/reports. */
    static Path write(List<StageResult> results, Settings settings) {
        Instant now = Instant.now();
        Path directory = dev.sluice.bench.BenchReport.directory(now);
        Map<String, Object> summary = new LinkedHashMap<>();
        List<Report.Table> tables = new ArrayList<>();
        for (StageResult r : results) {
            String s = r.pipeline() + "/" + r.stage();
            summary.put(
                    s + " CPU µs/event (Sluice / hand-written)",
                    String.format(
                            Locale.ROOT,
                            "%.1f / %.1f",
                            r.sluice().cpuMicrosPerEvent(),
                            r.naive().cpuMicrosPerEvent()));
            summary.put(s + " ratio", String.format(Locale.ROOT, "%.2f (goal ≤ 0.50)", r.ratio()));
            summary.put(
                    s + " bytes/event (Sluice / hand-written)",
                    String.format(
                            Locale.ROOT,
                            "%,.0f / %,.0f",
                            r.sluice().bytesPerEvent(),
                            r.naive().bytesPerEvent()));
            summary.put(
                    s + " modelled AWS batch p50 / p99 (Sluice)",
                    String.format(
                            Locale.ROOT,
                            "%.0f / %.0f ms",
                            r.model().durations().p50Millis(),
                            r.model().durations().p99Millis()));
            summary.put(
                    s + " modelled ceiling a shard (Sluice / hand-written)",
                    String.format(
                            Locale.ROOT,
                            "%,.0f / %,.0f events/s (goal ≥ %,.0f; %s binds)",
                            r.model().ceiling().perShard(),
                            r.naiveModel().ceiling().perShard(),
                            goal(r.consumer()),
                            r.model().ceiling().binding()));
            List<List<String>> modelRows = new ArrayList<>();
            for (Modelled x : List.of(r.model(), r.naiveModel())) {
                AwsBatchModel.Durations d = x.durations();
                AwsBatchModel.Ceiling c = x.ceiling();
                modelRows.add(List.of(
                        x == r.model() ? SLUICE : NAIVE,
                        String.format(Locale.ROOT, "%.1f", d.cpuMillis()),
                        String.format(Locale.ROOT, "%.0f", d.awsP50Millis()),
                        String.format(Locale.ROOT, "%.0f", d.p50Millis()),
                        String.format(Locale.ROOT, "%.0f", d.p99Millis()),
                        String.format(Locale.ROOT, "%,.0f", c.byProcessing()),
                        String.format(Locale.ROOT, "%,.0f", c.byReadBytes()),
                        String.format(Locale.ROOT, "%,.0f", c.byGetRecords()),
                        String.format(Locale.ROOT, "%,.0f", c.perShard())));
            }
            tables.add(new Report.Table(
                    s + ": modelled AWS batch and ceiling a shard",
                    List.of(
                            "handler",
                            "CPU ms a batch (vCPU share)",
                            "AWS calls p50 ms",
                            "batch p50 ms",
                            "batch p99 ms",
                            "by processing /s",
                            "by read bytes /s",
                            "by GetRecords /s",
                            "ceiling /s"),
                    modelRows,
                    String.format(
                            Locale.ROOT,
                            "%s (%.2f vCPU), PF %d, %d polling consumer(s), %.0f B a record;"
                                    + " load-tests/README.md, 'Modelled AWS ceiling'",
                            r.consumer() == ConsumerType.KCL
                                    ? "KCL worker, 1 vCPU assumed, GetRecords at most every "
                                            + Math.round(r.model().idleBetweenReadsMillis()) + " ms"
                                    : r.model().memoryMb() + " MB",
                            r.model().vcpu(),
                            r.model().parallelization(),
                            r.model().pollingConsumers(),
                            r.model().recordBytes())));
            List<List<String>> rows = new ArrayList<>();
            TreeSet<String> ops = new TreeSet<>(r.sluice().requestsPer1000().keySet());
            ops.addAll(r.naive().requestsPer1000().keySet());
            for (String op : ops) {
                rows.add(List.of(
                        op,
                        String.format(
                                Locale.ROOT,
                                "%.1f",
                                r.sluice().requestsPer1000().getOrDefault(op, 0.0)),
                        String.format(
                                Locale.ROOT, "%.1f", r.naive().requestsPer1000().getOrDefault(op, 0.0))));
            }
            tables.add(new Report.Table(
                    s + ": AWS requests per 1,000 events",
                    List.of("service operation", SLUICE, NAIVE),
                    rows,
                    "what the stub answered during the measured rounds"));
            for (CallGraph g : List.of(r.sluiceGraph(), r.naiveGraph())) {
                List<List<String>> lines = new ArrayList<>();
                g.describe().forEach(line -> lines.add(List.of(line)));
                tables.add(new Report.Table(
                        s + ": call graph of one batch, " + g.handler(),
                        List.of("phase (lanes run concurrently)"),
                        lines,
                        g.records() + " records, " + g.deadLettered() + " dead-lettered; stub answering after "
                                + g.latencyMillis() + " ms"));
            }
        }
        Map<String, Object> data = new LinkedHashMap<>();
        data.put(
                "settings",
                Map.of(
                        "pipeline", settings.pipeline().toString(),
                        "quick", settings.quick(),
                        "warmupEvents", settings.warmupEvents(),
                        "rounds", settings.rounds(),
                        "eventsPerRound", settings.eventsPerRound()));
        data.put("stages", results);
        new ReportWriter()
                .write(
                        directory,
                        new Report(
                                "bench",
                                "Sluice's Lambda handler or KCL record processor against a hand-written handler, on a"
                                        + " loopback AWS stub",
                                now.toString(),
                                Report.thisMachine(),
                                summary,
                                List.of(),
                                tables,
                                List.of(
                                        "CPU per event: the CPU time of every thread of the benchmark JVM except the stub's"
                                                + " (ThreadMXBean), median of the alternating rounds; bytes: the same threads'"
                                                + " allocated bytes. See load-tests/benchmarks/README.md, 'Handler benchmark'."),
                                data));
        ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        for (StageResult r : results) {
            Map<String, Object> graph = new LinkedHashMap<>();
            graph.put("pipeline", r.pipeline());
            graph.put("stage", r.stage());
            graph.put("batchSize", r.batchSize());
            graph.put(SLUICE, r.sluiceGraph());
            graph.put(NAIVE, r.naiveGraph());
            try {
                Files.writeString(
                        directory.resolve("call-graph-" + r.pipeline() + "-" + r.stage() + ".json"),
                        json.writeValueAsString(graph) + "\n",
                        StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return directory;
    }
}
