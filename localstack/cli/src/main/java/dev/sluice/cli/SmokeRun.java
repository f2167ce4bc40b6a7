package dev.sluice.cli;

import dev.sluice.core.definition.Persona;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.definition.SinkDefinition;
import dev.sluice.core.definition.StageDefinition;
import dev.sluice.generators.ClickstreamGenerator;
import dev.sluice.generators.GeneratedEvent;
import dev.sluice.generators.PaymentGenerator;
import dev.sluice.verify.reconcile.AggregateCheck;
import dev.sluice.verify.reconcile.LedgerEntry;
import dev.sluice.verify.reconcile.Producer;
import dev.sluice.verify.reconcile.Reconciler;
import dev.sluice.verify.reconcile.Reconciliation;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/**
 * The smoke test of a deployed pipeline, the same against the local stack and AWS: as {@code
 * source-operator} it puts a handful of valid events of the pipeline's input type and a few records
 * of the committed bad-input catalogue ({@code bad-input/records}) into the source stream, then
 * polls — as the personas allowed to read each target — until every valid event is once in the
 * lake, once in the table and counted once in the aggregate, and every invalid one is in the
 * dead-letter queue with its reason code, or until the timeout. Only its own events are looked at
 * ({@link Reconciler#ownEvents}): a deployed stack holds other data.
 */
final class SmokeRun {

    /** Catalogue records whose verdict does not depend on the event type (any pipeline dead-letters them so). */
    static final List<String> ANY_PIPELINE_INVALID =
            List.of("truncated.json", "trailing-garbage.json", "unknown-type.json");

    /** Catalogue records that are payments with one defect each. */
    static final List<String> PAYMENTS_INVALID = List.of("missing-timestamp.json", "negative-amount.json");

    private static final String PAYMENTS_TYPE = "payments.transaction.v1";
    private static final String CLICKSTREAM_TYPE = "clickstream.pageview.v1";

    /**
     * What the run found.
     *
     * @param pipeline the pipeline's name
     * @param valid valid events put
     * @param invalid invalid records put
     * @param lakeChecked whether the pipeline has a lake to check
     * @param tableChecked whether it has a serving table to check
     * @param aggregateChecked whether it has an aggregate to check
     * @param reconciliation the last check
     * @param readers who read what, for people
     */
    record Result(
            String pipeline,
            int valid,
            int invalid,
            boolean lakeChecked,
            boolean tableChecked,
            boolean aggregateChecked,
            Reconciliation reconciliation,
            Map<String, Persona> readers) {

        /** Every valid event once in every target, every invalid one dead lettered with its reason. */
        boolean ok() {
            Reconciliation r = reconciliation;
            return r.lost() == 0
                    && r.duplicates() == 0
                    && r.unexpected() == 0
                    && r.deadLettered() == invalid
                    && (!lakeChecked || r.lake() == valid)
                    && (!tableChecked || r.table() == valid)
                    && (!aggregateChecked || r.aggregated() == valid);
        }

        String resultLine() {
            Reconciliation r = reconciliation;
            return "RESULT pipeline=" + pipeline + " valid=" + valid + " invalid=" + invalid + " lake="
                    + (lakeChecked ? Long.toString(r.lake()) : "n/a") + " table="
                    + (tableChecked ? Long.toString(r.table()) : "n/a") + " aggregated="
                    + (aggregateChecked ? Long.toString(r.aggregated()) : "n/a") + " dead_lettered="
                    + r.deadLettered() + " lost=" + r.lost() + " duplicates=" + r.duplicates() + " ok=" + ok();
        }
    }

    private final SmokeTarget target;
    private final Path root;
    private final int validCount;
    private final Duration timeout;
    private final Duration pollInterval;

    SmokeRun(SmokeTarget target, Path root, int validCount, Duration timeout, Duration pollInterval) {
        this.target = target;
        this.root = root;
        this.validCount = validCount;
        this.timeout = timeout;
        this.pollInterval = pollInterval;
    }

