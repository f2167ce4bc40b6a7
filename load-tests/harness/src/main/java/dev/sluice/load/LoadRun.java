package dev.sluice.load;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.definition.EnvironmentNames;
import dev.sluice.core.definition.FunctionDefinition;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.definition.SinkDefinition;
import dev.sluice.core.definition.StageDefinition;
import dev.sluice.core.definition.StepType;
import dev.sluice.core.schema.SchemaCatalog;
import dev.sluice.emulators.LocalAws;
import dev.sluice.emulators.LocalAwsOptions;
import dev.sluice.emulators.limits.KinesisLimits;
import dev.sluice.generators.ClickstreamGenerator;
import dev.sluice.generators.DailyCurve;
import dev.sluice.generators.GeneratedEvent;
import dev.sluice.generators.PaymentGenerator;
import dev.sluice.local.LocalDefinitions;
import dev.sluice.local.LocalPipeline;
import dev.sluice.planner.AwsLatencyModel;
import dev.sluice.planner.CostModel;
import dev.sluice.planner.PriceTable;
import dev.sluice.report.Report;
import dev.sluice.report.ReportWriter;
import dev.sluice.verify.reconcile.AggregatingProducer;
import dev.sluice.verify.reconcile.LedgerEntry;
import dev.sluice.verify.reconcile.Pacer;
import dev.sluice.verify.reconcile.Producer;
import dev.sluice.verify.reconcile.Reconciler;
import dev.sluice.verify.reconcile.Reconciliation;
import dev.sluice.verify.reconcile.StreamRecords;
import java.io.PrintStream;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.HdrHistogram.Histogram;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.services.kinesis.KinesisClient;

/**
 * {@code ./sluice load}: produces a pipeline's events at a steady rate into its source stream,
 * waits until the stage fed by that stream has made every one durable, reconciles, and writes
 * report.json and report.html. Locally (the default) the stack is {@link LocalAws} with the
 * pipeline deployed as the demo does; with {@code --aws} the same producer loop puts into a
 * deployed stream (default credentials chain and region) and only producer-side figures are
 * measured (load-tests/README.md, "--aws").
 */
public final class LoadRun {

    /** The planner's assumption for the billed duration of one invocation. */
    static final double LAMBDA_MS_PER_BATCH = 200;

    private static final Set<String> MAPPING_READS = Set.of(
            "GetRecords",
            "GetShardIterator",
            "ListShards",
            "DescribeStream",
            "DescribeStreamSummary",
            "SubscribeToShard",
            "DescribeStreamConsumer");

    private final Path root;
    private final LoadSettings settings;
    private final PrintStream out;
    private final PrintStream err;
    private final ObjectMapper mapper = new ObjectMapper();
    /** Every matched latency of the run, set when the result is computed. */
    private Histogram histogram = new Histogram(LatencyAccounting.HIGHEST_MS, 3);

    public LoadRun(Path root, LoadSettings settings, PrintStream out, PrintStream err) {
        this.root = root;
        this.settings = settings;
        this.out = out;
        this.err = err;
    }

    /** Above this rate the producer aggregates unless told otherwise, as producers at scale do (KPL). */
    public static final double AGGREGATE_ABOVE_RATE = 500;

    private Boolean aggregate;

    /**
     * Whether the producer packs events into KPL aggregates ({@code --aggregate}); {@code null}: only
     * above {@link #AGGREGATE_ABOVE_RATE} events a second.
     */
    public LoadRun aggregate(Boolean aggregate) {
        this.aggregate = aggregate;
        return this;
    }

    private boolean awsLatency;
    private Map<String, Long> delayedCalls = Map.of();
    private final List<StageCapacity> capacity = new ArrayList<>();

    /**
     * {@code --aws-latency}: every call to the local services is delayed by a draw from {@link
     * AwsLatencyModel}'s distribution for its operation (seeded with the run's seed), while the
     * pipeline runs; off for provisioning and reconciliation.
     */
    public LoadRun awsLatency(boolean on) {
        this.awsLatency = on;
        return this;
    }

