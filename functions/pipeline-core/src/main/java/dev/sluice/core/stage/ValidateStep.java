package dev.sluice.core.stage;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.core.event.DeadLetter;
import dev.sluice.core.event.InboundRecord;
import dev.sluice.core.event.ReasonCode;
import dev.sluice.core.schema.EventSchema;
import java.util.List;

/**
 * Checks an event against the schema its stream carries: the timestamp first (every event must
 * have one), then the type, then the whole schema. The first problem found is the reason.
 */
final class ValidateStep implements Step {

    private final EventSchema schema;

    ValidateStep(EventSchema schema) {
        this.schema = schema;
    }

    @Override
    public boolean keepsBytes() {
        return true; // reads the event only
    }

    @Override
    public List<List<String>> reads() {
        return List.of(List.of(Envelope.OCCURRED_AT), List.of(Envelope.TYPE));
    }

    /** The schema events are checked against. */
    EventSchema schema() {
        return schema;
    }

    @Override
    public DeadLetter apply(EventContext context) {
        InboundRecord record = context.record();
        ObjectNode event = context.event();
        JsonNode occurredAt = event.get(Envelope.OCCURRED_AT);
        if (occurredAt == null || occurredAt.isNull()) {
            return new DeadLetter(record, ReasonCode.MISSING_TIMESTAMP, "$.occurredAt is required");
        }
        if (!occurredAt.isTextual() || context.occurredAt() == null) {
            return new DeadLetter(
                    record,
                    ReasonCode.INVALID_TIMESTAMP,
                    "$.occurredAt must be an RFC 3339 date-time with an offset, got " + occurredAt);
        }
        JsonNode type = event.get(Envelope.TYPE);
        if (type == null || !type.isTextual() || !schema.name().equals(type.textValue())) {
            return new DeadLetter(
                    record,
                    ReasonCode.UNKNOWN_TYPE,
                    "$.type must be '" + schema.name() + "', got " + (type == null ? "nothing" : type.toString()));
        }
        if (context.validatedAgainst() == schema) {
            return null; // the chain's token pass found the event valid against this very schema
        }
        List<String> violations = schema.violations(event);
        if (!violations.isEmpty()) {
            return new DeadLetter(record, ReasonCode.SCHEMA_INVALID, String.join("; ", violations));
        }
        return null;
    }
}
