package dev.sluice.core.definition;

import com.fasterxml.jackson.core.JsonPointer;
import dev.sluice.core.schema.SchemaCatalog;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/** The rules a bound definition must satisfy; the first broken one is reported. */
final class DefinitionChecks {

    private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9-]{0,39}");

    private final String file;
    private final YamlLocator locator;
    private final SchemaCatalog schemas;

    DefinitionChecks(String file, YamlLocator locator, SchemaCatalog schemas) {
        this.file = file;
        this.locator = locator;
        this.schemas = schemas;
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
        d.stages().forEach((name, stage) -> checkStage(d, "/stages/" + name, name, stage));
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
        if (lake.retentionDays() != null) {
            range(at + "/retentionDays", lake.retentionDays(), 1, 36500);
        }
    }

    private void checkStage(PipelineDefinition d, String at, String name, StageDefinition stage) {
        name(at, name);
        require(stage != null, at, "needs input, steps, sinks and failure");
        require(stage.input() != null, at + "/input", "is required: the stream this stage reads");
        require(
                d.streams().containsKey(stage.input()),
                at + "/input",
                "no stream named '" + stage.input() + "' (streams: " + names(d.streams()) + ")");

        for (int i = 0; i < stage.steps().size(); i++) {
            StepDefinition step = stage.steps().get(i);
            String schema = step.option("schema");
            if (schema != null) {
                require(
                        schemas.contains(schema),
                        at + "/steps/" + i,
                        "unknown schema '" + schema + "' (no schemas/" + schema + ".json)");
            }
        }

        require(!stage.sinks().isEmpty(), at + "/sinks", "declare at least one sink");
        for (int i = 0; i < stage.sinks().size(); i++) {
            SinkDefinition sink = stage.sinks().get(i);
            String sinkAt = at + "/sinks/" + i;
            require(
                    sink != null && (sink.lake() == null) != (sink.table() == null),
                    sinkAt,
                    "a sink names exactly one target: '- lake: NAME' or '- table: NAME'");
            if (sink.kind() == SinkDefinition.Kind.LAKE) {
                require(
                        d.lakes().containsKey(sink.lake()),
                        sinkAt + "/lake",
                        "no lake named '" + sink.lake() + "' (lakes: " + names(d.lakes()) + ")");
            } else {
                require(
                        d.tables().containsKey(sink.table()),
                        sinkAt + "/table",
                        "no table named '" + sink.table() + "' (tables: " + names(d.tables()) + ")");
            }
        }

        BatchingDefinition batching = stage.batching();
        String b = at + "/batching";
        positive(b + "/batchSize", batching.batchSize());
        range(b + "/batchSize", batching.batchSize(), 1, 10_000);
        range(b + "/batchingWindowSeconds", batching.batchingWindowSeconds(), 0, 300);
        range(b + "/parallelizationFactor", batching.parallelizationFactor(), 1, 10);

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

    private void require(boolean condition, String pointer, String problem) {
        if (!condition) {
            JsonPointer at = JsonPointer.compile(pointer);
            throw new DefinitionException(file, locator.line(at), YamlLocator.dotted(at), problem);
        }
    }

    private static Set<String> names(Map<String, ?> map) {
        return new TreeSet<>(map.keySet());
    }
}