    /** Whether this run's producer aggregates. */
    public boolean aggregates() {
        return aggregate != null ? aggregate : settings.rate() > AGGREGATE_ABOVE_RATE;
    }

    /**
     * What the run produced: its result, where the report is, and the IAM fields of its RESULT line
     * ({@code iam=enforced access_denied=N}, {@code iam=off}, or {@code iam=aws} on AWS).
     */
    public record Outcome(LoadResult result, Path reportDirectory, String iam) {}

    private volatile java.util.function.Supplier<String> iamFields = () -> "iam=aws";

    public Outcome run() {
        SchemaCatalog schemas = SchemaCatalog.fromDirectory(root.resolve("schemas"), mapper);
        Path file = settings.definition().toAbsolutePath().normalize();
        Path base = root.toAbsolutePath().normalize();
        PipelineDefinition definition = LocalDefinitions.loader(root)
                .load(file, file.startsWith(base) ? base.relativize(file).toString() : file.toString());
        String stageName = definition.stages().keySet().iterator().next();
        StageDefinition stage = definition.stage(stageName);
        Function<Instant, GeneratedEvent> generator =
                generator(definition.stream(stage.input()).schema());
        Instant started = Instant.now();
        Path reportDirectory = ReportWriter.directoryFor(settings.reports(), started);
        try {
            Files.createDirectories(reportDirectory);
        } catch (java.io.IOException e) {
            throw new IllegalStateException("cannot create " + reportDirectory + ": " + e.getMessage(), e);
        }
        out.printf(
                java.util.Locale.ROOT,
                "Sluice load: %s, stage '%s', %,.0f events/s for %d s on %s%n",
                definition.pipeline(),
                stageName,
                settings.rate(),
                settings.duration().toSeconds(),
                settings.aws() ? "AWS (default credentials and region)" : "local AWS");
        LoadResult result = settings.aws()
                ? runOnAws(definition, stageName, generator)
                : runLocally(definition, stageName, schemas, generator, reportDirectory);
        Report report = LoadReport.of(result, histogram, Instant.now());
        new ReportWriter().write(reportDirectory, report);
        return new Outcome(result, reportDirectory, iamFields.get());
    }

