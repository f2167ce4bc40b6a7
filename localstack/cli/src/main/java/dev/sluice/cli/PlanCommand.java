package dev.sluice.cli;

import dev.sluice.planner.CapacityPlanner;
import dev.sluice.planner.MeasuredFigures;
import dev.sluice.planner.PlanInputs;
import dev.sluice.planner.PlanReport;
import dev.sluice.planner.PriceTable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/** {@code ./sluice plan}: the capacity planner; needs no local stack. */
final class PlanCommand implements Command {

    private final CliContext context;

    PlanCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public String name() {
        return "plan";
    }

    @Override
    public String usage() {
        return String.join(
                "\n",
                "  plan --example payments|clickstream | --users N --events-per-day X --record-bytes B --retention-days D",
                "       [--peak-events-per-day Y] [--stream-retention-hours H] [--fan-out-consumers C] [--headroom F]",
                "       [--parallelization P] [--leases-per-worker L] [--target-latency-ms T] [--compression R]",
                "       [--batch-size N] [--lambda-memory-mb M] [--lambda-ms-per-batch MS] [--price-table FILE]",
                "       [--from-report PATH|latest] [--dynamodb-capacity on-demand|provisioned] [--kcl-stages N]",
                "       [--hop-streams N]",
                "                                 capacity plan and monthly AWS cost (see load-tests/planner/README.md);",
                "                                 --from-report: a load run's or handler bench's measured duration per"
                        + " batch, per-shard ceiling (and the bench's requests per event)");
    }