    Result run() {
        PipelineDefinition definition = target.definition();
        StageDefinition source = sourceStage(definition);
        String type = definition.streams().get(source.input()).schema();
        Optional<StageDefinition> lakeStage = stageWith(definition, SinkDefinition.Kind.LAKE);
        Optional<StageDefinition> tableStage = stageWith(definition, SinkDefinition.Kind.TABLE);
        Map<String, String> tables = new HashMap<>();
        definition.tables().keySet().forEach(name -> tables.put(name, target.table(name)));
        Optional<AggregateCheck> aggregate = definition.stages().values().stream()
                .map(stage -> AggregateCheck.of(stage, tables))
                .flatMap(Optional::stream)
                .findFirst();
        String lake =
                lakeStage.map(s -> Reconciler.sink(s, SinkDefinition.Kind.LAKE)).orElse(null);
        String table = tableStage
                .map(s -> Reconciler.sink(s, SinkDefinition.Kind.TABLE))
                .orElse(null);
        String queue = source.failure().deadLetterQueue();

        // each target read as the persona allowed to read it: the lake and tables by a reading persona
        // the access block lists them for, the dead-letter queue (raw records) by admin only
        Map<String, Persona> readers = new LinkedHashMap<>();
        Set<String> dynamoTargets = new HashSet<>();
        if (table != null) {
            dynamoTargets.add(table);
        }
        aggregate.ifPresent(a -> dynamoTargets.add(tableName(definition, a)));
        Persona s3Reader = lake == null ? Persona.ADMIN : reader(definition, Set.of(lake));
        Persona dynamoReader = dynamoTargets.isEmpty() ? Persona.ADMIN : reader(definition, dynamoTargets);
        if (lake != null) {
            readers.put("lake " + lake, s3Reader);
        }
        dynamoTargets.forEach(t -> readers.put("table " + t, dynamoReader));
        readers.put("dead-letter queue " + queue, Persona.ADMIN);
        Persona producer = Persona.SOURCE_OPERATOR;
        if (!definition.personas().getOrDefault(producer, List.of()).contains(source.input())) {
            throw new IllegalStateException("the access block of " + definition.pipeline() + " does not let "
                    + producer.yamlName() + " write " + source.input() + ": nothing to smoke-test with");
        }
        readers.put("producer into " + source.input(), producer);

        Reconciler reconciler =
                new Reconciler(target.s3(s3Reader), target.dynamoDb(dynamoReader), target.sqs(Persona.ADMIN));
        Reconciler.Targets targets = new Reconciler.Targets(
                target.lakeBucket() == null || lake == null ? null : target.lakeBucket(),
                lake == null ? null : definition.lakes().get(lake).prefix(),
                table == null ? null : target.table(table),
                table == null ? null : definition.tables().get(table).key(),
                target.queueUrl(queue),
                aggregate);
        Reconciler.OwnEvents own = reconciler.ownEvents(targets);

        List<GeneratedEvent> events = new ArrayList<>(valid(type));
        List<GeneratedEvent> invalid = invalid(type);
        events.addAll(invalid);
        List<LedgerEntry> ledger =
                new Producer(target.kinesis(producer), target.stream(source.input())).send(events, n -> {});

        AtomicReference<Reconciliation> last = new AtomicReference<>();
        int invalidCount = invalid.size();
        try {
            Awaitility.await("every smoke event in its targets")
                    .atMost(timeout)
                    .pollInterval(pollInterval)
                    .pollInSameThread()
                    .until(() -> {
                        Reconciliation r = own.check(ledger);
                        last.set(r);
                        Result partial = result(definition, invalidCount, lake, table, aggregate, r, readers);
                        // done, or broken beyond waiting: a duplicate or an unexpected verdict does not heal
                        return partial.ok() || r.duplicates() > 0 || r.unexpected() > 0;
                    });
        } catch (ConditionTimeoutException e) {
            // reported below with what is missing
        }
        return result(definition, invalidCount, lake, table, aggregate, last.get(), readers);
    }

    private Result result(
            PipelineDefinition definition,
            int invalidCount,
            String lake,
            String table,
            Optional<AggregateCheck> aggregate,
            Reconciliation r,
            Map<String, Persona> readers) {
        return new Result(
                definition.pipeline(),
                validCount,
                invalidCount,
                lake != null,
                table != null,
                aggregate.isPresent(),
                r,
                Map.copyOf(readers));
    }

