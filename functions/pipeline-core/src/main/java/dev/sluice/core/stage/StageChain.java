package dev.sluice.core.stage;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.definition.StageDefinition;
import dev.sluice.core.definition.StepDefinition;
import dev.sluice.core.event.DeadLetter;
import dev.sluice.core.event.InboundRecord;
import dev.sluice.core.event.ProcessedEvent;
import dev.sluice.core.event.ReasonCode;
import dev.sluice.core.schema.SchemaCatalog;
import java.io.IOException;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;

/**
 * A stage's steps, compiled once from its definition, run in memory over a batch. Each record is
 * parsed once, passes the steps in order and leaves as a {@link ProcessedEvent} or a
 * {@link DeadLetter}; a failure in one record never affects its neighbours.
 */
public final class StageChain {

    /** Kinesis' own limit for one record's data. */
    public static final int MAX_RECORD_BYTES = 1024 * 1024;

    private final String stageName;
    private final ObjectMapper mapper;
    private final Clock clock;
    private final List<Step> steps;
    private final int maxRecordBytes;

    private StageChain(String stageName, ObjectMapper mapper, Clock clock, List<Step> steps, int maxRecordBytes) {
        this.stageName = stageName;
        this.mapper = mapper;
        this.clock = clock;
        this.steps = List.copyOf(steps);
        this.maxRecordBytes = maxRecordBytes;
    }

    /** Compiles a stage of a definition; schemas are compiled here, not per record. */
    public static StageChain compile(
            PipelineDefinition pipeline, String stageName, SchemaCatalog schemas, ObjectMapper mapper, Clock clock) {
        StageDefinition stage = pipeline.stage(stageName);
        String streamSchema = pipeline.stream(stage.input()).schema();
        List<Step> steps = new ArrayList<>();
        for (StepDefinition step : stage.steps()) {
            switch (step.type()) {
                case VALIDATE -> {
                    String schema = step.option("schema") == null ? streamSchema : step.option("schema");
                    steps.add(new ValidateStep(schemas.schema(schema)));
                }
            }
        }
        return new StageChain(stageName, mapper, clock, steps, MAX_RECORD_BYTES);
    }

    /** The stage's name. */
    public String stageName() {
        return stageName;
    }

    /** Runs every record of a batch through the chain. */
    public BatchOutcome process(List<InboundRecord> records) {
        List<ProcessedEvent> accepted = new ArrayList<>(records.size());
        List<DeadLetter> deadLetters = new ArrayList<>();
        String ingestedAt = OffsetDateTime.now(clock).toString();
        for (InboundRecord record : records) {
            Object result = processOne(record, ingestedAt);
            if (result instanceof ProcessedEvent event) {
                accepted.add(event);
            } else {
                deadLetters.add((DeadLetter) result);
            }
        }
        return new BatchOutcome(accepted, deadLetters);
    }

    private Object processOne(InboundRecord record, String ingestedAt) {
        if (record.data().length > maxRecordBytes) {
            return new DeadLetter(
                    record,
                    ReasonCode.OVERSIZE,
                    record.data().length + " bytes, more than the " + maxRecordBytes + " this stage accepts");
        }
        JsonNode parsed;
        try {
            parsed = mapper.readTree(record.data());
        } catch (JsonProcessingException e) {
            return new DeadLetter(record, ReasonCode.MALFORMED_JSON, e.getOriginalMessage());
        } catch (IOException e) {
            return new DeadLetter(record, ReasonCode.MALFORMED_JSON, e.getMessage());
        }
        if (!(parsed instanceof ObjectNode event)) {
            return new DeadLetter(
                    record,
                    ReasonCode.MALFORMED_JSON,
                    "expected a JSON object, got " + (parsed == null ? "nothing" : parsed.getNodeType()));
        }
        for (Step step : steps) {
            DeadLetter rejected;
            try {
                rejected = step.apply(record, event);
            } catch (RuntimeException e) {
                // a step that breaks on one record must not take its neighbours with it
                rejected = new DeadLetter(record, ReasonCode.SCHEMA_INVALID, "step failed: " + e);
            }
            if (rejected != null) {
                return rejected;
            }
        }
        return accept(record, event, ingestedAt);
    }

    private Object accept(InboundRecord record, ObjectNode event, String ingestedAt) {
        JsonNode occurredAt = event.get(Envelope.OCCURRED_AT);
        if (occurredAt == null || !occurredAt.isTextual() || !ValidateStep.isRfc3339(occurredAt.textValue())) {
            // a stage without a validate step still never lets an untimestamped event through
            return new DeadLetter(
                    record,
                    occurredAt == null ? ReasonCode.MISSING_TIMESTAMP : ReasonCode.INVALID_TIMESTAMP,
                    "$.occurredAt must be an RFC 3339 date-time with an offset");
        }
        JsonNode eventId = event.get(Envelope.EVENT_ID);
        if (eventId == null || !eventId.isTextual() || eventId.textValue().isEmpty()) {
            return new DeadLetter(record, ReasonCode.SCHEMA_INVALID, "$.eventId is required");
        }
        event.put(Envelope.INGESTED_AT, ingestedAt);
        JsonNode key = event.get(Envelope.KEY);
        return new ProcessedEvent(
                record,
                eventId.textValue(),
                key != null && key.isTextual() ? key.textValue() : record.partitionKey(),
                OffsetDateTime.parse(occurredAt.textValue()).toInstant(),
                event);
    }
}
