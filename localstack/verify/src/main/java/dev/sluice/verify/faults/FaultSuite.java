package dev.sluice.verify.faults;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.aws.metrics.EmfMetrics;
import dev.sluice.core.definition.EnvironmentNames;
import dev.sluice.core.definition.FailureDefinition;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.definition.StageDefinition;
import dev.sluice.emulators.FaultInjector;
import dev.sluice.emulators.FaultInjector.Fault;
import dev.sluice.emulators.GlobalFaults;
import dev.sluice.emulators.LocalAws;
import dev.sluice.emulators.ResourceNames;
import dev.sluice.generators.GeneratedEvent;
import dev.sluice.generators.PaymentGenerator;
import dev.sluice.local.LocalPipeline;
import dev.sluice.local.esm.LocalFunction;
import dev.sluice.verify.faults.FaultPlan.Action;
import dev.sluice.verify.reconcile.AggregatingProducer;
import dev.sluice.verify.reconcile.LakeClaimCheck;
import dev.sluice.verify.reconcile.LakeLedgerCheck;
import dev.sluice.verify.reconcile.LakeOrder;
import dev.sluice.verify.reconcile.LedgerEntry;
import dev.sluice.verify.reconcile.Producer;
import dev.sluice.verify.reconcile.Reconciler;
import dev.sluice.verify.reconcile.Reconciliation;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.kinesis.model.Shard;
import software.amazon.awssdk.services.kinesis.model.StreamStatus;

/**
 * The fault suite: the payments pipeline ({@code pipelines/payments.yaml}) run on the local stack
 * once per scenario, each with fresh resources and its own faults, then reconciled against the
 * producer's ledger. A scenario passes when no acknowledged event is lost, none took effect twice,
 * every key kept its order in the lake, every dead letter is expected, every planned fault fired,
 * and — where the faults force redelivery — records were delivered more often than they took
 * effect (the duplicates really happened and were absorbed).
 */
public final class FaultSuite {

    private static final Logger LOG = LoggerFactory.getLogger(FaultSuite.class);
    private static final String TABLE = "payments-by-id";
    private static final String DLQ = "payments-dlq";
    private static final String INPUT = "payments-raw";
    private static final String AGGREGATE = "spend-per-currency-hourly";
    private static final Duration STALL = Duration.ofSeconds(90);
    // the payments-pf test pipeline (parallelizationFactor 4, claim mode): its logical names
    private static final String PF_TABLE = "payments-pf-by-id";
    private static final String PF_AGGREGATE = "spend-per-customer-hourly";

    /**
     * One row of the table.
     *
     * @param events records the producer put, re-sends included
     * @param deliveries records handed to the function, redeliveries included
     * @param effects records that took effect: valid ones in the lake, bad ones in the dead-letter
     *     queue
     * @param absorbed duplicates the sinks recognised and did not apply (from the stage's metrics)
     */
    public record Row(
            String scenario,
            String description,
            long events,
            long deliveries,
            long effects,
            long absorbed,
            long deadLettered,
            long lost,
            long duplicateEffects,
            long orderViolations,
            int faultsPlanned,
            int faultsFired,
            boolean redeliveryExpected,
            double seconds,
            List<String> problems) {

        /** Whether every invariant held. */
        public boolean passed() {
            return problems.isEmpty();
        }

        /** This row with one more problem found after the scenario ran. */
        public Row withProblem(String problem) {
            List<String> all = new java.util.ArrayList<>(problems);
            all.add(problem);
            return new Row(
                    scenario,
                    description,
                    events,
                    deliveries,
                    effects,
                    absorbed,
                    deadLettered,
                    lost,
                    duplicateEffects,
                    orderViolations,
                    faultsPlanned,
                    faultsFired,
                    redeliveryExpected,
                    seconds,
                    List.copyOf(all));
        }
    }

