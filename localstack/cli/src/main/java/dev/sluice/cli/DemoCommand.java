package dev.sluice.cli;

import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.definition.SinkDefinition;
import dev.sluice.core.definition.StageDefinition;
import dev.sluice.emulators.LocalAws;
import dev.sluice.generators.GeneratedEvent;
import dev.sluice.generators.PaymentGenerator;
import dev.sluice.local.LocalPipeline;
import dev.sluice.local.esm.LocalEventSourceMapping;
import dev.sluice.local.iam.LocalIam;
import dev.sluice.verify.reconcile.AggregateCheck;
import dev.sluice.verify.reconcile.AggregatingProducer;
import dev.sluice.verify.reconcile.ClickstreamDemo;
import dev.sluice.verify.reconcile.LedgerEntry;
import dev.sluice.verify.reconcile.Producer;
import dev.sluice.verify.reconcile.Reconciler;
import dev.sluice.verify.reconcile.Reconciliation;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/** {@code ./sluice demo}: payments end to end on local AWS, then the clickstream KCL stage, reconciled. */
final class DemoCommand implements Command {

    private final CliContext context;

    DemoCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public String name() {
        return "demo";
    }

    @Override
    public String usage() {
        return String.join(
                "\n",
                "  demo [--events N] [--seed S] [--aggregate]   run payments end to end on local AWS and reconcile"
                        + " (default 10,000 events; --aggregate: the producer packs them into KPL aggregates)");
    }

    @Override
    public Set<String> options() {
        return Set.of("events", "seed");
    }

    @Override
    public Set<String> flags() {
        return Set.of("aggregate");
    }

