package dev.sluice.cli;

import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.definition.SinkDefinition;
import dev.sluice.emulators.LocalAws;
import dev.sluice.generators.GeneratedEvent;
import dev.sluice.load.EmulatorCost;
import dev.sluice.load.LoadRun;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * {@code ./sluice bench emulators}: the CPU the local emulators spend on a pipeline's traffic, measured
 * on the emulators alone, and the most events a second one kinesis-mock process could carry for each
 * pipeline — the bound of every local load run, whatever the machine.
 */
final class EmulatorCostCommand implements Command {

    /** The name the launcher gives this command ({@code ./sluice bench emulators}). */
    static final String NAME = "bench-emulators";

    private static final int SAMPLE_EVENTS = 2_000;

    private final CliContext context;

    EmulatorCostCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String shownAs() {
        return "bench emulators";
    }

    @Override
    public String usage() {
        return String.join(
                "\n",
                "  bench emulators [--megabytes N] [--items N]",
                "                                 (./sluice bench emulators) the emulators' CPU per KB and per write,"
                        + " and each pipeline's ceiling on one kinesis-mock");
    }

    @Override
    public Set<String> options() {
        return Set.of("megabytes", "items");
    }

    @Override
    public int run(Arguments args) throws Exception {
        int megabytes = args.positiveInt("megabytes", 10, 500);
        int items = args.positiveInt("items", 2_000, 100_000);
        List<PipelineDefinition> pipelines = new ArrayList<>();
        List<Double> eventBytes = new ArrayList<>();
        for (PipelineDefinition pipeline :
                context.loader().loadAll(context.root().resolve("pipelines"))) {
            Optional<Double> bytes = meanEventBytes(pipeline);
            if (bytes.isPresent()) {
                pipelines.add(pipeline);
                eventBytes.add(bytes.get());
            }
        }
        int recordBytes = eventBytes.isEmpty()
                ? 500
                : (int) Math.round(eventBytes.stream()
                        .mapToDouble(Double::doubleValue)
                        .max()
                        .orElse(500));
        context.out()
                .printf(
                        "emulator cost: %d MB of %d-byte records and %d MB of %,d-byte aggregates through kinesis-mock,"
                                + " %,d conditional PutItem calls on dynalite (their own endpoints, no gate)%n",
                        megabytes, recordBytes, megabytes, EmulatorCost.AGGREGATE_BYTES, items);
        EmulatorCost.Costs costs;
        try (LocalAws aws = LocalAws.start(
                context.options().toBuilder().accessGates(false).limits(false).build())) {
            costs = new EmulatorCost(aws).measure(recordBytes, megabytes, items);
        }
        context.out().println();
        context.out().printf("kinesis-mock (one Node.js thread), CPU per KB:%n");
        context.out().printf("  PutRecords, %d-byte records   %8.0f µs%n", recordBytes, costs.putMicrosPerKb());
        context.out()
                .printf(
                        "  PutRecords, %,d-byte aggregates %6.0f µs%n",
                        EmulatorCost.AGGREGATE_BYTES, costs.aggregatePutMicrosPerKb());
        context.out().printf("  GetRecords                    %8.0f µs%n", costs.getMicrosPerKb());
        context.out().printf("dynalite: conditional PutItem   %8.0f µs per item%n", costs.conditionalPutMicros());
        context.out().println();
        context.out().println("ceilings: events/s each single-threaded emulator carries at one core for a pipeline's");
        context.out().println("traffic (Kinesis writes aggregated, the load harness's own reads not counted):");
        StringBuilder result = new StringBuilder(String.format(
                Locale.ROOT,
                "RESULT record_bytes=%d kinesis_put_us_per_kb=%.0f kinesis_aggregate_put_us_per_kb=%.0f"
                        + " kinesis_get_us_per_kb=%.0f dynamodb_conditional_put_us=%.0f",
                recordBytes,
                costs.putMicrosPerKb(),
                costs.aggregatePutMicrosPerKb(),
                costs.getMicrosPerKb(),
                costs.conditionalPutMicros()));
        for (int i = 0; i < pipelines.size(); i++) {
            EmulatorCost.Passes passes = EmulatorCost.Passes.of(pipelines.get(i));
            double kinesis = EmulatorCost.kinesisCeiling(costs, passes, eventBytes.get(i), true);
            double dynamoDb = EmulatorCost.dynamoDbCeiling(costs, passes);
            context.out()
                    .printf(
                            "  %-12s %4.0f bytes an event, %d passes through Kinesis %s: kinesis-mock %,.0f/s;"
                                    + " %d table write(s) an event: dynalite %,.0f/s%n",
                            passes.pipeline(),
                            eventBytes.get(i),
                            passes.total(),
                            passes.passes(),
                            kinesis,
                            passes.tableWrites(),
                            dynamoDb);
            String key = passes.pipeline().replace('-', '_');
            result.append(String.format(
                    Locale.ROOT,
                    " %s_kinesis_ceiling_events_per_s=%.0f %s_dynamodb_ceiling_events_per_s=%.0f",
                    key,
                    kinesis,
                    key,
                    Math.min(dynamoDb, 1e9)));
        }
        context.out().println();
        context.out().println(result);
        return 0;
    }

    /** The mean size of the events the load generator makes for the pipeline's source stream, if any. */
    private static Optional<Double> meanEventBytes(PipelineDefinition pipeline) {
        Set<String> written = new java.util.HashSet<>();
        pipeline.stages()
                .values()
                .forEach(s -> s.sinks().stream()
                        .map(SinkDefinition::stream)
                        .filter(java.util.Objects::nonNull)
                        .forEach(written::add));
        for (var stage : pipeline.stages().values()) {
            if (written.contains(stage.input())) {
                continue;
            }
            Function<Instant, GeneratedEvent> generator;
            try {
                generator = LoadRun.generator(pipeline.stream(stage.input()).schema(), 7L, 0.0);
            } catch (IllegalArgumentException e) {
                return Optional.empty();
            }
            long bytes = 0;
            Instant now = Instant.now();
            for (int i = 0; i < SAMPLE_EVENTS; i++) {
                bytes += generator.apply(now).data().length;
            }
            return Optional.of(bytes / (double) SAMPLE_EVENTS);
        }
        return Optional.empty();
    }
}
