package dev.sluice.core.schema;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.ValidationMessage;
import java.util.Comparator;
import java.util.List;
import java.util.Set;

/** One compiled event schema. Thread-safe; validating allocates only for the violations found. */
public final class EventSchema {

    private final String name;
    private final JsonSchema schema;
    private final JsonNode document;

    EventSchema(String name, JsonSchema schema, JsonNode document) {
        this.name = name;
        this.schema = schema;
        this.document = document;
    }

    /** The schema's name, which is also the {@code type} its events carry. */
    public String name() {
        return name;
    }

    /**
     * The schema's JSON document as read from {@code schemas/}, e.g. to derive the {@code x-pii}
     * policy from. Shared, not copied: callers must not modify it.
     */
    public JsonNode document() {
        return document;
    }

    /**
     * The violations of this schema by a document, most specific location first; empty when valid.
     * Each names the JSON path and the rule, e.g. {@code $.payload.amount: must have an exclusive
     * minimum value of 0 (exclusiveMinimum)}.
     */
    public List<String> violations(JsonNode document) {
        Set<ValidationMessage> messages = schema.validate(document);
        if (messages.isEmpty()) {
            return List.of();
        }
        return messages.stream()
                .sorted(Comparator.comparing(
                                (ValidationMessage m) -> m.getInstanceLocation().toString())
                        .thenComparing(ValidationMessage::getMessage))
                .map(m -> m.getMessage() + " (" + m.getType() + ")")
                .toList();
    }
}