    @Override
    public Set<String> options() {
        return PLAN_OPTIONS;
    }

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
            "price-table",
            "from-report",
            "dynamodb-capacity",
            "kcl-stages",
            "hop-streams");

    @Override
    public int run(Arguments args) {
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
        MeasuredFigures measured = measured(args.get("from-report"), example);
        List<String> sources = new java.util.ArrayList<>();
        if (args.get("record-bytes") != null) {
            inputs.recordBytes(args.positiveInt("record-bytes", 1));
        } else if (measured != null && measured.recordBytes() > 0) {
            int bytes = (int) Math.ceil(measured.recordBytes());
            inputs.recordBytes(bytes);
            sources.add(String.format(
                    Locale.ROOT,
                    "record size: %d bytes, the pipeline's generated records in the handler bench (--record-bytes"
                            + " overrides), %s",
                    bytes,
                    measured.source()));
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
                .batchSize(args.positiveInt(
                        "batch-size", measured != null && measured.modelled() ? measured.batchSize() : 100))
                .lambdaMemoryMb(args.positiveInt(
                        "lambda-memory-mb", measured != null && measured.memoryMb() > 0 ? measured.memoryMb() : 1024));
        if (args.get("dynamodb-capacity") != null) {
            try {
                inputs.dynamoDbCapacity(dev.sluice.planner.DynamoDbCapacity.of(args.get("dynamodb-capacity")));
            } catch (IllegalArgumentException e) {
                throw new UsageException("plan: " + e.getMessage());
            }
        }
        if (args.get("kcl-stages") != null) {
            inputs.kclStages(args.wholeNumber("kcl-stages", 0, 20));
        }
        if (args.get("hop-streams") != null) {
            inputs.hopStreams(args.wholeNumber("hop-streams", 0, 20));
        }
        if (args.get("lambda-ms-per-batch") != null) {
            inputs.lambdaMsPerBatch(args.positiveInt("lambda-ms-per-batch", 200));
            sources.add("Lambda duration per batch: " + args.get("lambda-ms-per-batch")
                    + " ms, given (--lambda-ms-per-batch)");
        } else if (measured != null && measured.consumer().equals("lambda")) {
            inputs.lambdaMsPerBatch(measured.billedMsPerBatch());
            sources.add(String.format(
                    Locale.ROOT,
                    "Lambda duration per batch: %d ms (mean %.1f ms at %.1f records a batch), %s",
                    measured.billedMsPerBatch(),
                    measured.msPerBatch(),
                    measured.recordsPerBatch(),
                    measured.source()));
        } else {
            inputs.lambdaMsPerBatch(200);
            sources.add("Lambda duration per batch: 200 ms, assumed (the planner's constant; --from-report or"
                    + " --lambda-ms-per-batch replace it)");
        }
        if (measured != null) {
            sources.add(String.format(
                    Locale.ROOT,
                    "consumer ceiling per shard: %,.0f events/s (batch size %d × parallelization %d), %s",
                    measured.ceilingPerShard(),
                    measured.batchSize(),
                    measured.parallelization(),
                    measured.source()));
        } else {
            sources.add("consumer ceiling per shard: not modelled, assumed to keep up with Kinesis's write limits"
                    + " (--from-report uses a load run's measurement)");
        }
        PlanInputs planInputs;
        try {
            planInputs = inputs.build();
        } catch (IllegalArgumentException e) {
            throw new UsageException("plan: " + e.getMessage());
        }
        String table = args.get("price-table");
        PriceTable prices = table == null ? PriceTable.bundled() : PriceTable.load(priceTablePath(table));
        double ceiling = measured == null ? 0 : measured.ceilingPerShard();
        java.util.Map<String, Double> requests = measured == null ? java.util.Map.of() : measured.requestsPer1000();
        double benchBatch = measured == null ? 0 : measured.recordsPerBatch();
        if (!requests.isEmpty()) {
            sources.add("AWS requests per event: measured by the handler bench for "
                    + String.join(", ", measured.requestStages())
                    + " (PutItem per event, other calls per batch; a stage the bench did not run is not priced), "
                    + measured.source());
        } else {
            sources.add("AWS requests per event: one conditional write per event and one object per batch, an upper"
                    + " bound (--from-report with a handler bench report measures them)");
        }
        dev.sluice.planner.CapacityPlan plan =
                CapacityPlanner.plan(planInputs, prices, ceiling, requests, benchBatch, sources);
        if (measured != null
                && measured.modelled()
                && args.get("lambda-ms-per-batch") == null
                && Math.abs(plan.averageBatchFill() - measured.recordsPerBatch()) > 0.5) {
            // a bench models full batches; the plan's batch holds what a window gathers: a batch's time is
            // mostly its per-record writes, so it is scaled by the records it holds
            int scaled = (int) Math.max(
                    1, Math.ceil(measured.msPerBatch() * plan.averageBatchFill() / measured.recordsPerBatch()));
            inputs.lambdaMsPerBatch(scaled);
            sources.add(String.format(
                    Locale.ROOT,
                    "  scaled to this plan's %.1f records a batch: %d ms a batch (the bench's batches held %.0f)",
                    plan.averageBatchFill(),
                    scaled,
                    measured.recordsPerBatch()));
            planInputs = inputs.build();
            plan = CapacityPlanner.plan(planInputs, prices, ceiling, requests, benchBatch, sources);
        } else if (measured != null
                && measured.consumer().equals("lambda")
                && args.get("lambda-ms-per-batch") == null
                && Math.abs(Math.log(plan.averageBatchFill() / measured.recordsPerBatch())) > Math.log(2)) {
            sources.add(String.format(
                    Locale.ROOT,
                    "  note: the run's batches held %.1f records, this plan's hold %.1f on average: the measured"
                            + " duration is of other batches (give --lambda-ms-per-batch to override)",
                    measured.recordsPerBatch(),
                    plan.averageBatchFill()));
            plan = CapacityPlanner.plan(planInputs, prices, ceiling, requests, benchBatch, sources);
        }
        PlanReport.lines(plan).forEach(context.out()::println);
        return 0;
    }

    /**
     * {@code --from-report PATH} (a report.json or its run folder) or {@code latest} (the newest
     * load-tests/reports/*&#47;report.json with measured capacity, of the example's pipeline with
     * {@code --example}); null without the option.
     */
    private MeasuredFigures measured(String value, String example) {
        if (value == null) {
            return null;
        }
        Path report;
        if (value.equals("latest")) {
            report = MeasuredFigures.newest(context.root().resolve("load-tests/reports"), example)
                    .orElseThrow(() -> new UsageException("--from-report latest: no load report with measured"
                            + " capacity under load-tests/reports" + (example == null ? "" : " for " + example)
                            + " (run ./sluice load first)"));
        } else {
            Path path = Path.of(value);
            if (!path.isAbsolute() && !Files.exists(path)) {
                path = context.root().resolve(value);
            }
            report = Files.isDirectory(path) ? path.resolve("report.json") : path;
            if (!Files.isRegularFile(report)) {
                throw new UsageException("--from-report: no such load report: " + value);
            }
        }
        return MeasuredFigures.read(report);
    }

    private Path priceTablePath(String value) {
        Path path = Path.of(value);
        return path.isAbsolute() || Files.exists(path) ? path : context.root().resolve(value);
    }
}