    private LoadResult runLocally(
            PipelineDefinition definition,
            String stageName,
            SchemaCatalog schemas,
            Function<Instant, GeneratedEvent> generator,
            Path reportDirectory) {
        StageDefinition stage = definition.stage(stageName);
        Path metrics = reportDirectory.resolve("metrics.jsonl");
        LocalAwsOptions options = LocalAwsOptions.builder()
                .localstackDirectory(root.resolve("localstack"))
                .logDirectory(root.resolve("localstack/.run/logs"))
                .build();
        try (LocalAws aws = LocalAws.start(options);
                LocalPipeline pipeline = LocalPipeline.provision(aws, definition, null, root)
                        .withEnvironment(Map.of(
                                EnvironmentNames.METRICS_FILE,
                                metrics.toString(),
                                // the functions and KCL workers read the very file given, not pipelines/<name>.yaml
                                EnvironmentNames.PIPELINE_FILE,
                                settings.definition().toAbsolutePath().toString()))
                        .start()) {
            iamFields = () -> dev.sluice.local.iam.LocalIam.resultFields(aws) + " "
                    + dev.sluice.local.limits.LocalLimits.resultFields(aws);
            String stream = pipeline.resources().streams().get(stage.input());
            AwsLatencyModel model = new AwsLatencyModel(settings.seed());
            if (awsLatency) {
                aws.latency((service, operation) -> model.nextNanos(service.name(), operation));
                err.println("AWS latency modelled on every call (load-tests/README.md, \"AWS latency model\")");
            }
            RequestCounts counts = new RequestCounts();
            long startMillis = System.currentTimeMillis();
            List<LatencyAccounting.Sent> sent;
            List<LedgerEntry> ledger = new ArrayList<>();
            double produceSeconds;
            ProcessCpu.Usage cpu;
            List<StageFigures> stages = new ArrayList<>();
            List<EmfBatch> batches;
            try (ProcessCpu sampler = ProcessCpu.start()) {
                try (SdkCallCounter.Installation counting = SdkCallCounter.install(counts)) {
                    Production production =
                            produce(pipeline.producerKinesis(), stream, generator, ledger, pipeline::acknowledged);
                    sent = production.sent;
                    produceSeconds = production.seconds;
                    drain(pipeline, stageName, ledger, production);
                }
                batches = EmfBatch.read(metrics, 0, definition.pipeline(), stageName);
                stages.add(StageFigures.of(
                        stageName,
                        stage.consumer().name().toLowerCase(java.util.Locale.ROOT),
                        stage.input(),
                        ledger.size(),
                        sent,
                        batches,
                        startMillis));
                stages.addAll(downstream(aws, pipeline, definition, stageName, metrics, startMillis));
                cpu = sampler.stop();
            }
            if (awsLatency) {
                aws.latency(null);
                delayedCalls = model.delayedCalls();
            }
            double bytes = ledger.stream()
                    .mapToLong(e -> e.event().data().length)
                    .average()
                    .orElse(0);
            StageCapacity first = stage.consumer() == dev.sluice.core.definition.ConsumerType.KCL
                    ? StageCapacity.kcl(
                            stageName, Math.min(10_000, stage.batching().batchSize()), batches, bytes)
                    : lambdaCapacity(
                            stage, stageName, pipeline.function(stageName).timings(), batches, bytes);
            if (first != null) {
                capacity.add(
                        0, first.priced(memory(stage), PriceTable.bundled().price(PriceTable.LAMBDA_ARM64_GB_SECOND)));
            }
            Reconciler reconciler = new Reconciler(aws.s3(), aws.dynamoDb(), aws.sqs());
            Reconciliation reconciliation;
            Map<String, Reconciler.AggregateReconciliation> downstreamCounts = Map.of();
            if (stage.sinks().stream().anyMatch(s -> s.kind() == SinkDefinition.Kind.TABLE)) {
                reconciliation = reconciler.reconcile(ledger, pipeline.resources(), stage);
            } else {
                List<Reconciler.DeadLetterMessage> letters = reconciler.deadLetterMessages(
                        pipeline.resources().queueUrls().get(stage.failure().deadLetterQueue()));
                Set<String> filtered = LakeReconciliation.filtered(ledger, definition, stageName, schemas);
                reconciliation = LakeReconciliation.reconcile(
                        reconciler,
                        ledger,
                        filtered,
                        stageName,
                        pipeline.resources().bucket(),
                        Reconciler.lakePrefix(pipeline.resources(), stage),
                        letters);
                downstreamCounts = DownstreamReconciliation.reconcile(
                        reconciler, definition, stageName, pipeline.resources(), ledger, filtered, letters);
            }
            List<LoadResult.Request> requests =
                    classify(counts.rows(), stream, pipeline.resources().checkpointTable(), ledger.size());
            return result(
                    definition,
                    stageName,
                    "local",
                    ledger,
                    sent,
                    batches,
                    startMillis,
                    produceSeconds,
                    reconciliation,
                    requests,
                    stages,
                    seconds -> limits(aws.kinesisLimits(), startMillis, seconds),
                    downstreamCounts,
                    cpu);
        }
    }