    private static String tableName(PipelineDefinition definition, AggregateCheck check) {
        for (StageDefinition stage : definition.stages().values()) {
            for (var step : stage.steps()) {
                if (step.type() == dev.sluice.core.definition.StepType.AGGREGATE
                        && check.aggregate().equals(step.option("name"))) {
                    return step.option("table");
                }
            }
        }
        throw new IllegalStateException("no stage aggregates " + check.aggregate());
    }

    /** The first reading persona the access block lists every one of {@code names} for; admin if none. */
    static Persona reader(PipelineDefinition definition, Set<String> names) {
        for (Persona persona : List.of(Persona.ANALYST, Persona.PIPELINE_DEVELOPER)) {
            if (definition.personas().getOrDefault(persona, List.of()).containsAll(names)) {
                return persona;
            }
        }
        return Persona.ADMIN;
    }

    /** The stage that reads a stream no stage writes: where producers put. */
    static StageDefinition sourceStage(PipelineDefinition definition) {
        Set<String> written = new HashSet<>();
        definition
                .stages()
                .values()
                .forEach(stage -> stage.sinks().stream()
                        .filter(s -> s.kind() == SinkDefinition.Kind.STREAM)
                        .forEach(s -> written.add(s.target())));
        return definition.stages().values().stream()
                .filter(stage -> !written.contains(stage.input()))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException(definition.pipeline() + " has no source stage"));
    }

    private static Optional<StageDefinition> stageWith(PipelineDefinition definition, SinkDefinition.Kind kind) {
        return definition.stages().values().stream()
                .filter(stage -> stage.sinks().stream().anyMatch(s -> s.kind() == kind))
                .findFirst();
    }

    /** Valid events of the input type, unique to this run (a random run id in every eventId). */
    private List<GeneratedEvent> valid(String type) {
        long seed = new SecureRandom().nextLong();
        Instant now = Instant.now();
        List<GeneratedEvent> events = new ArrayList<>(validCount);
        if (PAYMENTS_TYPE.equals(type)) {
            PaymentGenerator payments = new PaymentGenerator(seed, 1_000, 0, now);
            while (events.size() < validCount) {
                events.add(payments.next(now));
            }
        } else if (CLICKSTREAM_TYPE.equals(type)) {
            ClickstreamGenerator clicks = new ClickstreamGenerator(seed, 20, 50, 0, now);
            while (events.size() < validCount) {
                GeneratedEvent click = clicks.next(now);
                // bots are filtered out by design: they take effect nowhere, so they are no smoke event
                if (!new String(click.data(), StandardCharsets.UTF_8).contains("bot")) {
                    events.add(click);
                }
            }
        } else {
            throw new IllegalStateException("./sluice smoke generates events of " + PAYMENTS_TYPE + " and "
                    + CLICKSTREAM_TYPE + " only, not " + type);
        }
        return events;
    }

    /**
     * Records of the bad-input catalogue with their expected reason codes ({@code expected.tsv}):
     * those any pipeline dead-letters the same way, and for payments also payments with one defect.
     */
    private List<GeneratedEvent> invalid(String type) {
        Path catalogue = root.resolve("bad-input/records");
        Map<String, String> expected = new HashMap<>();
        try {
            for (String line : Files.readAllLines(catalogue.resolve("expected.tsv"), StandardCharsets.UTF_8)) {
                if (!line.isBlank() && !line.startsWith("#")) {
                    String[] columns = line.split("\t", -1);
                    expected.put(columns[0], columns[1]);
                }
            }
            List<String> files = new ArrayList<>(ANY_PIPELINE_INVALID);
            if (PAYMENTS_TYPE.equals(type)) {
                files.addAll(PAYMENTS_INVALID);
            }
            List<GeneratedEvent> records = new ArrayList<>();
            for (String file : files) {
                String reason = expected.get(file);
                if (reason == null || reason.equals("ACCEPTED")) {
                    throw new IllegalStateException(
                            catalogue.resolve(file) + " is not an invalid record of " + "expected.tsv");
                }
                records.add(new GeneratedEvent(
                        "smoke-" + file, "smoke-bad-input", Files.readAllBytes(catalogue.resolve(file)), reason));
            }
            return records;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the bad-input catalogue " + catalogue, e);
        }
    }
}
