package dev.sluice.core.stage;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.core.definition.Durations;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.definition.ReferenceDefinition;
import dev.sluice.core.definition.StageDefinition;
import dev.sluice.core.definition.StepDefinition;
import dev.sluice.core.enrich.ReferenceCache;
import dev.sluice.core.event.DeadLetter;
import dev.sluice.core.event.InboundRecord;
import dev.sluice.core.event.KplFormat;
import dev.sluice.core.event.ProcessedEvent;
import dev.sluice.core.event.ReasonCode;
import dev.sluice.core.expr.EventExpressions;
import dev.sluice.core.json.JsonEdits;
import dev.sluice.core.pii.PiiPolicy;
import dev.sluice.core.pii.SecretProvider;
import dev.sluice.core.pii.Tokenizer;
import dev.sluice.core.schema.EventSchema;
import dev.sluice.core.schema.SchemaCatalog;
import dev.sluice.core.schema.fast.TokenReader;
import dev.sluice.core.window.AggregateFunction;
import dev.sluice.core.window.TumblingWindows;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A stage's steps, compiled once from its definition, run in memory over a batch. Each record is
 * parsed once, passes the steps in order and leaves as a {@link ProcessedEvent} or a
 * {@link DeadLetter}; a failure in one record never affects its neighbours.
 *
 * <p>Two ways to read a record. When the chain starts with {@code validate} and every step names
 * the fields it reads ({@link Step#reads()}), a record is first read in one pass over its tokens
 * ({@link TokenReader}): valid against the schema, the steps get a sparse event of those fields, and
 * the sinks get the record's own bytes with the steps' edits spliced in; no tree of the event is
 * built unless a sink asks for one. Any record that pass is not sure of (invalid, malformed, an
 * escape it does not check) is read the full way, into its tree, as every record of other chains
 * is: the verdicts, reasons and messages are the full way's.
 */
public final class StageChain {

    /** Kinesis' own limit for one record's data. */
    public static final int MAX_RECORD_BYTES = 1024 * 1024;

    private final String stageName;
    private final RecordParser parser;
    private final Clock clock;
    private final List<Step> steps;
    private final int maxRecordBytes;
    private final List<ReferenceCache> references;
    private final ObjectMapper mapper;
    /** The one-pass reader, or {@code null} when every record is read into its tree. */
    private final TokenReader tokens;
    /** The schema the one-pass reader validates against (the first validate step's). */
    private final EventSchema tokenSchema;
    /** The fields the one-pass reader records: the steps' and the envelope's. */
    private final List<List<String>> recorded;

    private StageChain(
            String stageName,
            ObjectMapper mapper,
            Clock clock,
            List<Step> steps,
            int maxRecordBytes,
            List<ReferenceCache> references,
            Set<String> locatedNames) {
        this.stageName = stageName;
        this.parser = new RecordParser(mapper, locatedNames);
        this.clock = clock;
        this.steps = List.copyOf(steps);
        this.maxRecordBytes = maxRecordBytes;
        this.references = List.copyOf(references);
        this.mapper = mapper;
        this.recorded = recorded(this.steps);
        this.tokenSchema = recorded == null ? null : ((ValidateStep) this.steps.get(0)).schema();
        this.tokens = recorded == null
                ? null
                : TokenReader.compile(tokenSchema.document(), mapper, recorded).orElse(null);
    }

    /** The same chain reading every record into its tree (tests compare the two ways). */
    private StageChain(StageChain chain) {
        this.stageName = chain.stageName;
        this.parser = chain.parser;
        this.clock = chain.clock;
        this.steps = chain.steps;
        this.maxRecordBytes = chain.maxRecordBytes;
        this.references = chain.references;
        this.mapper = chain.mapper;
        this.recorded = chain.recorded;
        this.tokenSchema = chain.tokenSchema;
        this.tokens = null;
    }

    /** This chain without its one-pass reader: every record is read into its tree. */
    StageChain readingTrees() {
        return new StageChain(this);
    }

    /** The envelope fields the chain itself reads when it accepts an event. */
    private static final List<List<String>> ENVELOPE = List.of(
            List.of(Envelope.EVENT_ID),
            List.of(Envelope.KEY),
            List.of(Envelope.OCCURRED_AT),
            List.of(Envelope.INGESTED_AT));

    /**
     * The fields a one-pass read must record for these steps, or {@code null} when the chain cannot
     * be read in one pass: it does not start with {@code validate}, or a step may read any field.
     */
    private static List<List<String>> recorded(List<Step> steps) {
        if (steps.isEmpty() || !(steps.get(0) instanceof ValidateStep)) {
            return null;
        }
        Set<List<String>> fields = new LinkedHashSet<>(ENVELOPE);
        for (Step step : steps) {
            List<List<String>> reads = step.reads();
            if (reads == null) {
                return null;
            }
            fields.addAll(reads);
        }
        return List.copyOf(fields);
    }

    /** Whether records are first read in one pass over their tokens (see the class comment). */
    public boolean readsInOnePass() {
        return tokens != null;
    }

    /**
     * Reloads reference data older than its refresh interval. Called before a batch, outside the
     * chain, so that no step does I/O.
     */
    public void refreshReferences() {
        references.forEach(ReferenceCache::refreshIfStale);
    }

    /** Whether the chain emits partial aggregates (and so needs an aggregate sink). */
    public boolean aggregates() {
        return steps.stream().anyMatch(AggregateStep.class::isInstance);
    }

    /** Compiles a stage that neither tokenizes nor enriches (tests, tools). */
    public static StageChain compile(
            PipelineDefinition pipeline, String stageName, SchemaCatalog schemas, ObjectMapper mapper, Clock clock) {
        return compile(pipeline, stageName, new StageServices(schemas, mapper, clock));
    }

    /**
     * Compiles a stage of a definition once: schemas, PII policies, expressions, windows and
     * reference lookups are prepared here, not per record.
     */
    public static StageChain compile(PipelineDefinition pipeline, String stageName, StageServices services) {
        StageDefinition stage = pipeline.stage(stageName);
        String streamSchema = pipeline.stream(stage.input()).schema();
        EventSchema schema = services.schemas().schema(streamSchema);
        Set<String> enriched = new HashSet<>();
        List<ReferenceCache> caches = new ArrayList<>();
        List<Step> steps = new ArrayList<>();
        // the strings whose edits can be spliced into the record's bytes (null: every string)
        Set<String> located = new HashSet<>(Set.of(Envelope.INGESTED_AT));
        for (StepDefinition step : stage.steps()) {
            switch (step.type()) {
                case VALIDATE ->
                    steps.add(new ValidateStep(services.schemas()
                            .schema(step.option("schema") == null ? streamSchema : step.option("schema"))));
                case MASK -> {
                    PiiPolicy policy = PiiPolicy.fromSchema(schema.document());
                    Tokenizer tokenizer = policy.needsTokenizer()
                            ? Tokenizer.fromSecret(
                                    secrets(services, stageName),
                                    step.option("secret") == null ? DEFAULT_SECRET : step.option("secret"),
                                    null)
                            : null;
                    steps.add(new MaskStep(policy, tokenizer));
                    Set<String> changed = policy.changedNames();
                    if (changed == null || located == null) {
                        located = null;
                    } else {
                        located.addAll(changed);
                    }
                }
                case FILTER ->
                    steps.add(new FilterStep(
                            new EventExpressions(schema.document(), enriched).compile(step.option("when"))));
                case ENRICH -> {
                    String name = step.option("reference");
                    ReferenceDefinition reference = pipeline.references().get(name);
                    ReferenceCache cache = services.references().get(name);
                    if (cache == null) {
                        throw new IllegalStateException("stage '" + stageName + "' enriches with reference '" + name
                                + "' but no cache was given");
                    }
                    steps.add(new EnrichStep(
                            name,
                            cache,
                            step.option("key"),
                            step.option("into"),
                            reference.onMiss(),
                            reference.defaultItem()));
                    enriched.add(step.option("into"));
                    caches.add(cache);
                }
                case AGGREGATE ->
                    steps.add(new AggregateStep(
                            windows(step, services.clock()), step.option("key"), step.option("value")));
                case ROUTE -> steps.add(route(schema, enriched, step));
            }
        }
        return new StageChain(stageName, services.mapper(), services.clock(), steps, MAX_RECORD_BYTES, caches, located);
    }

    /** The secret name a mask step uses when it names none. */
    public static final String DEFAULT_SECRET = "tokenization-key";

    private static SecretProvider secrets(StageServices services, String stageName) {
        if (services.secrets() == null) {
            throw new IllegalStateException("stage '" + stageName + "' tokenizes PII but no secret provider was given");
        }
        return services.secrets();
    }

    private static TumblingWindows windows(StepDefinition step, Clock clock) {
        Object declared = step.options().get("functions");
        Set<AggregateFunction> functions = EnumSet.noneOf(AggregateFunction.class);
        for (Object f : declared instanceof List<?> list ? list : List.of("count")) {
            functions.add(AggregateFunction.valueOf(String.valueOf(f).toUpperCase(Locale.ROOT)));
        }
        String lateness = step.option("allowedLateness");
        Object scale = step.options().get("scale");
        return new TumblingWindows(
                step.option("name"),
                Durations.parse(step.option("window")),
                lateness == null ? Duration.ZERO : Durations.parse(lateness),
                functions,
                scale instanceof Number decimals ? decimals.intValue() : TumblingWindows.DEFAULT_SCALE,
                clock);
    }

    private static RouteStep route(EventSchema schema, Set<String> enriched, StepDefinition step) {
        EventExpressions expressions = new EventExpressions(schema.document(), enriched);
        List<RouteStep.Rule> rules = new ArrayList<>();
        for (Object rule : (List<?>) step.options().get("rules")) {
            Map<?, ?> map = (Map<?, ?>) rule;
            rules.add(new RouteStep.Rule(expressions.compile(String.valueOf(map.get("when"))), targets(map.get("to"))));
        }
        return new RouteStep(rules, targets(step.options().get("otherwise")));
    }

    private static List<String> targets(Object value) {
        List<String> targets = new ArrayList<>();
        for (Object target : (List<?>) value) {
            targets.add(String.valueOf(target));
        }
        return targets;
    }

    /** The stage's name. */
    public String stageName() {
        return stageName;
    }

    /** Runs every record of a batch through the chain. */
    public BatchOutcome process(List<InboundRecord> records) {
        BatchOutcome.Builder outcome = new BatchOutcome.Builder(records.size());
        String ingestedAt = OffsetDateTime.now(clock).toString();
        JsonEdits.Stamp stamp = new JsonEdits.Stamp(Envelope.INGESTED_AT, ingestedAt);
        List<Step> batchSteps = new ArrayList<>(steps.size());
        for (Step step : steps) {
            batchSteps.add(step.forBatch());
        }
        for (InboundRecord record : records) {
            Object result = processOne(record, ingestedAt, batchSteps);
            if (result instanceof EventContext context) {
                outcome.sideOutputs(context.sideOutputs());
                if (context.dropped()) {
                    outcome.filtered();
                } else {
                    Object accepted = accept(context, ingestedAt, stamp);
                    if (accepted instanceof ProcessedEvent event) {
                        outcome.accept(event);
                    } else {
                        outcome.deadLetter((DeadLetter) accepted);
                    }
                }
            } else {
                outcome.deadLetter((DeadLetter) result);
            }
        }
        for (Step step : batchSteps) {
            step.finish(outcome);
        }
        return outcome.build();
    }

    /** The record's context after every step, or the dead letter that stopped it. */
    private Object processOne(InboundRecord record, String ingestedAt, List<Step> batchSteps) {
        if (record.data().length > maxRecordBytes) {
            return new DeadLetter(
                    record,
                    ReasonCode.OVERSIZE,
                    record.data().length + " bytes, more than the " + maxRecordBytes + " this stage accepts");
        }
        if (KplFormat.hasMagic(record.data())) {
            // the consumer de-aggregates what it can: an aggregate here is one nobody can read
            return new DeadLetter(record, ReasonCode.MALFORMED_AGGREGATE, KplFormat.diagnose(record.data()));
        }
        EventContext context = tokens == null ? null : readInOnePass(record);
        if (context == null) {
            ObjectNode event;
            try {
                event = parser.parse(record.data());
            } catch (RecordParser.MalformedRecordException e) {
                return new DeadLetter(record, ReasonCode.MALFORMED_JSON, e.getMessage());
            }
            context = new EventContext(record, event);
        }
        for (Step step : batchSteps) {
            DeadLetter rejected;
            try {
                rejected = step.apply(context);
            } catch (RuntimeException e) {
                // a step that breaks on one record must not take its neighbours with it
                rejected = new DeadLetter(record, ReasonCode.STEP_FAILED, e.toString());
            }
            if (rejected != null) {
                return rejected;
            }
            if (!step.keepsBytes()) {
                context.edits().invalidate();
            }
            if (context.dropped()) {
                break;
            }
        }
        return context;
    }

    /** The record read in one pass, or {@code null} when it must be read the full way. */
    private EventContext readInOnePass(InboundRecord record) {
        byte[] data = record.data();
        if (RecordParser.scan(data) != RecordParser.CLEAN) {
            return null; // not UTF-8, a NUL, or a surrogate escape: the full way says which
        }
        TokenReader.Reading reading = tokens.read(data);
        return reading == null
                ? null
                : new EventContext(record, reading.fields(), tokenSchema, reading.rootSize(), reading.oneLine());
    }

    private Object accept(EventContext context, String ingestedAt, JsonEdits.Stamp stamp) {
        InboundRecord record = context.record();
        ObjectNode event = context.event();
        Instant occurredAt = context.occurredAt();
        if (occurredAt == null) {
            // a stage without a validate step still never lets an untimestamped event through
            return new DeadLetter(
                    record,
                    event.hasNonNull(Envelope.OCCURRED_AT)
                            ? ReasonCode.INVALID_TIMESTAMP
                            : ReasonCode.MISSING_TIMESTAMP,
                    "$.occurredAt must be an RFC 3339 date-time with an offset");
        }
        JsonNode eventId = event.get(Envelope.EVENT_ID);
        if (eventId == null || !eventId.isTextual() || eventId.textValue().isEmpty()) {
            return new DeadLetter(record, ReasonCode.SCHEMA_INVALID, "$.eventId is required");
        }
        JsonEdits edits = context.edits();
        edits.stamp(record.data(), event.get(Envelope.INGESTED_AT), context.rootSize(), stamp);
        event.put(Envelope.INGESTED_AT, ingestedAt);
        JsonNode key = event.get(Envelope.KEY);
        String partitionKey = key != null && key.isTextual() ? key.textValue() : record.partitionKey();
        byte[] json = edits.apply(record.data(), context.oneLine());
        if (!context.sparse()) {
            return new ProcessedEvent(
                    record, eventId.textValue(), partitionKey, occurredAt, event, context.routes(), json);
        }
        if (json != null) {
            return ProcessedEvent.ofJson(
                    record,
                    eventId.textValue(),
                    partitionKey,
                    occurredAt,
                    context.routes(),
                    json,
                    this::readTree,
                    ingestedAt);
        }
        // the steps' changes cannot be spliced (a dropped field, a masked number, a record on several
        // lines): the whole tree, with the sparse event's fields laid over it
        ObjectNode whole;
        try {
            whole = parser.parse(record.data());
        } catch (RecordParser.MalformedRecordException e) {
            return new DeadLetter(record, ReasonCode.MALFORMED_JSON, e.getMessage());
        }
        overlay(recorded, event, whole);
        return new ProcessedEvent(record, eventId.textValue(), partitionKey, occurredAt, whole, context.routes(), null);
    }

    /** An accepted event's spliced bytes read into a tree, for a sink that asks for one. */
    private ObjectNode readTree(byte[] json) {
        try {
            return (ObjectNode) mapper.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException("an accepted event's bytes no longer read as JSON", e);
        }
    }

    /**
     * Lays the recorded fields of a sparse event over the event's whole tree: each path present in
     * the sparse event is set to its value there, each absent one removed (a step dropped it).
     */
    static void overlay(List<List<String>> paths, ObjectNode sparse, ObjectNode whole) {
        for (List<String> path : paths) {
            JsonNode from = sparse;
            ObjectNode to = whole;
            int last = path.size() - 1;
            for (int i = 0; i < last && from != null && to != null; i++) {
                from = from.isObject() ? from.get(path.get(i)) : null;
                JsonNode next = to.get(path.get(i));
                to = next instanceof ObjectNode object ? object : null;
            }
            if (to == null) {
                continue; // the path does not go through objects here: recorded whole further up
            }
            JsonNode value = from != null && from.isObject() ? from.get(path.get(last)) : null;
            if (value == null) {
                to.remove(path.get(last));
            } else {
                to.set(path.get(last), value);
            }
        }
    }
}