    /**
     * The KCL stages that read a stream another stage writes (clickstream's {@code page-counts}):
     * waits until their workers have checkpointed everything that stream holds, then matches their
     * EMF batches to its records, read back from the start (each carries its event's {@code
     * occurredAt}).
     */
    private List<StageFigures> downstream(
            LocalAws aws,
            LocalPipeline pipeline,
            PipelineDefinition definition,
            String first,
            Path metrics,
            long startMillis) {
        List<StageFigures> figures = new ArrayList<>();
        Map<String, String> skipped = pipeline.notRunLocally();
        for (var e : definition.stages().entrySet()) {
            String name = e.getKey();
            StageDefinition stage = e.getValue();
            if (name.equals(first)
                    || stage.consumer() != dev.sluice.core.definition.ConsumerType.KCL
                    || skipped.containsKey(name)) {
                continue;
            }
            String input = pipeline.resources().streams().get(stage.input());
            List<StageFigures.StreamRecord> records = StreamRecords.readAll(aws.kinesis(), input).stream()
                    .map(r -> new StageFigures.StreamRecord(
                            r.shardId(), r.sequenceNumber(), r.arrivedAtMillis(), r.data()))
                    .toList();
            Map<String, String> last = new HashMap<>();
            for (StageFigures.StreamRecord r : records) {
                last.merge(
                        r.shardId(),
                        r.sequenceNumber(),
                        (a, b) -> new BigInteger(a).compareTo(new BigInteger(b)) >= 0 ? a : b);
            }
            err.printf(
                    java.util.Locale.ROOT,
                    "waiting for stage '%s' (KCL) to checkpoint %,d records of %s%n",
                    name,
                    records.size(),
                    stage.input());
            if (!last.isEmpty()) {
                pipeline.kclWorkers(name).awaitCheckpointed(last, Duration.ofSeconds(90));
            }
            List<EmfBatch> stageBatches = EmfBatch.read(metrics, 0, definition.pipeline(), name);
            StageCapacity measured = StageCapacity.kcl(
                    name,
                    Math.min(10_000, stage.batching().batchSize()),
                    stageBatches,
                    records.stream().mapToLong(r -> r.data().length).average().orElse(0));
            if (measured != null) {
                capacity.add(measured);
            }
            figures.add(StageFigures.of(
                    name,
                    "kcl",
                    stage.input(),
                    records.size(),
                    StageFigures.sentFrom(records),
                    stageBatches,
                    startMillis));
        }
        return figures;
    }

    private LoadResult runOnAws(
            PipelineDefinition definition, String stageName, Function<Instant, GeneratedEvent> generator) {
        String stream = settings.stream() != null
                ? settings.stream()
                : definition.stage(stageName).input();
        RequestCounts counts = new RequestCounts();
        List<LedgerEntry> ledger = new ArrayList<>();
        long startMillis = System.currentTimeMillis();
        try (KinesisClient kinesis = KinesisClient.builder()
                        .httpClientBuilder(Apache5HttpClient.builder())
                        .build();
                SdkCallCounter.Installation counting = SdkCallCounter.install(counts)) {
            Production production = produce(kinesis, stream, generator, ledger, () -> 0);
            List<LoadResult.Request> requests = classify(counts.rows(), stream, "", ledger.size());
            return result(
                    definition,
                    stageName,
                    "aws",
                    ledger,
                    production.sent,
                    List.of(),
                    startMillis,
                    production.seconds,
                    null,
                    requests,
                    List.of(),
                    seconds -> new LoadResult.Limits("aws", 0, 0, List.of()),
                    Map.of(),
                    null);
        }
    }

    private static final class Production {
        List<LatencyAccounting.Sent> sent = new ArrayList<>();
        double seconds;
    }

