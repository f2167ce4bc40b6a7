package dev.sluice.bench;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaValidatorsConfig;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import dev.sluice.core.definition.Durations;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.definition.StageDefinition;
import dev.sluice.core.definition.StepDefinition;
import dev.sluice.core.event.DeadLetter;
import dev.sluice.core.event.InboundRecord;
import dev.sluice.core.event.ReasonCode;
import dev.sluice.core.pii.SecretProvider;
import dev.sluice.core.schema.SchemaCatalog;
import dev.sluice.core.stage.StageChain;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The stage a user would write by hand for the same definition, as the core benchmark's second
 * baseline ({@code naive}): every record read into a Jackson tree, validated with networknt's
 * json-schema-validator the way its documentation shows ({@code JsonSchemaFactory}, {@code
 * getSchema}, {@code validate}), the schema's {@code x-pii} fields tokenized (HMAC-SHA256 through
 * {@link Mac}, the same key and token format as the chain) or masked on the tree, filtered and
 * aggregated with plain Java, {@code ingestedAt} put on the tree, and the tree written with {@link
 * ObjectMapper#writeValueAsBytes}. Compiled once (schema, key, paths); one instance per thread.
 *
 * <p>An honest baseline, not a strawman: nothing is done twice and nothing is rebuilt per record.
 * It does less than the chain where the chain's extra work is Sluice's own: no refusal of
 * duplicate member names or bad UTF-8, no per-event contributions or sequence ranges in the
 * partial aggregates (only key, window, count, sum, min and max), no precise reason for each
 * violation beyond networknt's messages.
 *
 * <p>It covers the steps {@code validate}, {@code mask} (annotations under {@code properties}),
 * {@code filter} of the shape {@code field op number} and {@code aggregate}; for any other step or
 * shape {@link #compile} throws {@link UnsupportedOperationException} and the benchmark leaves
 * the naive stage out.
 */
public final class NaiveStage {

    /** Accepted, ready for a sink: the bytes are what the sink writes. */
    public record Accepted(
            InboundRecord source, String eventId, String partitionKey, Instant occurredAt, byte[] json) {}

    /** One aggregate's (key, window) of a batch. */
    public record Window(String aggregate, String key, Instant start) {}

    /** What a (key, window) of a batch adds up to; sum, min and max {@code null} when not computed. */
    public record Totals(long count, BigDecimal sum, BigDecimal min, BigDecimal max) {}

    /** What one batch came to. */
    public record Result(
            List<Accepted> accepted,
            List<DeadLetter> deadLetters,
            int filtered,
            List<DeadLetter> late,
            Map<Window, Totals> aggregates) {}

    private static final Pattern COMPARISON =
            Pattern.compile("\\s*([A-Za-z_][A-Za-z0-9_.]*)\\s*(<=|>=|<|>)\\s*(-?[0-9]+(?:\\.[0-9]+)?)\\s*");

    private final ObjectMapper mapper;
    private final Clock clock;
    private final List<Step> steps;

    private NaiveStage(ObjectMapper mapper, Clock clock, List<Step> steps) {
        // amounts keep their decimals as sent (73.90, 200.00): by default a tree strips them (73.9, 2E+2)
        this.mapper = mapper.copy().configure(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES, false);
        this.clock = clock;
        this.steps = steps;
    }

    /**
     * The naive stage for a stage of a definition: its stream's schema from the catalog's folder,
     * its tokenization key from {@code secrets} under the mask step's {@code secret} (or the chain's
     * default name).
     *
     * @throws UnsupportedOperationException for a step or a shape the naive stage does not cover
     */
    public static NaiveStage compile(
            PipelineDefinition pipeline,
            String stageName,
            SchemaCatalog schemas,
            SecretProvider secrets,
            ObjectMapper mapper,
            Clock clock) {
        StageDefinition stage = pipeline.stage(stageName);
        String streamSchema = pipeline.stream(stage.input()).schema();
        JsonNode document = schemas.schema(streamSchema).document(); // the file as read, nothing compiled
        List<Step> steps = new ArrayList<>();
        for (StepDefinition step : stage.steps()) {
            switch (step.type()) {
                case VALIDATE -> {
                    String name = step.option("schema") == null ? streamSchema : step.option("schema");
                    steps.add(new Validate(name, schemas.schema(name).document()));
                }
                case MASK -> {
                    String secret = step.option("secret") == null ? StageChain.DEFAULT_SECRET : step.option("secret");
                    steps.add(new Mask(document, secrets.secret(secret)));
                }
                case FILTER -> steps.add(new Filter(document, step.option("when")));
                case AGGREGATE -> steps.add(new Aggregate(step));
                default ->
                    throw new UnsupportedOperationException(
                            "the naive stage has no " + step.type().name().toLowerCase() + " step");
            }
        }
        return new NaiveStage(mapper, clock, List.copyOf(steps));
    }

    /** Runs a batch through the steps, record by record. */
    public Result process(List<InboundRecord> records) {
        Instant now = clock.instant();
        String ingestedAt = OffsetDateTime.now(clock).toString();
        Batch batch = new Batch(now);
        for (InboundRecord record : records) {
            DeadLetter rejected = processOne(record, ingestedAt, batch);
            if (rejected != null) {
                batch.deadLetters.add(rejected);
            }
        }
        return new Result(batch.accepted, batch.deadLetters, batch.filtered, batch.late, batch.totals);
    }

    private DeadLetter processOne(InboundRecord record, String ingestedAt, Batch batch) {
        if (record.data().length > StageChain.MAX_RECORD_BYTES) {
            return new DeadLetter(record, ReasonCode.OVERSIZE, record.data().length + " bytes");
        }
        JsonNode tree;
        try {
            tree = mapper.readTree(record.data());
        } catch (IOException e) {
            return new DeadLetter(record, ReasonCode.MALFORMED_JSON, e.getMessage());
        }
        if (!(tree instanceof ObjectNode event)) {
            return new DeadLetter(record, ReasonCode.MALFORMED_JSON, "an event is a JSON object");
        }
        Event e = new Event(record, event);
        for (Step step : steps) {
            DeadLetter rejected;
            try {
                rejected = step.apply(e, batch);
            } catch (RuntimeException failure) {
                rejected = new DeadLetter(record, ReasonCode.STEP_FAILED, failure.toString());
            }
            if (rejected != null) {
                return rejected;
            }
            if (e.dropped) {
                batch.filtered++;
                return null;
            }
        }
        Instant occurredAt = e.occurredAt();
        if (occurredAt == null) {
            return new DeadLetter(
                    record,
                    event.hasNonNull("occurredAt") ? ReasonCode.INVALID_TIMESTAMP : ReasonCode.MISSING_TIMESTAMP,
                    "$.occurredAt must be an RFC 3339 date-time with an offset");
        }
        JsonNode eventId = event.get("eventId");
        if (eventId == null || !eventId.isTextual() || eventId.textValue().isEmpty()) {
            return new DeadLetter(record, ReasonCode.SCHEMA_INVALID, "$.eventId is required");
        }
        event.put("ingestedAt", ingestedAt);
        JsonNode key = event.get("key");
        String partitionKey = key != null && key.isTextual() ? key.textValue() : record.partitionKey();
        byte[] json;
        try {
            json = mapper.writeValueAsBytes(event);
        } catch (IOException failure) {
            return new DeadLetter(record, ReasonCode.STEP_FAILED, failure.toString());
        }
        batch.accepted.add(new Accepted(record, eventId.textValue(), partitionKey, occurredAt, json));
        return null;
    }

    /** The record's tree and what the steps found out about it. */
    private static final class Event {
        final InboundRecord record;
        final ObjectNode tree;
        Instant occurredAt;
        boolean dropped;

        Event(InboundRecord record, ObjectNode tree) {
            this.record = record;
            this.tree = tree;
        }

        /** {@code occurredAt} as an instant, or {@code null} when it is missing or not RFC 3339. */
        Instant occurredAt() {
            if (occurredAt == null) {
                JsonNode node = tree.get("occurredAt");
                if (node != null && node.isTextual()) {
                    try {
                        occurredAt = OffsetDateTime.parse(node.textValue()).toInstant();
                    } catch (DateTimeParseException e) {
                        return null;
                    }
                }
            }
            return occurredAt;
        }
    }

    /** A batch's outputs while it runs. */
    private static final class Batch {
        /** For records without an arrival time. */
        final Instant now;

        final List<Accepted> accepted = new ArrayList<>();
        final List<DeadLetter> deadLetters = new ArrayList<>();
        final List<DeadLetter> late = new ArrayList<>();
        final Map<Window, Totals> totals = new HashMap<>();
        int filtered;

        Batch(Instant now) {
            this.now = now;
        }
    }

    private interface Step {
        /** {@code null} to go on (the event may be changed or dropped), else why the record stops. */
        DeadLetter apply(Event event, Batch batch);
    }

    /** The timestamp, the type, then networknt against the schema file. */
    private static final class Validate implements Step {
        private final String type;
        private final JsonSchema schema;

        Validate(String type, JsonNode document) {
            this.type = type;
            // formats asserted (date-time, email), as the chain checks them
            SchemaValidatorsConfig config = SchemaValidatorsConfig.builder()
                    .formatAssertionsEnabled(true)
                    .build();
            this.schema = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012)
                    .getSchema(document, config);
        }

        @Override
        public DeadLetter apply(Event event, Batch batch) {
            JsonNode occurredAt = event.tree.get("occurredAt");
            if (occurredAt == null || occurredAt.isNull()) {
                return new DeadLetter(event.record, ReasonCode.MISSING_TIMESTAMP, "$.occurredAt is required");
            }
            if (event.occurredAt() == null) {
                return new DeadLetter(
                        event.record, ReasonCode.INVALID_TIMESTAMP, "$.occurredAt must be RFC 3339 with an offset");
            }
            JsonNode type = event.tree.get("type");
            if (type == null || !this.type.equals(type.asText())) {
                return new DeadLetter(event.record, ReasonCode.UNKNOWN_TYPE, "$.type must be '" + this.type + "'");
            }
            Set<ValidationMessage> messages = schema.validate(event.tree);
            if (!messages.isEmpty()) {
                return new DeadLetter(
                        event.record,
                        ReasonCode.SCHEMA_INVALID,
                        messages.stream().map(ValidationMessage::getMessage).collect(Collectors.joining("; ")));
            }
            return null;
        }
    }

    /** The schema's {@code x-pii} fields: tokenized with HMAC-SHA256, masked, or dropped. */
    private static final class Mask implements Step {
        private final List<JsonPointer> parents = new ArrayList<>();
        private final List<String> names = new ArrayList<>();
        private final List<String> actions = new ArrayList<>();
        private final Mac mac;

        Mask(JsonNode document, byte[] key) {
            collect(document, JsonPointer.empty());
            int annotations = document.findValues("x-pii").size();
            if (annotations != names.size()) {
                throw new UnsupportedOperationException(
                        "the naive stage masks x-pii fields under nested properties only");
            }
            try {
                mac = Mac.getInstance("HmacSHA256");
                mac.init(new SecretKeySpec(key, "HmacSHA256"));
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("HmacSHA256 is not available", e);
            }
        }

        private void collect(JsonNode schema, JsonPointer at) {
            for (Iterator<Map.Entry<String, JsonNode>> it =
                            schema.path("properties").fields();
                    it.hasNext(); ) {
                Map.Entry<String, JsonNode> property = it.next();
                JsonNode action = property.getValue().get("x-pii");
                if (action != null) {
                    parents.add(at);
                    names.add(property.getKey());
                    actions.add(action.asText());
                } else {
                    collect(property.getValue(), at.appendProperty(property.getKey()));
                }
            }
        }

        @Override
        public DeadLetter apply(Event event, Batch batch) {
            for (int i = 0; i < names.size(); i++) {
                if (!(event.tree.at(parents.get(i)) instanceof ObjectNode parent)) {
                    continue;
                }
                JsonNode value = parent.get(names.get(i));
                if (value == null || value.isNull()) {
                    continue;
                }
                if (actions.get(i).equals("drop")) {
                    parent.remove(names.get(i));
                } else {
                    parent.set(names.get(i), protect(value, actions.get(i)));
                }
            }
            return null;
        }

        /** The value with every scalar in it tokenized or masked, as a string. */
        private JsonNode protect(JsonNode value, String action) {
            if (value instanceof ObjectNode object) {
                object.properties().forEach(p -> {
                    if (!p.getValue().isNull()) {
                        p.setValue(protect(p.getValue(), action));
                    }
                });
                return object;
            }
            if (value instanceof ArrayNode array) {
                for (int i = 0; i < array.size(); i++) {
                    if (!array.get(i).isNull()) {
                        array.set(i, protect(array.get(i), action));
                    }
                }
                return array;
            }
            String text = value.asText();
            return TextNode.valueOf(action.equals("tokenize") ? token(text) : mask(text));
        }

        private String token(String text) {
            byte[] mac16 = Arrays.copyOf(mac.doFinal(text.getBytes(StandardCharsets.UTF_8)), 16);
            return "tok_" + Base64.getUrlEncoder().withoutPadding().encodeToString(mac16);
        }

        /** Digit strings of 8 or more keep their last four digits; anything else one star per character. */
        private static String mask(String text) {
            int length = text.length();
            if (length >= 8 && text.chars().allMatch(c -> c >= '0' && c <= '9')) {
                return "*".repeat(length - 4) + text.substring(length - 4);
            }
            return "*".repeat(text.codePointCount(0, length));
        }
    }

    /** {@code field op number}: the field an envelope member, else a payload member. */
    private static final class Filter implements Step {
        private final String expression;
        private final JsonPointer field;
        private final String operator;
        private final double bound;

        Filter(JsonNode document, String expression) {
            Matcher m = COMPARISON.matcher(expression);
            if (!m.matches()) {
                throw new UnsupportedOperationException(
                        "the naive stage filters on 'field < | <= | > | >= number' only, not '" + expression + "'");
            }
            String name = m.group(1);
            boolean envelope = document.path("properties").has(name.split("\\.")[0]);
            this.expression = expression;
            this.field = JsonPointer.compile((envelope ? "/" : "/payload/") + name.replace('.', '/'));
            this.operator = m.group(2);
            this.bound = Double.parseDouble(m.group(3));
        }

        @Override
        public DeadLetter apply(Event event, Batch batch) {
            JsonNode value = event.tree.at(field);
            if (!value.isNumber()) {
                return new DeadLetter(
                        event.record, ReasonCode.STEP_FAILED, "filter " + expression + ": " + field + " is no number");
            }
            double x = value.doubleValue();
            boolean keep = switch (operator) {
                case "<" -> x < bound;
                case "<=" -> x <= bound;
                case ">" -> x > bound;
                default -> x >= bound;
            };
            event.dropped = !keep;
            return null;
        }
    }

    /** Tumbling event-time windows per key, added up in a map per batch; late events left out. */
    private static final class Aggregate implements Step {
        private final String name;
        private final JsonPointer key;
        private final JsonPointer value;
        private final long sizeMillis;
        private final long latenessMillis;
        private final boolean sum;
        private final boolean min;
        private final boolean max;
        private final int scale;

        Aggregate(StepDefinition step) {
            this.name = step.option("name");
            this.key = JsonPointer.compile("/" + step.option("key").replace('.', '/'));
            this.value = step.option("value") == null
                    ? null
                    : JsonPointer.compile("/" + step.option("value").replace('.', '/'));
            this.sizeMillis = Durations.parse(step.option("window")).toMillis();
            String lateness = step.option("allowedLateness");
            this.latenessMillis =
                    lateness == null ? 0 : Durations.parse(lateness).toMillis();
            Object functions = step.options().get("functions");
            List<?> declared = functions instanceof List<?> list ? list : List.of("count");
            this.sum = declared.contains("sum");
            this.min = declared.contains("min");
            this.max = declared.contains("max");
            Object decimals = step.options().get("scale");
            this.scale = decimals instanceof Number n ? n.intValue() : 2;
        }

        @Override
        public DeadLetter apply(Event event, Batch batch) {
            JsonNode keyNode = event.tree.at(key);
            if (!keyNode.isValueNode()) {
                return new DeadLetter(
                        event.record, ReasonCode.SCHEMA_INVALID, "aggregate needs " + key + " as its key");
            }
            BigDecimal amount = null;
            if (sum || min || max) {
                JsonNode valueNode = value == null ? null : event.tree.at(value);
                if (valueNode == null || !valueNode.isNumber()) {
                    return new DeadLetter(event.record, ReasonCode.SCHEMA_INVALID, "aggregate needs a value");
                }
                try {
                    amount = valueNode.decimalValue().setScale(scale, RoundingMode.UNNECESSARY);
                } catch (ArithmeticException e) {
                    return new DeadLetter(
                            event.record, ReasonCode.SCHEMA_INVALID, "more than " + scale + " decimals: " + valueNode);
                }
            }
            long start = Math.floorDiv(event.occurredAt().toEpochMilli(), sizeMillis) * sizeMillis;
            Instant arrived = event.record.arrivedAt() == null ? batch.now : event.record.arrivedAt();
            if (arrived.isAfter(Instant.ofEpochMilli(start + sizeMillis + latenessMillis))) {
                batch.late.add(new DeadLetter(event.record, ReasonCode.LATE, "window " + Instant.ofEpochMilli(start)));
                return null;
            }
            BigDecimal figure = amount;
            batch.totals.merge(
                    new Window(name, keyNode.asText(), Instant.ofEpochMilli(start)),
                    new Totals(1, sum ? figure : null, min ? figure : null, max ? figure : null),
                    (a, b) -> new Totals(
                            a.count() + 1,
                            sum ? a.sum().add(figure) : null,
                            min ? a.min().min(figure) : null,
                            max ? a.max().max(figure) : null));
            return null;
        }
    }
}