    private final LocalAws aws;
    private final PipelineDefinition payments;
    private final Path repository;
    private final Path workDirectory;
    private final ObjectMapper mapper = new ObjectMapper();
    private final ObjectMapper decimals =
            new ObjectMapper().enable(com.fasterxml.jackson.databind.DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

    /**
     * @param aws a running stack whose Kinesis persists its data (the Kinesis restart scenario needs it)
     * @param payments the payments pipeline definition
     * @param repository the repository root (pipelines and schemas are read from it)
     * @param workDirectory where metrics files go
     */
    public FaultSuite(LocalAws aws, PipelineDefinition payments, Path repository, Path workDirectory) {
        this.aws = aws;
        this.payments = payments;
        this.repository = repository;
        this.workDirectory = workDirectory;
    }

    /** The {@code payments-pf} test pipeline's definition, read on first use. */
    private PipelineDefinition paymentsPf;

    private Path pfPipelines;

    /**
     * The {@code payments-pf} test pipeline ({@code /sluice/pf/payments-pf.yaml} on the class path),
     * copied into a folder of definitions under the work directory for the function to read.
     */
    private synchronized PipelineDefinition paymentsPf() {
        if (paymentsPf == null) {
            String file = FaultScenario.PAYMENTS_PF + ".yaml";
            try (java.io.InputStream yaml = FaultSuite.class.getResourceAsStream("/sluice/pf/" + file)) {
                if (yaml == null) {
                    throw new IllegalStateException("no /sluice/pf/" + file + " on the class path");
                }
                pfPipelines = Files.createDirectories(workDirectory.resolve("pipelines-pf"));
                Files.write(pfPipelines.resolve(file), yaml.readAllBytes());
            } catch (IOException e) {
                throw new UncheckedIOException("cannot copy the " + FaultScenario.PAYMENTS_PF + " pipeline", e);
            }
            paymentsPf = new dev.sluice.core.definition.DefinitionLoader(
                            dev.sluice.core.schema.SchemaCatalog.fromDirectory(repository.resolve("schemas"), mapper))
                    .load(pfPipelines.resolve(file));
        }
        return paymentsPf;
    }

    /** The size limit of the producer's aggregates when the whole suite aggregates. */
    public static final int SUITE_AGGREGATE_BYTES = 16 * 1024;

    private boolean aggregating;

    /**
     * The suite with every producer aggregating as the KPL does ({@code ./sluice faults --aggregate}),
     * or only the scenarios that ask for it.
     */
    public FaultSuite aggregating(boolean all) {
        this.aggregating = all;
        return this;
    }

    /**
     * The scenarios, in the order they run; the last combines the others' faults. Lake faults strike
     * the first PUT: at small volumes a run may make few of them.
     */
    public static List<FaultScenario> scenarios(int events) {
        int n = events;
        return List.of(
                new FaultScenario("baseline", "no fault", n, 0.02, plan -> {}),
                new FaultScenario(
                        "table-throttled",
                        "DynamoDB throttles table writes",
                        n,
                        0.02,
                        plan -> plan.sdk("PutItem", plan.table(TABLE), 2, Fault.THROTTLED)
                                .sdk("PutItem", plan.table(TABLE), 3, Fault.THROTTLED)
                                .sdk("PutItem", plan.table(TABLE), 4, Fault.THROTTLED)),
                new FaultScenario(
                        "lake-5xx",
                        "S3 answers 500 to lake writes",
                        n,
                        0.02,
                        plan -> plan.sdk("PutObject", plan.bucket(), 1, Fault.SERVER_ERROR)
                                .sdk("PutObject", plan.bucket(), 2, Fault.SERVER_ERROR)
                                .sdk("PutObject", plan.bucket(), 3, Fault.SERVER_ERROR)),
                new FaultScenario(
                        "table-timeout",
                        "table write applied, attempt timed out",
                        n,
                        0.02,
                        plan -> plan.sdk("PutItem", plan.table(TABLE), 2, Fault.TIMEOUT)),
                new FaultScenario(
                        "table-response-lost",
                        "table write applied, response lost",
                        n,
                        0.02,
                        plan -> plan.sdk("PutItem", plan.table(TABLE), 3, Fault.RESPONSE_LOST)),
                new FaultScenario(
                        "lake-response-lost",
                        "lake object written, response lost",
                        n,
                        0.02,
                        plan -> plan.sdk("PutObject", plan.bucket(), 1, Fault.RESPONSE_LOST)),
                new FaultScenario(
                        "aggregate-response-lost",
                        "aggregate update applied, response lost",
                        n,
                        0.02,
                        plan -> plan.sdk("UpdateItem", plan.table(AGGREGATE), 2, Fault.RESPONSE_LOST)),
                new FaultScenario(
                        "dlq-unreachable",
                        "dead-letter queue unreachable once",
                        n,
                        0.05,
                        plan -> plan.sdk("SendMessageBatch", plan.queueUrl(DLQ), 1, Fault.NOT_SENT)),
                new FaultScenario(
                        "crash-after-writes",
                        "function dies after its writes, before answering",
                        n,
                        0.02,
                        plan -> plan.crashAfterWrites(2, 5)),
                new FaultScenario(
                        "crash-mid-handler",
                        "function dies between the lake and the table",
                        n,
                        0.02,
                        plan -> plan.sdk("PutObject", plan.bucket(), 1, Fault.CRASH)),
                new FaultScenario(
                        "runner-killed",
                        "event-source mapping runner killed and restarted",
                        n,
                        0.02,
                        plan -> plan.midway(Action.KILL_RUNNER)),
                new FaultScenario(
                        "kinesis-restarted",
                        "kinesis-mock restarted from its persisted data",
                        n,
                        0.02,
                        plan -> plan.midway(Action.RESTART_KINESIS)),
                new FaultScenario("poison-records", "one event in five is bad", n, 0.2, plan -> {}),
                new FaultScenario(
                        "producer-resends",
                        "the producer sends one event in ten again",
                        n,
                        0.05,
                        plan -> plan.resend(0.1)),
                new FaultScenario(
                        "producer-put-ambiguous",
                        "a producer's put lands but its answer is lost; all 500 sent again",
                        n,
                        0.02,
                        plan -> plan.sdk("PutRecords", plan.stream(INPUT), 1, Fault.RESPONSE_LOST)),
                new FaultScenario(
                        "shard-split", "a shard splits mid-stream", n, 0.02, plan -> plan.midway(Action.SPLIT_SHARD)),
                new FaultScenario(
                        "aggregate-rejects-record",
                        "the aggregate store refuses one valid payment in ten for good",
                        n,
                        0.02,
                        plan -> plan.aggregateRefuses(plan.table(AGGREGATE), 0.1)),
                new FaultScenario(
                        "iam-grant-revoked",
                        "the stage's role loses its table PutItem grant mid-run, then gets it back",
                        n,
                        0.02,
                        plan -> plan.revokeGrant("dynamodb:PutItem", "table", TABLE)),
                new FaultScenario(
                        "persona-denied",
                        "each persona attempts what it must not",
                        n,
                        0.02,
                        FaultPlan::personasAttemptForbidden),
                new FaultScenario(
                        "kpl-partial-redelivery",
                        "KPL-aggregated input; table and aggregate writes fail in the middle of an aggregate,"
                                + " the function dies after its writes: aggregates redelivered half applied",
                        n,
                        0.02,
                        plan -> plan.aggregate(16 * 1024)
                                .sdk("PutItem", plan.table(TABLE), 5, Fault.RESPONSE_LOST)
                                .sdk("UpdateItem", plan.table(AGGREGATE), 2, Fault.RESPONSE_LOST)
                                .crashAfterWrites(3)),
                new FaultScenario(
                        "kpl-shard-split",
                        "KPL-aggregated input; a shard splits between the producer's sends, its kept shard map goes"
                                + " stale: aggregates land on the children, those holding records of the other child"
                                + " are put again",
                        n,
                        0.02,
                        plan -> plan.aggregate(16 * 1024).midway(Action.SPLIT_SHARD)),
                new FaultScenario(
                        "kpl-corrupt",
                        "KPL-aggregated input; in one aggregate in three the first user record goes alone into an"
                                + " aggregate with a corrupt MD5 digest",
                        n,
                        0.02,
                        plan -> plan.aggregate(8 * 1024).corruptAggregates(3)),
                new FaultScenario(
                        "lambda-concurrent-duplicate",
                        "the same batch delivered to two invocations at once",
                        n,
                        0.02,
                        // the first two invocations (one a shard, as the first half arrives): with batches of
                        // 500, 300 events make as few as 3 invocations, so a later one may never come
                        plan -> plan.deliverTwiceAtOnce(1, 2)),
                new FaultScenario(
                        "lambda-timeout-overlap",
                        "invocations outlast their timeout; their lake PUTs, table write and aggregate update land"
                                + " after (or while) Lambda's retry of the batch",
                        n,
                        0.02,
                        plan -> plan.functionTimeout(Duration.ofSeconds(8))
                                .late("PutObject", plan.bucket(), 1, FaultPlan.Release.AFTER_RETRY)
                                .late("PutObject", plan.bucket(), 2, FaultPlan.Release.AT_TIMEOUT)
                                .late("PutItem", plan.table(TABLE), 150, FaultPlan.Release.AFTER_RETRY)
                                .late("UpdateItem", plan.table(AGGREGATE), 3, FaultPlan.Release.AFTER_RETRY)),
                new FaultScenario(
                        "lambda-timeout-give-up",
                        "an invocation outlasts its timeout and the mapping gives up on its batch (no retries);"
                                + " its lake PUT lands after the shard's next batch dropped its intent",
                        n,
                        0.0,
                        plan -> plan.functionTimeout(Duration.ofSeconds(8))
                                .late("PutObject", plan.bucket(), 1, FaultPlan.Release.AFTER_ABANDONED),
                        // the held batch needs a next one on its shard to drop its intent: in batches of the
                        // definition's 500, a shard's ~500 events may come as two and the held one be the
                        // last (the fault then never fires); in batches of 100 every shard has several
                        stage -> stage.withBatching(stage.batching().withBatchSize(100))
                                .withFailure(new FailureDefinition(
                                        stage.failure().deadLetterQueue(),
                                        0,
                                        stage.failure().maxRecordAgeSeconds(),
                                        false))),
                new FaultScenario(
                                "pf-crash-mid-batch",
                                "parallelizationFactor 4 (claim mode): invocations die in the middle of their batch while"
                                        + " the shard's other batches run: after a deduplicate write (before the lake put),"
                                        + " after a lake put (before the aggregate), and after all their writes",
                                n,
                                0.02,
                                plan -> plan.sdk("PutItem", plan.table(PF_TABLE), 20, Fault.CRASH)
                                        .sdk("PutObject", plan.bucket(), 3, Fault.CRASH)
                                        .crashAfterWrites(6))
                        .on(FaultScenario.PAYMENTS_PF),
                new FaultScenario(
                                "pf-overlapping-batches",
                                "parallelizationFactor 4 (claim mode): batches of one shard overlap: invocations outlast"
                                        + " their timeout, their lake PUTs, deduplicate write and aggregate update land after"
                                        + " (or while) the retry runs; a batch also runs twice at once",
                                n,
                                0.02,
                                plan -> plan.functionTimeout(Duration.ofSeconds(8))
                                        .late("PutObject", plan.bucket(), 1, FaultPlan.Release.AFTER_RETRY)
                                        .late("PutObject", plan.bucket(), 3, FaultPlan.Release.AT_TIMEOUT)
                                        .late("PutItem", plan.table(PF_TABLE), 120, FaultPlan.Release.AFTER_RETRY)
                                        .late("UpdateItem", plan.table(PF_AGGREGATE), 4, FaultPlan.Release.AFTER_RETRY)
                                        .deliverTwiceAtOnce(10))
                        .on(FaultScenario.PAYMENTS_PF),
                new FaultScenario(
                                "pf-reshard",
                                "parallelizationFactor 4 (claim mode): the first shard splits, its upper child and the"
                                        + " second shard merge, while an invocation of the first batches is held in flight"
                                        + " (each shard is a parent); it times out, its lake PUT lands after the reshard"
                                        + " while the retry runs; a later deduplicate write's response is lost",
                                n,
                                0.02,
                                plan -> plan.functionTimeout(Duration.ofSeconds(8))
                                        .late("PutObject", plan.bucket(), 2, FaultPlan.Release.AFTER_ACTIONS)
                                        .sdk("PutItem", plan.table(PF_TABLE), 240, Fault.RESPONSE_LOST)
                                        .midway(Action.SPLIT_SHARD)
                                        .midway(Action.MERGE_SHARDS))
                        .on(FaultScenario.PAYMENTS_PF),
                new FaultScenario(
                        "chaos",
                        "all of the above at once, the IAM scenarios aside",
                        n,
                        0.1,
                        plan -> plan.sdk("PutItem", plan.table(TABLE), 2, Fault.THROTTLED)
                                .sdk("PutObject", plan.bucket(), 1, Fault.RESPONSE_LOST)
                                .sdk("PutItem", plan.table(TABLE), 4, Fault.RESPONSE_LOST)
                                .sdk("SendMessageBatch", plan.queueUrl(DLQ), 2, Fault.NOT_SENT)
                                .sdk("UpdateItem", plan.table(AGGREGATE), 3, Fault.TIMEOUT)
                                .sdk("PutRecords", plan.stream(INPUT), 2, Fault.RESPONSE_LOST)
                                .aggregateRefuses(plan.table(AGGREGATE), 0.05)
                                .crashAfterWrites(3)
                                .midway(Action.SPLIT_SHARD)
                                .midway(Action.KILL_RUNNER)
                                .midway(Action.RESTART_KINESIS)));
    }

    /** Runs one scenario and reconciles it. */
    public Row run(FaultScenario scenario) {
        long started = System.nanoTime();
        PipelineDefinition base = scenario.pipeline().equals(FaultScenario.PAYMENTS_PF) ? paymentsPf() : payments;
        String stageName = base.stages().keySet().iterator().next();
        PipelineDefinition definition = withStage(base, stageName, scenario.stage());
        StageDefinition stage = definition.stage(stageName);
        ResourceNames names = ResourceNames.random();
        Path metrics = workDirectory.resolve(scenario.name() + "-" + names.suffix() + ".metrics.jsonl");
        Map<String, String> environment = new java.util.LinkedHashMap<>();
        environment.put(EnvironmentNames.METRICS_FILE, metrics.toString());
        if (scenario.pipeline().equals(FaultScenario.PAYMENTS_PF)) {
            // the function reads its definition as the suite does: the test pipeline's folder
            environment.put(EnvironmentNames.PIPELINES_DIR, pfPipelines.toString());
        }
        LocalPipeline pipeline =
                LocalPipeline.provision(aws, definition, names, repository).withEnvironment(environment);
        FaultPlan plan = new FaultPlan(pipeline.resources(), stageName);
        scenario.plan().accept(plan);
        if (aggregating && plan.aggregateBytes() == 0) {
            plan.aggregate(SUITE_AGGREGATE_BYTES);
        }
        pipeline.function(stageName).crashAfterWrites(plan.crashes());
        pipeline.function(stageName).deliverTwiceAtOnce(plan.twins());
        armLateCalls(plan, pipeline.function(stageName), pipeline.resources().ledgerTable());
        String stream = pipeline.resources().streams().get(stage.input());
        Set<String> refused = new HashSet<>();
        List<GeneratedEvent> events = refuse(generate(scenario), plan.refusedShare(), refused);
        List<String> problems = new ArrayList<>();
        List<LedgerEntry> ledger = new ArrayList<>();
        IamFaults.Revoking revoking = null;
        try (pipeline;
                GlobalFaults.Installation installed = plan.injector().install()) {
            if (plan.revocation() != null) {
                revoking = IamFaults.revoke(aws, pipeline, stageName, plan);
            }
            pipeline.start(Optional.of(Duration.ofMillis(250)));
            if (plan.actions().contains(Action.KILL_RUNNER)) {
                pipeline.killBeforeNextCheckpoint(stageName);
            }
            Producer producer = new Producer(pipeline.producerKinesis(), stream);
            AggregatingProducer aggregating = plan.aggregateBytes() > 0
                    ? new AggregatingProducer(
                            pipeline.producerKinesis(), stream, plan.aggregateBytes(), plan.corruptEvery())
                    : null;
            int half = events.size() / 2;
            ledger.addAll(
                    aggregating != null
                            ? aggregating.send(events.subList(0, half), done -> {})
                            : producer.send(events.subList(0, half), done -> {}));
            // act while the first half is still being consumed: a killed runner then has a batch in hand
            awaitDelivered(pipeline);
            for (Action action : plan.actions()) {
                act(action, pipeline, stageName, stream);
                plan.actionDone();
            }
            List<GeneratedEvent> rest = new ArrayList<>(events.subList(half, events.size()));
            rest.addAll(resends(events.subList(0, half), plan.resendShare()));
            if (plan.resendShare() > 0) {
                plan.actionDone();
            }
            ledger.addAll(aggregating != null ? aggregating.send(rest, done -> {}) : producer.send(rest, done -> {}));
            if (aggregating != null) {
                // the producer keeps its shard map: listed at its first send, again once its puts met the
                // reshards (all done at one moment, between its two sends)
                long reshards = plan.actions().stream().anyMatch(Action::reshards) ? 1 : 0;
                if (aggregating.shardListings() != 1 + reshards) {
                    problems.add("the producer listed the shards " + aggregating.shardListings() + " times, not 1 + "
                            + reshards + " reshard(s)");
                }
                LOG.info(
                        "aggregating producer: {} shard listing(s), {} misplaced aggregate(s) put again",
                        aggregating.shardListings(),
                        aggregating.misplaced());
            }
            if (plan.corruptEvery() > 0
                    && ledger.stream()
                            .anyMatch(e -> AggregatingProducer.MALFORMED_AGGREGATE.equals(
                                    e.event().expectedReason()))) {
                plan.actionDone();
            }
            // the mapping counts Kinesis records: an aggregate is one
            pipeline.awaitAcknowledged(
                    aggregating != null ? aggregating.kinesisRecords() : ledger.size(), STALL, done -> {});
            // the stream may hold more than the ledger (copies of puts that got no answer): quiet means
            // every shard checkpointed past the last record the producer saw acknowledged there
            pipeline.awaitCheckpointed(stageName, LedgerEntry.lastSequenceByShard(ledger), STALL);
            if (plan.personaAttempts()) {
                problems.addAll(IamFaults.personasAttemptForbidden(aws, pipeline));
                plan.actionDone();
            }
        } catch (RuntimeException e) {
            LOG.error("scenario {} failed to run", scenario.name(), e);
            problems.add("did not complete: " + e.getMessage());
        }
        if (revoking != null) {
            problems.addAll(revoking.problems(failedBatches(metrics)));
            revoking.close();
        }
        return reconcile(scenario, plan, pipeline, stage, ledger, refused, metrics, problems, started);
    }

    /**
     * Arms the plan's late calls: each is held until its invocation timed out (the function's timeout
     * is the plan's), then let through after the retry made the batch durable, or at once.
     */
    private void armLateCalls(FaultPlan plan, LocalFunction function, String ledgerTable) {
        if (plan.functionTimeout() != null) {
            function.timeout(plan.functionTimeout());
        }
        for (FaultPlan.Late late : plan.lateCalls()) {
            plan.injector()
                    .late(
                            late.operation(),
                            late.resource(),
                            late.call(),
                            () -> {
                                int before = function.timeouts();
                                return switch (late.release()) {
                                    case AT_TIMEOUT -> () -> function.timeouts() > before;
                                    case AFTER_RETRY ->
                                        () -> function.timeouts() > before
                                                && function.retriedTimeouts() >= function.timeouts();
                                    case AFTER_ABANDONED -> afterAbandoned(plan, function, before, ledgerTable);
                                    case AFTER_ACTIONS ->
                                        () -> function.timeouts() > before
                                                && plan.actionsDone()
                                                        >= plan.actions().size();
                                };
                            },
                            STALL);
        }
    }

    /**
     * A release condition made as a lake PUT is held (its writer recorded its intent just before):
     * true once the invocation timed out and one of the intents open at that moment is no longer open
     * while no object holds records under its key — another invocation abandoned it. The key is
     * recorded on the plan; the ledger is read at most every 100 ms.
     */
    private java.util.function.BooleanSupplier afterAbandoned(
            FaultPlan plan, LocalFunction function, int timeoutsBefore, String ledgerTable) {
        Map<String, String> openWhenHeld = LakeLedgerCheck.openIntents(aws.dynamoDb(), ledgerTable);
        long[] nextLook = {0};
        return () -> {
            if (function.timeouts() <= timeoutsBefore || System.nanoTime() < nextLook[0]) {
                return false;
            }
            nextLook[0] = System.nanoTime() + Duration.ofMillis(100).toNanos();
            Map<String, String> open = LakeLedgerCheck.openIntents(aws.dynamoDb(), ledgerTable);
            for (Map.Entry<String, String> intent : openWhenHeld.entrySet()) {
                if (!intent.getValue().equals(open.get(intent.getKey()))
                        && !new LakeLedgerCheck(aws.s3(), aws.dynamoDb())
                                .holdsRecords(plan.bucket(), intent.getValue())) {
                    plan.abandoned(intent.getValue());
                    LOG.info(
                            "lake intent {} abandoned while its PUT is held: letting the PUT through",
                            intent.getValue());
                    return true;
                }
            }
            return false;
        };
    }

    /** The pipeline with the stage changed as the scenario says. */
    private static PipelineDefinition withStage(
            PipelineDefinition pipeline, String stageName, java.util.function.UnaryOperator<StageDefinition> change) {
        StageDefinition stage = pipeline.stage(stageName);
        StageDefinition changed = change.apply(stage);
        if (changed.equals(stage)) {
            return pipeline;
        }
        Map<String, StageDefinition> stages = new java.util.LinkedHashMap<>(pipeline.stages());
        stages.put(stageName, changed);
        return new PipelineDefinition(
                pipeline.pipeline(),
                pipeline.description(),
                pipeline.streams(),
                pipeline.lakes(),
                pipeline.tables(),
                pipeline.queues(),
                pipeline.references(),
                stages,
                pipeline.access());
    }

    /** The stage's FailedBatches metric, summed over its EMF lines. */
    private long failedBatches(Path metrics) {
        if (!Files.exists(metrics)) {
            return 0;
        }
        try {
            long total = 0;
            for (String line : Files.readAllLines(metrics)) {
                total += mapper.readTree(line).path(EmfMetrics.FAILED_BATCHES).asLong();
            }
            return total;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read metrics " + metrics, e);
        }
    }

    private List<GeneratedEvent> generate(FaultScenario scenario) {
        PaymentGenerator generator = new PaymentGenerator(
                scenario.name().hashCode(),
                40,
                scenario.invalidShare(),
                Instant.now().minusMillis(scenario.events() * 250L));
        List<GeneratedEvent> events = new ArrayList<>(scenario.events());
        for (int i = 0; i < scenario.events(); i++) {
            events.add(generator.next());
        }
        return events;
    }

    /**
     * The events with this share of the valid ones marked for the aggregate store to refuse: their
     * amount becomes {@link FaultPlan#REFUSED_AMOUNT} (still schema-valid); their ids go into
     * {@code refused}, the expected outcome the reconciliation checks.
     */
    private List<GeneratedEvent> refuse(List<GeneratedEvent> events, double share, Set<String> refused) {
        if (share <= 0) {
            return events;
        }
        int every = (int) Math.max(1, Math.round(1 / share));
        List<GeneratedEvent> marked = new ArrayList<>(events.size());
        int valid = 0;
        for (GeneratedEvent event : events) {
            if (event.valid() && valid++ % every == every - 1) {
                try {
                    ObjectNode json = (ObjectNode) decimals.readTree(event.data());
                    ((ObjectNode) json.get("payload")).put("amount", FaultPlan.REFUSED_AMOUNT);
                    marked.add(new GeneratedEvent(
                            event.eventId(), event.partitionKey(), decimals.writeValueAsBytes(json), null));
                    refused.add(event.eventId());
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot mark " + event.eventId(), e);
                }
            } else {
                marked.add(event);
            }
        }
        return marked;
    }

    /** Every n-th event again (same id, same bytes), as a producer whose puts timed out sends them again. */
    private static List<GeneratedEvent> resends(List<GeneratedEvent> sent, double share) {
        List<GeneratedEvent> again = new ArrayList<>();
        if (share <= 0) {
            return again;
        }
        int every = (int) Math.max(1, Math.round(1 / share));
        for (int i = 0; i < sent.size(); i += every) {
            again.add(sent.get(i));
        }
        return again;
    }

    private void act(Action action, LocalPipeline pipeline, String stage, String stream) {
        switch (action) {
            case KILL_RUNNER -> pipeline.restartKilled(stage);
            case RESTART_KINESIS -> {
                // kinesis-mock writes its data out every second: wait until a write that began after
                // the last acknowledged put is complete (a fixed wait was too short on a busy machine)
                aws.awaitKinesisPersisted(Duration.ofSeconds(15));
                aws.restartKinesis();
            }
            case SPLIT_SHARD -> split(stream);
            case MERGE_SHARDS -> merge(stream);
        }
        LOG.info("fault action {} done", action);
    }

    /**
     * Merges the two open shards with the highest hash keys (adjacent: open shards cover the key space
     * without gaps): after a split of the first shard, its upper child and the next shard.
     */
    private void merge(String stream) {
        List<Shard> open = aws.kinesis().listShards(b -> b.streamName(stream)).shards().stream()
                .filter(s -> s.sequenceNumberRange().endingSequenceNumber() == null)
                .sorted(java.util.Comparator.comparing(
                        (Shard s) -> new BigInteger(s.hashKeyRange().startingHashKey())))
                .toList();
        if (open.size() < 2) {
            throw new IllegalStateException(
                    "stream " + stream + " has " + open.size() + " open shard(s): none to merge");
        }
        Shard lower = open.get(open.size() - 2);
        Shard upper = open.get(open.size() - 1);
        aws.kinesis()
                .mergeShards(
                        b -> b.streamName(stream).shardToMerge(lower.shardId()).adjacentShardToMerge(upper.shardId()));
        awaitActive(stream, "the merge");
    }

    private void split(String stream) {
        Shard parent = aws.kinesis().listShards(b -> b.streamName(stream)).shards().stream()
                .filter(s -> s.sequenceNumberRange().endingSequenceNumber() == null)
                .findFirst()
                .orElseThrow();
        BigInteger start = new BigInteger(parent.hashKeyRange().startingHashKey());
        BigInteger end = new BigInteger(parent.hashKeyRange().endingHashKey());
        BigInteger middle = start.add(end).shiftRight(1);
        aws.kinesis()
                .splitShard(
                        b -> b.streamName(stream).shardToSplit(parent.shardId()).newStartingHashKey(middle.toString()));
        awaitActive(stream, "the split");
    }

    private void awaitActive(String stream, String after) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (aws.kinesis()
                        .describeStreamSummary(b -> b.streamName(stream))
                        .streamDescriptionSummary()
                        .streamStatus()
                != StreamStatus.ACTIVE) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("stream " + stream + " did not become active after " + after);
            }
            LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
        }
    }

    private static void awaitDelivered(LocalPipeline pipeline) {
        long deadline = System.nanoTime() + STALL.toNanos();
        while (pipeline.allMappings().stream()
                        .mapToLong(m -> m.stats().recordsInvoked())
                        .sum()
                == 0) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("nothing delivered to the function for " + STALL.toSeconds() + " s");
            }
            LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
        }
    }

    private Row reconcile(
            FaultScenario scenario,
            FaultPlan plan,
            LocalPipeline pipeline,
            StageDefinition stage,
            List<LedgerEntry> ledger,
            Set<String> refused,
            Path metrics,
            List<String> problems,
            long started) {
        var resources = pipeline.resources();
        String lakePrefix = Reconciler.lakePrefix(resources, stage);
        Reconciliation r =
                new Reconciler(aws.s3(), aws.dynamoDb(), aws.sqs()).reconcile(ledger, resources, stage, refused);
        LakeOrder.Result order = new LakeOrder(aws.s3()).check(ledger, resources.bucket(), lakePrefix, 3);
        // the mapping counts Kinesis records; with aggregated input the stage's own figures count user
        // records (a twin invocation's included); a twin delivery of plain records is counted apart
        long deliveries = plan.aggregateBytes() > 0
                ? metricSum(metrics, EmfMetrics.RECORDS)
                : pipeline.allMappings().stream()
                                .mapToLong(m -> m.stats().recordsInvoked())
                                .sum()
                        + pipeline.function(plan.stage()).twinRecords();
        long absorbed = absorbed(metrics);
        long effects = r.effects();
        long distinct = r.produced();
        int planned = plan.plannedCount();
        int fired = plan.injector().fired().size()
                + pipeline.function(plan.stage()).crashes()
                + pipeline.function(plan.stage()).twinInvocations()
                + plan.actionsDone();
        // throttling, 5xx and time-outs are retried inside the SDK first; the other faults reach the
        // event-source mapping, which must deliver again
        // a batch given up at its first failure is not delivered again
        boolean redeliveryExpected = planned > 0
                && stage.failure().maxRetryAttempts() != 0
                && (!plan.crashes().isEmpty()
                        || !plan.twins().isEmpty()
                        || !plan.lateCalls().isEmpty()
                        || plan.resendShare() > 0
                        || plan.actions().contains(Action.KILL_RUNNER)
                        || plan.injector().planned().stream()
                                .anyMatch(rule -> rule.fault() == Fault.RESPONSE_LOST
                                        || rule.fault() == Fault.NOT_SENT
                                        || rule.fault() == Fault.CRASH));
        if (!r.reconciled()) {
            problems.add("not reconciled: lost " + r.lost() + ", duplicates " + r.duplicates() + ", unexpected "
                    + r.unexpected());
            problems.addAll(r.problems());
        }
        // every object of the lake named by its ledger; nothing under the key of an abandoned intent
        problems.addAll(new LakeLedgerCheck(aws.s3(), aws.dynamoDb())
                .check(resources.bucket(), lakePrefix, resources.ledgerTable(), plan.abandonedKeys()));
        if (dev.sluice.aws.sink.S3LakeSink.claimMode(stage)) {
            // claim mode writes no ledger: every object holding records is the one its events' deduplicate
            // items name, and the ledger holds nothing
            LakeClaimCheck.Result claims = new LakeClaimCheck(aws.s3(), aws.dynamoDb())
                    .check(
                            resources.bucket(),
                            lakePrefix,
                            resources.tables().get(stage.deduplicate()),
                            resources.ledgerTable());
            problems.addAll(claims.problems());
            LOG.info(
                    "scenario {} (claim mode): {} lake objects holding {} events, {} tombstones",
                    scenario.name(),
                    claims.figures().objects(),
                    claims.figures().events(),
                    claims.figures().tombstones());
        }
        if (r.givenUp() > 0 && stage.failure().maxRetryAttempts() != 0) {
            // only a scenario that plans it may see batches given up: elsewhere they are records lost
            problems.add(r.givenUp() + " events given up by the event-source mapping (retries or record age"
                    + " exhausted), " + (r.givenUp() - r.givenUpInLake()) + " of them not in the lake");
        }
        if (r.givenUp() > 0) {
            LOG.info(
                    "scenario {}: {} events given up by the mapping ({} of them in the lake, {} in the table)",
                    scenario.name(),
                    r.givenUp(),
                    r.givenUpInLake(),
                    r.givenUpInTable());
        }
        if (order.violations() > 0) {
            problems.add(order.violations() + " events out of key order in the lake, e.g. " + order.examples());
        }
        if (fired < planned) {
            List<FaultInjector.Rule> unfired = new ArrayList<>(plan.injector().planned());
            unfired.removeAll(plan.injector().fired());
            problems.add("only " + fired + " of " + planned + " planned faults fired; SDK faults that did not: "
                    + unfired + ", crashes " + pipeline.function(plan.stage()).crashes() + " of "
                    + plan.crashes().size() + ", actions " + plan.actionsDone() + " of "
                    + plan.actions().size());
        }
        if (effects != distinct) {
            problems.add(effects + " records took effect for " + distinct + " distinct events produced");
        }
        if (redeliveryExpected && deliveries <= effects) {
            problems.add("deliveries " + deliveries + " did not exceed effects " + effects
                    + ": the faults forced no redelivery");
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        LOG.info(
                "scenario {}: events={} deliveries={} effects={} absorbed={} dlq={} lost={} duplicates={}"
                        + " order_violations={} faults={}/{} problems={}",
                scenario.name(),
                ledger.size(),
                deliveries,
                effects,
                absorbed,
                r.deadLettered(),
                r.lost(),
                r.duplicates(),
                order.violations(),
                fired,
                planned,
                problems.size());
        return new Row(
                scenario.name(),
                scenario.description(),
                ledger.size(),
                deliveries,
                effects,
                absorbed,
                r.deadLettered(),
                r.lost(),
                r.duplicates(),
                order.violations(),
                planned,
                fired,
                redeliveryExpected,
                seconds,
                List.copyOf(problems));
    }

    /** A figure of the stage's EMF batch lines, summed. */
    private long metricSum(Path metrics, String name) {
        if (!Files.exists(metrics)) {
            return 0;
        }
        try {
            long total = 0;
            for (String line : Files.readAllLines(metrics)) {
                total += mapper.readTree(line).path(name).asLong();
            }
            return total;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read metrics " + metrics, e);
        }
    }

    private long absorbed(Path metrics) {
        if (!Files.exists(metrics)) {
            return 0;
        }
        try {
            long total = 0;
            for (String line : Files.readAllLines(metrics)) {
                JsonNode document = mapper.readTree(line);
                total += document.path(EmfMetrics.ABSORBED_DUPLICATES).asLong();
            }
            return total;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read metrics " + metrics, e);
        }
    }
}