    /** The steady-rate producer loop, shared by both targets. */
    private Production produce(
            KinesisClient kinesis,
            String stream,
            Function<Instant, GeneratedEvent> generator,
            List<LedgerEntry> ledger,
            LongSupplier done) {
        Production production = new Production();
        Producer producer = new Producer(kinesis, stream);
        AggregatingProducer aggregating = aggregates() ? new AggregatingProducer(kinesis, stream) : null;
        LoadProgress progress = new LoadProgress(err);
        long start = System.nanoTime();
        AtomicLong acked = new AtomicLong();
        AtomicLong records = new AtomicLong();
        ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "sluice-load-progress");
            t.setDaemon(true);
            return t;
        });
        ticker.scheduleAtFixedRate(
                () -> progress.update(
                        "producing",
                        (System.nanoTime() - start) / 1e9,
                        settings.duration().toSeconds(),
                        acked.get(),
                        records.get(),
                        done.getAsLong()),
                250,
                250,
                TimeUnit.MILLISECONDS);
        long skipped = 0; // due events the pacer skipped because the producer fell too far behind
        try {
            long scheduled = new Pacer(settings.rate(), settings.duration(), f -> rateMultiplier(settings.day(), f))
                    .run(
                            (n, now) -> {
                                List<GeneratedEvent> batch = new ArrayList<>(n);
                                for (int i = 0; i < n; i++) {
                                    batch.add(generator.apply(now));
                                }
                                List<LedgerEntry> placed = aggregating != null
                                        ? aggregating.send(batch, x -> {})
                                        : producer.send(batch, x -> {});
                                long ackedAt = System.currentTimeMillis();
                                for (LedgerEntry entry : placed) {
                                    production.sent.add(new LatencyAccounting.Sent(
                                            entry.shardId(), entry.sequenceNumber(), now.toEpochMilli(), ackedAt));
                                }
                                ledger.addAll(placed);
                                acked.addAndGet(placed.size());
                                records.addAndGet(kinesisRecords(placed));
                            },
                            () -> false);
            production.seconds = (System.nanoTime() - start) / 1e9;
            skipped = scheduled - acked.get();
        } finally {
            ticker.shutdownNow();
            progress.update(
                    "produced",
                    settings.duration().toSeconds(),
                    settings.duration().toSeconds(),
                    acked.get(),
                    records.get(),
                    done.getAsLong());
            progress.finish();
        }
        if (skipped > 0) {
            err.printf(
                    java.util.Locale.ROOT,
                    "producer: %,d of the %,d events due were not sent: a put kept the producer more than %,d"
                            + " events behind, and the pacer skips what is beyond that rather than burst%n",
                    skipped,
                    skipped + acked.get(),
                    Pacer.MAX_PER_TICK);
        }
        return production;
    }

    /** The Kinesis records that carry these events: one per event, or one per KPL aggregate. */
    static long kinesisRecords(List<LedgerEntry> entries) {
        return entries.stream()
                .map(e -> e.shardId() + "/" + e.sequenceNumber())
                .distinct()
                .count();
    }

    /** Waits until the stage has checkpointed past the last record of every shard. */
    private void drain(LocalPipeline pipeline, String stage, List<LedgerEntry> ledger, Production production) {
        Map<String, String> last = new HashMap<>();
        for (LedgerEntry e : ledger) {
            last.merge(
                    e.shardId(),
                    e.sequenceNumber(),
                    (a, b) -> new BigInteger(a).compareTo(new BigInteger(b)) >= 0 ? a : b);
        }
        LoadProgress progress = new LoadProgress(err);
        long start = System.nanoTime();
        long records = kinesisRecords(ledger);
        ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "sluice-load-drain");
            t.setDaemon(true);
            return t;
        });
        ticker.scheduleAtFixedRate(
                () -> progress.update(
                        "draining",
                        (System.nanoTime() - start) / 1e9,
                        Math.max(1, (System.nanoTime() - start) / 1e9),
                        ledger.size(),
                        records,
                        pipeline.acknowledged()),
                250,
                250,
                TimeUnit.MILLISECONDS);
        try {
            pipeline.awaitCheckpointed(stage, last, Duration.ofSeconds(60));
        } finally {
            ticker.shutdownNow();
            progress.finish();
        }
    }

    private LoadResult result(
            PipelineDefinition definition,
            String stageName,
            String target,
            List<LedgerEntry> ledger,
            List<LatencyAccounting.Sent> sent,
            List<EmfBatch> batches,
            long startMillis,
            double produceSeconds,
            Reconciliation reconciliation,
            List<LoadResult.Request> requests,
            List<StageFigures> stages,
            java.util.function.IntFunction<LoadResult.Limits> limits,
            Map<String, dev.sluice.verify.reconcile.Reconciler.AggregateReconciliation> downstream,
            ProcessCpu.Usage cpu) {
        LatencyAccounting.Result accounting = LatencyAccounting.account(sent, batches, startMillis);
        histogram = accounting.histogram();
        long events = ledger.size();
        double bytes = ledger.stream()
                .mapToLong(e -> e.event().data().length)
                .average()
                .orElse(0);
        long lastWrite =
                batches.stream().mapToLong(EmfBatch::timestampMillis).max().orElse(0);
        long lastAck = sent.stream()
                .mapToLong(LatencyAccounting.Sent::ackedAtMillis)
                .max()
                .orElse(startMillis);
        long firstSend = sent.stream()
                .mapToLong(LatencyAccounting.Sent::occurredAtMillis)
                .min()
                .orElse(startMillis);
        double endToEnd = Math.max(1e-3, (Math.max(lastWrite, lastAck) - firstSend) / 1000.0);
        LoadResult.Latency latency = LoadResult.Latency.of(accounting);
        StageDefinition stage = definition.stage(stageName);
        int memory = memory(stage);
        StageCapacity measured = capacity.stream()
                .filter(c -> c.stage().equals(stageName) && c.consumer().equals("lambda"))
                .findFirst()
                .orElse(null);
        double msPerBatch = measured == null ? LAMBDA_MS_PER_BATCH : measured.durationMeanMs();
        String msBasis = measured == null
                ? "assumed: the planner's " + (long) LAMBDA_MS_PER_BATCH + " ms"
                : String.format(
                        java.util.Locale.ROOT,
                        "measured: mean of %,d handler runs, %s",
                        measured.batches(),
                        awsLatency ? "AWS latency modelled" : "the local emulators' latency");
        int shards = definition.streams().values().stream()
                .mapToInt(s -> s.shards() == null ? 1 : s.shards())
                .sum();
        long producerRecords = requests.stream()
                .filter(q -> q.role().equals("producer"))
                .mapToLong(LoadResult.Request::entries)
                .sum();
        List<CostModel.Requests> functionRows = requests.stream()
                .filter(q -> q.role().equals("function"))
                .map(q -> new CostModel.Requests(q.service(), q.operation(), q.requests(), q.entries()))
                .toList();
        List<CostModel.Breakdown> costs =
                events == 0 || batches.isEmpty() // no stage metrics: nothing measured to price
                        ? List.of()
                        : CostModel.price(
                                costInputs(
                                        stage,
                                        events,
                                        bytes,
                                        events / endToEnd,
                                        shards,
                                        batches.size(),
                                        memory,
                                        msPerBatch,
                                        producerRecords,
                                        functionRows,
                                        msBasis),
                                PriceTable.bundled());
        dev.sluice.planner.ModelledStages modelled = dev.sluice.planner.ModelledStages.newest(
                        settings.reports(), definition.pipeline())
                .orElse(null);
        if (modelled != null && !costs.isEmpty()) {
            costs = new ArrayList<>(costs);
            costs.add(modelledCost(
                    modelled, stage, events, bytes, events / endToEnd, shards, producerRecords, functionRows));
        }
        return new LoadResult(
                definition.pipeline(),
                stageName,
                target,
                settings.rate(),
                produceSeconds,
                events,
                events / Math.max(1e-3, produceSeconds),
                endToEnd,
                events / endToEnd,
                bytes,
                latency,
                accounting.seconds(),
                batches.size(),
                batches.stream().mapToLong(EmfBatch::deadLettered).sum(),
                batches.stream().mapToLong(EmfBatch::absorbed).sum(),
                reconciliation,
                reconciliation != null
                        && reconciliation.reconciled()
                        && downstream.values().stream()
                                .allMatch(dev.sluice.verify.reconcile.Reconciler.AggregateReconciliation::reconciled),
                requests,
                costs,
                settings.day(),
                stages,
                limits.apply(accounting.seconds().size()),
                List.copyOf(capacity),
                awsLatency,
                delayedCalls,
                downstream,
                cpu,
                modelled);
    }

    /**
     * The run's stream priced with the handler bench's figures for the functions: its requests per
     * event (every benched stage's, the hop's included) scaled to the run's events, full batches of
     * the definition's size, each at the bench's modelled mean duration of the first stage.
     */
    private static CostModel.Breakdown modelledCost(
            dev.sluice.planner.ModelledStages modelled,
            StageDefinition stage,
            long events,
            double bytes,
            double eventsPerSecond,
            int shards,
            long producerRecords,
            List<CostModel.Requests> measuredRows) {
        dev.sluice.planner.ModelledStages.Stage first = modelled.stages().get(0);
        List<CostModel.Requests> rows = new ArrayList<>();
        modelled.requestsPer1000().forEach((call, per1000) -> {
            String[] parts = call.split(" ", 2);
            long requests = Math.round(per1000 * events / 1000.0);
            // the bench counts requests; a batched call's entries are taken from this run's ratio
            long entries = measuredRows.stream()
                    .filter(r -> r.operation().equals(parts[1])
                            && CostModel.service(r.service()).equals(CostModel.service(parts[0])))
                    .filter(r -> r.requests() > 0)
                    .findFirst()
                    .map(r -> Math.round(requests * (double) r.entries() / r.requests()))
                    .orElse(requests);
            rows.add(new CostModel.Requests(parts[0], parts[1], requests, entries));
        });
        long batches = Math.max(1, (long) Math.ceil(events / (double) Math.max(1, first.batchSize())));
        return CostModel.modelled(
                costInputs(
                        stage,
                        events,
                        bytes,
                        eventsPerSecond,
                        shards,
                        batches,
                        first.memoryMb() > 0 ? first.memoryMb() : memory(stage),
                        first.batchMeanMillis(),
                        producerRecords,
                        rows,
                        "modelled by the handler bench"),
                PriceTable.bundled(),
                modelled.report() + ", " + modelled.generatedAt());
    }

    /** The cost model's inputs for this stage: its table sinks, lake sinks and aggregates counted. */
    private static CostModel.Inputs costInputs(
            StageDefinition stage,
            long events,
            double bytes,
            double eventsPerSecond,
            int shards,
            long invocations,
            int memoryMb,
            double msPerBatch,
            long producerRecords,
            List<CostModel.Requests> rows,
            String msBasis) {
        return new CostModel.Inputs(
                events,
                bytes,
                eventsPerSecond,
                shards,
                invocations,
                memoryMb,
                msPerBatch,
                producerRecords,
                rows,
                (int) stage.sinks().stream()
                        .filter(k -> k.kind() == SinkDefinition.Kind.TABLE)
                        .count(),
                (int) stage.sinks().stream()
                        .filter(k -> k.kind() == SinkDefinition.Kind.LAKE)
                        .count(),
                (int) stage.steps().stream()
                        .filter(t -> t.type() == StepType.AGGREGATE)
                        .count(),
                msBasis);
    }

    private static int memory(StageDefinition stage) {
        return stage.function() == null || stage.function().memoryMb() == null
                ? FunctionDefinition.DEFAULT_MEMORY_MB
                : stage.function().memoryMb();
    }

    /**
     * What the Kinesis gate throttled from the run's start on, per second since the start: every
     * second of the run ({@code runSeconds}, more if throttles came later), a throttle counted in the
     * second of the run its wall-clock second begins in ({@link LatencyAccounting}'s seconds, within
     * one second). {@code off} without a gate that enforces the limits.
     */
    static LoadResult.Limits limits(java.util.Optional<KinesisLimits> gate, long startMillis, int runSeconds) {
        if (gate.isEmpty()) {
            return new LoadResult.Limits("off", 0, 0, List.of());
        }
        Map<Integer, KinesisLimits.Throttles> bySecond = new HashMap<>();
        for (Map.Entry<Long, KinesisLimits.Throttles> e :
                gate.get().throttlesPerSecond().entrySet()) {
            long at = e.getKey() * 1000;
            if (at + 1000 <= startMillis) {
                continue; // before the run: provisioning and starting the pipeline
            }
            int second = (int) Math.max(0, (at - startMillis) / 1000);
            bySecond.merge(
                    second,
                    e.getValue(),
                    (a, b) -> new KinesisLimits.Throttles(a.records() + b.records(), a.reads() + b.reads()));
        }
        int last = Math.max(
                runSeconds - 1,
                bySecond.keySet().stream().mapToInt(i -> i).max().orElse(-1));
        List<LoadResult.ThrottleSecond> seconds = new ArrayList<>();
        long records = 0;
        long reads = 0;
        for (int s = 0; s <= last; s++) {
            KinesisLimits.Throttles t = bySecond.getOrDefault(s, new KinesisLimits.Throttles(0, 0));
            seconds.add(new LoadResult.ThrottleSecond(s, t.records(), t.reads()));
            records += t.records();
            reads += t.reads();
        }
        return new LoadResult.Limits("enforced", records, reads, seconds);
    }

    /**
     * The target rate's multiplier at a fraction of the run: 1 for a flat run; with {@code --day}
     * the run is one day compressed, and the rate follows the {@link DailyCurve} (averaging 1).
     */
    static double rateMultiplier(boolean day, double fractionOfRun) {
        return day ? DailyCurve.utc().multiplierAtSecondOfDay(86_400.0 * fractionOfRun) : 1.0;
    }

    /** Who made each counted request: the producer, Lambda's event-source mapping, or a function. */
    static List<LoadResult.Request> classify(
            List<RequestCounts.Row> rows, String sourceStream, String checkpointTable, long events) {
        List<LoadResult.Request> requests = new ArrayList<>();
        for (RequestCounts.Row r : rows) {
            String service = CostModel.service(r.service());
            String role;
            if (service.equals("kinesis")
                    && r.resource().equals(sourceStream)
                    && (r.operation().equals("PutRecords") || r.operation().equals("PutRecord"))) {
                role = "producer";
            } else if ((service.equals("kinesis") && MAPPING_READS.contains(r.operation()))
                    || (service.equals("dynamodb") && r.resource().equals(checkpointTable))) {
                role = "event-source mapping";
            } else {
                role = "function";
            }
            requests.add(new LoadResult.Request(
                    role,
                    r.service(),
                    r.operation(),
                    r.resource(),
                    r.requests(),
                    r.entries(),
                    events == 0 ? 0 : r.requests() * 1000.0 / events,
                    r.timing()));
        }
        return requests;
    }

    /**
     * A Lambda stage's capacity from the local runtime's timings, which count the Kinesis records of
     * each invocation: with KPL-aggregated input each carries many events, so the events per Kinesis
     * record (the function's EMF batch lines count events) turn the ceiling into events.
     */
    static StageCapacity lambdaCapacity(
            dev.sluice.core.definition.StageDefinition stage,
            String stageName,
            List<dev.sluice.local.esm.LocalFunction.Timing> timings,
            List<EmfBatch> batches,
            double eventBytes) {
        long kinesisRecords = timings.stream()
                .mapToLong(dev.sluice.local.esm.LocalFunction.Timing::records)
                .sum();
        long events = batches.stream().mapToLong(EmfBatch::records).sum();
        return StageCapacity.lambda(
                stageName,
                stage.batching().batchSize(),
                stage.batching().parallelizationFactor(),
                timings.stream()
                        .map(t -> new StageCapacity.Batch(t.records(), t.nanos() / 1e6))
                        .toList(),
                eventBytes,
                kinesisRecords == 0 ? 1 : Math.max(1, events / (double) kinesisRecords));
    }

    /** A generator for the schema the source stream carries, stamping the time it is asked for. */
    private Function<Instant, GeneratedEvent> generator(String schema) {
        return generator(schema, settings.seed(), settings.invalidShare());
    }

    /**
     * The load generator for a source stream's schema (payments or clickstream), stamping the time it
     * is asked for; the same events {@code ./sluice load} produces.
     *
     * @throws IllegalArgumentException for a schema no generator makes
     */
    public static Function<Instant, GeneratedEvent> generator(String schema, long seed, double invalidShare) {
        return switch (schema) {
            case "payments.transaction.v1" -> {
                PaymentGenerator payments = PaymentGenerator.builder(seed)
                        .invalidShare(invalidShare)
                        .build();
                yield payments::next;
            }
            case "clickstream.pageview.v1" -> {
                ClickstreamGenerator clicks = new ClickstreamGenerator(seed, 2_000, 5_000, invalidShare, Instant.now());
                yield clicks::next;
            }
            default ->
                throw new IllegalArgumentException("no generator for the source stream's schema '" + schema
                        + "' (known: payments.transaction.v1, clickstream.pageview.v1)");
        };
    }
}