    /** One line: the template a pipeline was provisioned from and what it gave locally. */
    static String provisioned(LocalPipeline pipeline) {
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

    @Override
    public int run(Arguments args) {
        int events = args.positiveInt("events", 10_000, CliContext.MAX_EVENTS);
        long seed = args.longValue("seed", 20_261_130L);
        long started = System.nanoTime();
        PipelineDefinition payments = context.loader().load(context.root().resolve("pipelines/payments.yaml"));
        String stageName = payments.stages().keySet().iterator().next();
        StageDefinition stage = payments.stage(stageName);
        context.out()
                .printf(
                        Locale.ROOT,
                        "Sluice demo: %,d card payments through pipelines/payments.yaml, stage '%s', on local AWS"
                                + " (no Docker, no AWS account)%n",
                        events,
                        stageName);

        try (LocalAws aws = LocalAws.start(context.options())) {
            context.out()
                    .printf(
                            Locale.ROOT,
                            "local AWS ready in %,d ms: kinesis-mock %s, dynalite %s, s3proxy %s, ElasticMQ %s%n",
                            aws.stackStartupMillis(),
                            aws.kinesisEndpoint(),
                            aws.dynamoDbEndpoint(),
                            aws.s3Endpoint(),
                            aws.sqsEndpoint());
            try (LocalPipeline pipeline =
                    LocalPipeline.provision(aws, payments, null, context.root()).start()) {
                context.out().println(provisioned(pipeline));
                String stream = pipeline.resources().streams().get(stage.input());
                PaymentGenerator generator = new PaymentGenerator(
                        seed, 1_000_000, 0.005, Instant.now().minusMillis(events * 250L));
                List<GeneratedEvent> generated = new ArrayList<>(events);
                for (int i = 0; i < events; i++) {
                    generated.add(generator.next());
                }
                Progress producing = new Progress(context.out(), "producing", events);
                boolean aggregate = "true".equals(args.get("aggregate"));
                AggregatingProducer aggregating =
                        aggregate ? new AggregatingProducer(pipeline.producerKinesis(), stream) : null;
                List<LedgerEntry> ledger = aggregate
                        ? aggregating.send(generated, producing::update)
                        : new Producer(pipeline.producerKinesis(), stream).send(generated, producing::update);
                producing.finish(ledger.size());
                // the event-source mapping counts Kinesis records: an aggregate is one
                long kinesisRecords = aggregate ? aggregating.kinesisRecords() : ledger.size();
                if (aggregate) {
                    context.out()
                            .printf(
                                    Locale.ROOT,
                                    "aggregated: %,d user records in %,d KPL aggregates%n",
                                    ledger.size(),
                                    kinesisRecords);
                }

                Progress consuming = new Progress(context.out(), "consuming", kinesisRecords);
                pipeline.awaitAcknowledged(kinesisRecords, Duration.ofMinutes(2), consuming::update);
                consuming.finish(pipeline.acknowledged());

                Reconciliation result = reconcile(aws, pipeline, stage, ledger);
                summary(pipeline, stage, ledger, result);
                ClickstreamDemo.Result clicks = clickstream(aws, Math.max(100, Math.min(2_000, events / 5)));
                double seconds = (System.nanoTime() - started) / 1e9;
                LocalIam.summaryOf(aws).ifPresent(context.out()::println);
                context.out()
                        .printf(
                                Locale.ROOT,
                                "RESULT produced=%d lake=%d table=%d aggregated=%d dead_lettered=%d late=%d lost=%d"
                                        + " duplicates=%d kcl_counted=%d kcl_lost=%d kcl_duplicates=%d seconds=%.1f %s%n",
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
                                seconds,
                                LocalIam.resultFields(aws) + " "
                                        + dev.sluice.local.limits.LocalLimits.resultFields(aws));
                return result.reconciled() && clicks.reconciled() ? 0 : 1;
            }
        }
    }

    /**
     * The clickstream pipeline's KCL stage ({@code page-counts}) behind its Lambda stage: human page
     * views counted once per page per minute by a local KCL worker.
     */
    private ClickstreamDemo.Result clickstream(LocalAws aws, int clicks) {
        PipelineDefinition clickstream = context.loader().load(context.root().resolve("pipelines/clickstream.yaml"));
        context.out().println();
        context.out()
                .printf(
                        Locale.ROOT,
                        "Clickstream: %,d page views through pipelines/clickstream.yaml: mask-and-rekey (Lambda) then"
                                + " page-counts (KCL worker)%n",
                        clicks);
        Progress counting = new Progress(context.out(), "counting", clicks - clicks / 10); // a tenth are bots
        ClickstreamDemo.Result r = ClickstreamDemo.run(aws, clickstream, context.root(), clicks, 1, counting::update);
        counting.finish(r.counted());
        context.out()
                .printf(
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
        context.out()
                .println(
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
        context.out().println();
        context.out().println("Reconciliation of the producer's ledger against every target");
        context.out()
                .printf(
                        Locale.ROOT,
                        "  produced       %,8d  into stream %s%n",
                        r.produced(),
                        resources.streams().get(stage.input()));
        context.out()
                .printf(
                        Locale.ROOT,
                        "  lake           %,8d  records in s3://%s/%s%n",
                        r.lake(),
                        resources.bucket(),
                        resources
                                .definition()
                                .lakes()
                                .get(sink(stage, SinkDefinition.Kind.LAKE))
                                .prefix());
        context.out()
                .printf(
                        Locale.ROOT,
                        "  table          %,8d  items in %s%n",
                        r.table(),
                        resources.tables().get(sink(stage, SinkDefinition.Kind.TABLE)));
        AggregateCheck.of(stage, resources.tables())
                .ifPresent(aggregate -> context.out()
                        .printf(
                                Locale.ROOT,
                                "  aggregated     %,8d  events counted in %s (aggregate %s by %s, %s windows)%n",
                                r.aggregated(),
                                aggregate.table(),
                                aggregate.aggregate(),
                                aggregate.keyField(),
                                aggregate.window()));
        context.out()
                .printf(
                        Locale.ROOT,
                        "  dead-lettered  %,8d  in %s %s%n",
                        r.deadLettered(),
                        stage.failure().deadLetterQueue(),
                        reasons);
        if (r.late() > 0) {
            context.out()
                    .printf(
                            Locale.ROOT,
                            "  late           %,8d  valid events reported LATE (left out of the aggregate, still in the"
                                    + " lake and the table)%n",
                            r.late());
        }
        context.out()
                .printf(
                        Locale.ROOT,
                        "  lost %d, duplicates %d, unexpected %d%n",
                        r.lost(),
                        r.duplicates(),
                        r.unexpected());
        context.out()
                .printf(
                        Locale.ROOT,
                        "  invocations %,d, records invoked %,d, retries %,d%n",
                        stats.invocations(),
                        stats.recordsInvoked(),
                        stats.retries());
        r.problems().forEach(p -> context.out().println("  ! " + p));
        context.out()
                .println(
                        r.reconciled()
                                ? "Every event took effect exactly once: in the lake, the table and the aggregate, or in the"
                                        + " dead-letter queue."
                                : "NOT RECONCILED: see the problems above.");
    }
}
