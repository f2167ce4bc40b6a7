package dev.sluice.core.definition;

import dev.sluice.core.expr.EventExpressions;
import dev.sluice.core.expr.ExpressionException;
import dev.sluice.core.schema.SchemaCatalog;
import dev.sluice.core.window.AggregateFunction;
import dev.sluice.core.window.TumblingWindows;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/** The rules for a stage's steps: options present and well-typed, expressions compile, joins are local. */
final class StepChecks {

    /** Reports a broken rule at a JSON pointer of the definition. */
    @FunctionalInterface
    interface Require {
        void require(boolean condition, String pointer, String problem);
    }

    private static final Pattern FIELD = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)*");

    private final PipelineDefinition pipeline;
    private final StageDefinition stage;
    private final String at;
    private final SchemaCatalog schemas;
    private final Require rules;

    StepChecks(PipelineDefinition pipeline, StageDefinition stage, String at, SchemaCatalog schemas, Require rules) {
        this.pipeline = pipeline;
        this.stage = stage;
        this.at = at;
        this.schemas = schemas;
        this.rules = rules;
    }

    void check() {
        StreamDefinition input = pipeline.stream(stage.input());
        Set<String> enriched = new HashSet<>();
        Set<String> aggregates = new HashSet<>();
        for (int i = 0; i < stage.steps().size(); i++) {
            StepDefinition step = stage.steps().get(i);
            String stepAt = at + "/steps/" + i + "/" + step.type().yamlName();
            switch (step.type()) {
                case VALIDATE -> {
                    String schema = step.option("schema");
                    rules.require(
                            schema == null || schemas.contains(schema),
                            stepAt + "/schema",
                            "unknown schema '" + schema + "' (no schemas/" + schema + ".json)");
                }
                case MASK -> {
                    String secret = step.option("secret");
                    rules.require(
                            secret == null || secret.matches("[a-z][a-z0-9-]{0,62}"),
                            stepAt + "/secret",
                            "'" + secret + "' is not a secret name: lower-case letters, digits and '-'");
                }
                case FILTER -> expression(input, enriched, step.option("when"), stepAt + "/when");
                case ENRICH -> enriched.add(enrich(input, step, stepAt));
                case AGGREGATE -> {
                    String name = required(step, "name", stepAt);
                    rules.require(aggregates.add(name), stepAt + "/name", "aggregate '" + name + "' is declared twice");
                    aggregate(input, enriched, step, stepAt);
                }
                case ROUTE -> route(input, enriched, step, stepAt);
            }
        }
    }

    private String enrich(StreamDefinition input, StepDefinition step, String stepAt) {
        String reference = required(step, "reference", stepAt);
        rules.require(
                pipeline.references().containsKey(reference),
                stepAt + "/reference",
                "no reference named '" + reference + "' (references: "
                        + new TreeSet<>(pipeline.references().keySet()) + ")");
        String key = required(step, "key", stepAt);
        field(key, stepAt + "/key");
        rules.require(
                key.equals(input.partitionKey()),
                stepAt + "/key",
                "joins on " + key + " but stream '" + stage.input() + "' is partitioned by " + input.partitionKey()
                        + ": add a re-key hop — an earlier stage writing to a stream with partitionKey: " + key
                        + " — so each consumer needs only its own partition of the reference data");
        String into = required(step, "into", stepAt);
        rules.require(into.matches("[A-Za-z_][A-Za-z0-9_]*"), stepAt + "/into", "must be a top-level field name");
        return into;
    }

    private void aggregate(StreamDefinition input, Set<String> enriched, StepDefinition step, String stepAt) {
        String key = required(step, "key", stepAt);
        field(key, stepAt + "/key");
        declared(input, enriched, key, stepAt + "/key");
        int parallelization = stage.batching().parallelizationFactor();
        rules.require(
                parallelization == 1 || key.equals(input.partitionKey()),
                at + "/batching/parallelizationFactor",
                "is " + parallelization + " but aggregate '" + step.option("name") + "' groups by " + key
                        + " while stream '" + stage.input() + "' is partitioned by " + input.partitionKey()
                        + ": concurrent batches of one shard could update the same aggregate item, and one batch"
                        + " advancing the shard's watermark would make the other's records look already counted;"
                        + " use parallelizationFactor: 1, or aggregate by " + input.partitionKey());
        String table = required(step, "table", stepAt);
        rules.require(
                pipeline.tables().containsKey(table),
                stepAt + "/table",
                "no table named '" + table + "' (tables: "
                        + new TreeSet<>(pipeline.tables().keySet()) + ")");
        Duration window = duration(required(step, "window", stepAt), stepAt + "/window");
        rules.require(!window.isZero() && !window.isNegative(), stepAt + "/window", "must be longer than zero");
        String lateness = step.option("allowedLateness");
        if (lateness != null) {
            rules.require(
                    !duration(lateness, stepAt + "/allowedLateness").isNegative(),
                    stepAt + "/allowedLateness",
                    "must not be negative");
        }
        Object functions = step.options().get("functions");
        List<?> list = functions == null ? List.of("count") : functions instanceof List<?> l ? l : null;
        rules.require(list != null && !list.isEmpty(), stepAt + "/functions", "list the functions, e.g. [count, sum]");
        boolean needsValue = false;
        for (Object f : list) {
            AggregateFunction function = null;
            try {
                function = AggregateFunction.valueOf(String.valueOf(f).toUpperCase(java.util.Locale.ROOT));
            } catch (IllegalArgumentException e) {
                rules.require(
                        false, stepAt + "/functions", "unknown function '" + f + "' (functions: count, sum, min, max)");
            }
            needsValue |= function.needsValue();
        }
        Object scale = step.options().get("scale");
        rules.require(
                scale == null
                        || (scale instanceof Integer decimals && decimals >= 0 && decimals < TumblingWindows.PRECISION),
                stepAt + "/scale",
                "the decimals kept by sum, min and max: a whole number from 0 to " + (TumblingWindows.PRECISION - 1)
                        + ", not " + scale);
        String value = step.option("value");
        rules.require(!needsValue || value != null, stepAt + "/value", "sum, min and max need the value field");
        if (value != null) {
            field(value, stepAt + "/value");
            declared(input, enriched, value, stepAt + "/value");
            if (needsValue && !enriched.contains(value.split("\\.")[0])) {
                decimalsFit(input, value, scale instanceof Integer s ? s : TumblingWindows.DEFAULT_SCALE, stepAt);
            }
        }
    }

    /**
     * Refuses an aggregate whose scale keeps fewer decimals than its value field's schema lets a
     * valid event carry: such events would pass validation and then be dead-lettered by the
     * aggregate (a value is never rounded). The schema bounds the decimals with {@code type:
     * integer} or {@code multipleOf} (0.01 allows two).
     */
    private void decimalsFit(StreamDefinition input, String value, int scale, String stepAt) {
        com.fasterxml.jackson.databind.JsonNode node =
                schemas.schema(input.schema()).document();
        for (String part : value.split("\\.")) {
            node = node.path("properties").path(part);
        }
        com.fasterxml.jackson.databind.JsonNode type = node.path("type");
        boolean integer = type.asText().equals("integer");
        boolean number = type.asText().equals("number")
                || (type.isArray()
                        && java.util.stream.StreamSupport.stream(type.spliterator(), false)
                                .anyMatch(t -> t.asText().equals("number")));
        if (integer || !number) {
            return; // whole numbers fit every scale; a non-number value is refused per event
        }
        String where = "'" + value + "' of schema " + input.schema();
        com.fasterxml.jackson.databind.JsonNode multipleOf = node.path("multipleOf");
        rules.require(
                multipleOf.isNumber(),
                stepAt + "/value",
                where + " is a number with any number of decimals, but the aggregate keeps " + scale
                        + ": valid events with more would be dead-lettered; bound the schema's decimals with"
                        + " multipleOf (e.g. 0.01 for two)");
        if (multipleOf.isNumber()) {
            int decimals = Math.max(
                    0,
                    new java.math.BigDecimal(multipleOf.asText())
                            .stripTrailingZeros()
                            .scale());
            rules.require(
                    decimals <= scale,
                    stepAt + "/scale",
                    "is " + scale + " but " + where + " allows " + decimals + " decimals (multipleOf "
                            + multipleOf.asText() + "): valid events with more than " + scale
                            + " would be dead-lettered; use scale: " + decimals + " or more");
        }
    }

    /**
     * Refuses a field path the input stream's schema does not declare (a field added by an earlier
     * {@code enrich} step is a map whose fields are not known here).
     */
    private void declared(StreamDefinition input, Set<String> enriched, String path, String pointer) {
        String[] parts = path.split("\\.");
        if (enriched.contains(parts[0])) {
            return;
        }
        com.fasterxml.jackson.databind.JsonNode node =
                schemas.schema(input.schema()).document();
        for (String part : parts) {
            node = node.path("properties").path(part);
            rules.require(
                    !node.isMissingNode(),
                    pointer,
                    "'" + path + "' is not a field of schema " + input.schema() + " (the events of stream '"
                            + stage.input() + "')");
        }
    }

    private void route(StreamDefinition input, Set<String> enriched, StepDefinition step, String stepAt) {
        Set<String> targets = new TreeSet<>();
        stage.sinks().forEach(s -> targets.add(s.target()));
        Object rulesOption = step.options().get("rules");
        rules.require(
                rulesOption instanceof List<?>, stepAt + "/rules", "list the rules: - {when: EXPR, to: [SINK...]}");
        List<?> list = (List<?>) rulesOption;
        for (int r = 0; r < list.size(); r++) {
            String ruleAt = stepAt + "/rules/" + r;
            rules.require(list.get(r) instanceof Map<?, ?>, ruleAt, "a rule is a map: {when: EXPR, to: [SINK...]}");
            Map<?, ?> rule = (Map<?, ?>) list.get(r);
            rules.require(rule.keySet().equals(Set.of("when", "to")), ruleAt, "a rule has exactly 'when' and 'to'");
            expression(input, enriched, String.valueOf(rule.get("when")), ruleAt + "/when");
            sinks(rule.get("to"), targets, ruleAt + "/to");
        }
        rules.require(
                step.options().containsKey("otherwise"),
                stepAt + "/otherwise",
                "is required: the sinks of events no rule matches ([] to keep them out of every sink)");
        sinks(step.options().get("otherwise"), targets, stepAt + "/otherwise");
    }

    private void sinks(Object value, Set<String> targets, String pointer) {
        rules.require(value instanceof List<?>, pointer, "list sink targets of this stage: " + targets);
        for (Object target : (List<?>) value) {
            rules.require(
                    targets.contains(String.valueOf(target)),
                    pointer,
                    "'" + target + "' is not a sink of this stage (sinks: " + targets + ")");
        }
    }

    private void expression(StreamDefinition input, Set<String> enriched, String source, String pointer) {
        rules.require(source != null && !source.isBlank(), pointer, "is required: a CEL expression, e.g. amount > 0");
        try {
            new EventExpressions(schemas.schema(input.schema()).document(), enriched).compile(source);
        } catch (ExpressionException e) {
            rules.require(false, pointer, "'" + source + "' does not compile: " + e.getMessage());
        }
    }

    private String required(StepDefinition step, String option, String stepAt) {
        String value = step.option(option);
        rules.require(value != null && !value.isBlank(), stepAt + "/" + option, "is required");
        return value;
    }

    private void field(String path, String pointer) {
        rules.require(
                FIELD.matcher(path).matches(), pointer, "'" + path + "' is not a field path like payload.customerId");
    }

    private Duration duration(String text, String pointer) {
        try {
            return Durations.parse(text);
        } catch (IllegalArgumentException e) {
            rules.require(false, pointer, e.getMessage());
            return Duration.ZERO;
        }
    }
}
