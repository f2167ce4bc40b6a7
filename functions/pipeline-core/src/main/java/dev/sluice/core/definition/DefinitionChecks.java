package dev.sluice.core.definition;

import com.fasterxml.jackson.core.JsonPointer;
import dev.sluice.core.schema.SchemaCatalog;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Pattern;

/** The rules a bound definition must satisfy; the first broken one is reported. */
final class DefinitionChecks {

    private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9-]{0,39}");

    /** One segment of a lake prefix: S3's safe characters, and never {@code .} or {@code ..}. */
    private static final Pattern PREFIX_SEGMENT = Pattern.compile("[A-Za-z0-9_=-][A-Za-z0-9_.=-]*");

    /** A fully qualified Java class name. */
    private static final Pattern CLASS_NAME = Pattern.compile("[A-Za-z_$][A-Za-z0-9_$]*(\\.[A-Za-z_$][A-Za-z0-9_$]*)+");

    private final String file;
    private final YamlLocator locator;
    private final SchemaCatalog schemas;
    private final Function<String, Optional<String>> handlers;

    DefinitionChecks(
            String file, YamlLocator locator, SchemaCatalog schemas, Function<String, Optional<String>> handlers) {
        this.file = file;
        this.locator = locator;
        this.schemas = schemas;
        this.handlers = handlers;
    }

    void check(PipelineDefinition d) {
        require(d.pipeline() != null, "/pipeline", "is required: the pipeline's name");
        name("/pipeline", d.pipeline());
        require(!d.streams().isEmpty(), "/streams", "declare at least one stream");
        require(!d.stages().isEmpty(), "/stages", "declare at least one stage");

        d.streams().forEach((name, stream) -> checkStream("/streams/" + name, name, stream));
        d.lakes().forEach((name, lake) -> checkLake("/lakes/" + name, name, lake));
        d.tables().forEach((name, table) -> {
            name("/tables/" + name, name);
            require(table != null && table.key() != null, "/tables/" + name + "/key", "is required");
        });
        d.queues().forEach((name, queue) -> {
            name("/queues/" + name, name);
            int days = queue == null ? 14 : queue.retentionDays();
            range("/queues/" + name + "/retentionDays", days, 1, 14);
        });
        d.references().forEach((name, reference) -> checkReference(d, "/references/" + name, name, reference));
        d.stages().forEach((name, stage) -> checkStage(d, "/stages/" + name, name, stage));
        checkCycles(d);
        d.access().forEach((persona, resources) -> {
            try {
                Persona.fromYaml(persona);
            } catch (IllegalArgumentException e) {
                require(false, "/access/" + persona, e.getMessage());
            }
            require(resources != null, "/access/" + persona, "list the resources, or [] for none");
            for (int i = 0; i < resources.size(); i++) {
                String resource = resources.get(i);
                String at = "/access/" + persona + "/" + i;
                require(
                        d.streams().containsKey(resource)
                                || d.lakes().containsKey(resource)
                                || d.tables().containsKey(resource)
                                || d.queues().containsKey(resource),
                        at,
                        "no stream, lake, table or queue named '" + resource + "'");
            }
        });
        checkHops(d);
    }

    /**
     * Refuses a stage behind a re-key hop (its input is another stage's {@code - stream:} sink) that
     * counts, stores or lands records without a {@code deduplicate} table: the hop is at least once
     * (a redelivered batch puts its records again, at new positions), and position-keyed sinks would
     * take such a copy twice. A stage that only forwards to further streams needs none.
     */
    private void checkHops(PipelineDefinition d) {
        Map<String, String> writers = new LinkedHashMap<>();
        d.stages()
                .forEach((name, stage) -> stage.sinks().stream()
                        .filter(s -> s.stream() != null)
                        .forEach(s -> writers.putIfAbsent(s.stream(), name)));
        d.stages().forEach((name, stage) -> {
            String writer = writers.get(stage.input());
            if (writer == null || stage.deduplicate() != null) {
                return;
            }
            boolean aggregates = stage.steps().stream().anyMatch(s -> s.type() == StepType.AGGREGATE);
            boolean stores = stage.sinks().stream().anyMatch(s -> s.kind() != SinkDefinition.Kind.STREAM);
            require(
                    !aggregates && !stores,
                    "/stages/" + name + "/input",
                    "'" + stage.input() + "' is a re-key hop written by stage '" + writer
                            + "' (at least once: a redelivered batch puts its records again at new positions);"
                            + " this stage " + (aggregates ? "aggregates" : "stores") + " what it reads and would"
                            + " take such copies twice: add 'deduplicate: TABLE' naming a table keyed by eventId"
                            + " that is also one of its '- table:' sinks");
        });
    }

    private void checkStream(String at, String name, StreamDefinition stream) {
        name(at, name);
        require(stream != null, at, "needs shards (or onDemand: true), retentionHours and schema");
        if (stream.onDemand()) {
            require(stream.shards() == null, at + "/shards", "give shards or onDemand: true, not both");
        } else {
            require(stream.shards() != null, at + "/shards", "is required unless onDemand: true");
            range(at + "/shards", stream.shards(), 1, 500);
        }
        range(at + "/retentionHours", stream.retentionHours(), 24, 8760);
        require(stream.schema() != null, at + "/schema", "is required: the event schema the stream carries");
        require(
                schemas.contains(stream.schema()),
                at + "/schema",
                "unknown schema '" + stream.schema() + "' (no schemas/" + stream.schema() + ".json)");
    }

    private void checkLake(String at, String name, LakeDefinition lake) {
        name(at, name);
        require(lake != null && lake.prefix() != null, at + "/prefix", "is required, e.g. payments/");
        require(
                lake.prefix().endsWith("/") && !lake.prefix().startsWith("/"),
                at + "/prefix",
                "must end with '/' and not start with one, got '" + lake.prefix() + "'");
        for (String segment : lake.prefix().split("/", -1)) {
            require(
                    segment.isEmpty() || PREFIX_SEGMENT.matcher(segment).matches(),
                    at + "/prefix",
                    "'" + lake.prefix() + "' is not a safe key prefix: segments of letters, digits, '-', '_', '='"
                            + " and '.', none of them '.' or '..', e.g. payments/ or lake/payments/");
        }
        require(!lake.prefix().contains("//"), at + "/prefix", "has an empty segment: '" + lake.prefix() + "'");
        if (lake.retentionDays() != null) {
            range(at + "/retentionDays", lake.retentionDays(), 1, 36500);
        }
    }

    private void checkStage(PipelineDefinition d, String at, String name, StageDefinition stage) {
        name(at, name);
        require(stage != null, at, "needs input, steps, sinks and failure");
        require(stage.input() != null, at + "/input", "is required: the stream this stage reads");
        checkHandler(at, stage);
        require(
                d.streams().containsKey(stage.input()),
                at + "/input",
                "no stream named '" + stage.input() + "' (streams: " + names(d.streams()) + ")");

        require(
                !stage.sinks().isEmpty() || stage.steps().stream().anyMatch(s -> s.type() == StepType.AGGREGATE),
                at + "/sinks",
                "declare at least one sink (or an aggregate step with its table)");
        for (int i = 0; i < stage.sinks().size(); i++) {
            SinkDefinition sink = stage.sinks().get(i);
            String sinkAt = at + "/sinks/" + i;
            require(
                    sink != null && sink.targets() == 1,
                    sinkAt,
                    "a sink names exactly one target: '- lake: NAME', '- table: NAME' or '- stream: NAME'");
            require(
                    sink == null || sink.aggregate() == null || sink.kind() == SinkDefinition.Kind.STREAM,
                    sinkAt + "/aggregate",
                    "only a '- stream: NAME' sink can aggregate (it packs Kinesis records into KPL aggregates)");
            switch (sink.kind()) {
                case LAKE ->
                    require(
                            d.lakes().containsKey(sink.lake()),
                            sinkAt + "/lake",
                            "no lake named '" + sink.lake() + "' (lakes: " + names(d.lakes()) + ")");
                case TABLE ->
                    require(
                            d.tables().containsKey(sink.table()),
                            sinkAt + "/table",
                            "no table named '" + sink.table() + "' (tables: " + names(d.tables()) + ")");
                case STREAM -> {
                    require(
                            d.streams().containsKey(sink.stream()),
                            sinkAt + "/stream",
                            "no stream named '" + sink.stream() + "' (streams: " + names(d.streams()) + ")");
                    require(
                            !sink.stream().equals(stage.input()),
                            sinkAt + "/stream",
                            "a stage cannot write to the stream it reads");
                }
            }
        }
        if (stage.deduplicate() != null) {
            String dedupAt = at + "/deduplicate";
            TableDefinition table = d.tables().get(stage.deduplicate());
            require(
                    table != null,
                    dedupAt,
                    "no table named '" + stage.deduplicate() + "' (tables: " + names(d.tables()) + ")");
            require(
                    "eventId".equals(table.key()),
                    dedupAt,
                    "table '" + stage.deduplicate() + "' is keyed by '" + table.key()
                            + "'; recognising re-sends needs a table keyed by eventId");
            require(
                    stage.sinks().stream().anyMatch(s -> stage.deduplicate().equals(s.table())),
                    dedupAt,
                    "table '" + stage.deduplicate() + "' must also be one of the stage's sinks ('- table: "
                            + stage.deduplicate() + "')");
        }
        new StepChecks(d, stage, at, schemas, this::require).check();

        BatchingDefinition batching = stage.batching();
        String b = at + "/batching";
        positive(b + "/batchSize", batching.batchSize());
        range(b + "/batchSize", batching.batchSize(), 1, 10_000);
        range(b + "/batchingWindowSeconds", batching.batchingWindowSeconds(), 0, 300);
        range(b + "/parallelizationFactor", batching.parallelizationFactor(), 1, 10);
        long lakes = stage.sinks().stream()
                .filter(s -> s.kind() == SinkDefinition.Kind.LAKE)
                .count();
        // with a deduplicate table the lake is claimed through its items (any parallelization factor);
        // without one, the lake's per-shard commit ledger needs batches of a shard one at a time
        require(
                lakes == 0 || stage.deduplicate() != null || batching.parallelizationFactor() == 1,
                b + "/parallelizationFactor",
                "must be 1 on a stage with a lake sink and no deduplicate table: the lake's per-shard commit"
                        + " ledger needs one writer per shard, got " + batching.parallelizationFactor()
                        + "; name a deduplicate table (keyed by eventId) to record each event's lake object on"
                        + " its item instead");
        require(
                lakes <= 1 || stage.deduplicate() == null,
                at + "/sinks",
                "a stage with a deduplicate table writes one lake at most: each event's item names the one lake"
                        + " object it is in, got " + lakes + " lakes");
        boolean atTimestamp = batching.startingPosition() == StartingPosition.AT_TIMESTAMP;
        require(
                atTimestamp == (batching.startingPositionTimestamp() != null),
                b + (atTimestamp ? "/startingPosition" : "/startingPositionTimestamp"),
                atTimestamp
                        ? "AT_TIMESTAMP needs startingPositionTimestamp, e.g. 2026-11-30T00:00:00Z"
                        : "startingPositionTimestamp goes only with startingPosition: AT_TIMESTAMP");
        if (atTimestamp) {
            boolean parses;
            try {
                java.time.OffsetDateTime.parse(batching.startingPositionTimestamp());
                parses = true;
            } catch (java.time.format.DateTimeParseException e) {
                parses = false;
            }
            require(
                    parses,
                    b + "/startingPositionTimestamp",
                    "'" + batching.startingPositionTimestamp() + "' is not an RFC 3339 date-time with an offset");
        }

        checkFunction(d, at, stage);

        FailureDefinition failure = stage.failure();
        String f = at + "/failure";
        require(
                failure.deadLetterQueue() != null,
                f + "/deadLetterQueue",
                "is required: records that cannot be processed must go somewhere");
        require(
                d.queues().containsKey(failure.deadLetterQueue()),
                f + "/deadLetterQueue",
                "no queue named '" + failure.deadLetterQueue() + "' (queues: " + names(d.queues()) + ")");
        range(f + "/maxRetryAttempts", failure.maxRetryAttempts(), -1, 10_000);
        int age = failure.maxRecordAgeSeconds();
        require(
                age == -1 || (age >= 60 && age <= 604_800),
                f + "/maxRecordAgeSeconds",
                "must be -1 (never) or between 60 and 604800, got " + age);
    }

    private void checkHandler(String at, StageDefinition stage) {
        if (!locator.contains(JsonPointer.compile(at + "/handler"))) {
            return;
        }
        String handler = stage.handler();
        require(
                CLASS_NAME.matcher(handler).matches(),
                at + "/handler",
                "'" + handler + "' is not a fully qualified Java class name, e.g. " + StageDefinition.DEFAULT_HANDLER);
        handlers.apply(handler).ifPresent(problem -> require(false, at + "/handler", problem));
    }

    /**
     * Refuses stages whose stream sinks lead back to their own input: records would circulate for
     * ever (a stage writing the stream it reads is the shortest such cycle).
     */
    private void checkCycles(PipelineDefinition d) {
        // stream -> the stages reading it
        Map<String, List<String>> readers = new LinkedHashMap<>();
        d.stages()
                .forEach((name, stage) -> readers.computeIfAbsent(stage.input(), s -> new ArrayList<>())
                        .add(name));
        for (Map.Entry<String, StageDefinition> entry : d.stages().entrySet()) {
            List<String> path = new ArrayList<>();
            path.add(entry.getKey());
            List<String> cycle = cycleBack(d, readers, entry.getValue().input(), path);
            if (cycle != null) {
                StageDefinition last = d.stage(cycle.get(cycle.size() - 1));
                String stream = entry.getValue().input();
                int sink = 0;
                for (int i = 0; i < last.sinks().size(); i++) {
                    if (stream.equals(last.sinks().get(i).stream())) {
                        sink = i;
                    }
                }
                StringBuilder route = new StringBuilder(stream);
                for (int i = 0; i < cycle.size(); i++) {
                    String next =
                            i + 1 < cycle.size() ? d.stage(cycle.get(i + 1)).input() : stream;
                    route.append(" -> stage ")
                            .append(cycle.get(i))
                            .append(" -> ")
                            .append(next);
                }
                require(
                        false,
                        "/stages/" + cycle.get(cycle.size() - 1) + "/sinks/" + sink + "/stream",
                        cycle.size() == 1
                                ? "a stage cannot write to the stream it reads"
                                : "the stages form a cycle (" + route
                                        + "): every record would circulate for ever; no stage's stream sink may lead"
                                        + " back to its own input");
            }
        }
    }

    /**
     * The stages from {@code path}'s first stage that lead back to {@code start}, or {@code null}:
     * a depth-first walk along stream sinks.
     */
    private static List<String> cycleBack(
            PipelineDefinition d, Map<String, List<String>> readers, String start, List<String> path) {
        StageDefinition current = d.stage(path.get(path.size() - 1));
        for (SinkDefinition sink : current.sinks()) {
            if (sink.stream() == null) {
                continue;
            }
            if (sink.stream().equals(start)) {
                return path;
            }
            for (String next : readers.getOrDefault(sink.stream(), List.of())) {
                if (path.contains(next)) {
                    continue;
                }
                path.add(next);
                List<String> found = cycleBack(d, readers, start, path);
                if (found != null) {
                    return found;
                }
                path.remove(path.size() - 1);
            }
        }
        return null;
    }

    private void checkFunction(PipelineDefinition d, String at, StageDefinition stage) {
        String fn = at + "/function";
        require(
                stage.consumer() == ConsumerType.LAMBDA || !locator.contains(JsonPointer.compile(fn)),
                fn,
                "applies to consumer: lambda stages only; this stage is consumer: "
                        + stage.consumer().yamlName());
        FunctionDefinition function = stage.function();
        range(fn + "/memoryMb", function.memoryMb(), 128, 10_240);
        range(fn + "/timeoutSeconds", function.timeoutSeconds(), 1, 900);
        range(fn + "/writers", function.writers(), 1, FunctionDefinition.MAX_WRITERS);
        Integer reserved = function.reservedConcurrency();
        if (reserved == null) {
            return;
        }
        positive(fn + "/reservedConcurrency", reserved);
        StreamDefinition input = d.streams().get(stage.input());
        if (input.onDemand()) {
            // an on-demand stream's shard count changes with its traffic: nothing to compare with
            return;
        }
        int factor = stage.batching().parallelizationFactor();
        int batches = input.shards() * factor;
        require(
                reserved >= batches,
                fn + "/reservedConcurrency",
                "is " + reserved + " but stream '" + stage.input() + "' feeds up to " + batches
                        + " concurrent batches (" + input.shards() + " shards, parallelizationFactor " + factor
                        + "): the event-source mapping would be throttled by the stage's own limit; set at least "
                        + batches + " or leave it out");
    }

    private void checkReference(PipelineDefinition d, String at, String name, ReferenceDefinition reference) {
        name(at, name);
        require(reference != null, at, "name a source: 'table: NAME' or 'object: KEY'");
        require(
                (reference.table() == null) != (reference.object() == null),
                at,
                "name exactly one source: 'table: NAME' (a table of this pipeline) or 'object: KEY' (JSON lines in"
                        + " the lake bucket)");
        if (reference.table() != null) {
            require(
                    d.tables().containsKey(reference.table()),
                    at + "/table",
                    "no table named '" + reference.table() + "' (tables: " + names(d.tables()) + ")");
        }
        range(at + "/maxEntries", reference.maxEntries(), 1, 10_000_000);
        range(at + "/refreshSeconds", reference.refreshSeconds(), 1, 86_400);
        require(
                reference.onMiss() != dev.sluice.core.enrich.MissPolicy.DEFAULT
                        || (reference.defaultItem() != null
                                && reference.defaultItem().isObject()),
                at + "/onMiss",
                "onMiss: default needs a 'default:' item (a map of fields)");
    }

    private void name(String at, String name) {
        require(
                name != null && NAME.matcher(name).matches(),
                at,
                "'" + name + "' is not a valid name: lower-case letters, digits and '-', starting with a letter,"
                        + " at most 40 characters");
    }

    private void positive(String at, int value) {
        require(value > 0, at, "must be positive, got " + value);
    }

    private void range(String at, int value, int min, int max) {
        require(value >= min && value <= max, at, "must be between " + min + " and " + max + ", got " + value);
    }

    /** Fails the definition at {@code pointer} unless {@code condition} holds. */
    void require(boolean condition, String pointer, String problem) {
        if (!condition) {
            JsonPointer at = JsonPointer.compile(pointer);
            throw new DefinitionException(file, locator.line(at), YamlLocator.dotted(at), problem);
        }
    }

    private static Set<String> names(Map<String, ?> map) {
        return new TreeSet<>(map.keySet());
    }
}
