package dev.sluice.core.schema;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.ValidationMessage;
import dev.sluice.core.schema.fast.FastValidator;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;

/**
 * One compiled event schema. Thread-safe; validating allocates only for the violations found.
 *
 * <p>Validation first asks a {@link FastValidator} compiled from the same document (when the schema uses only the
 * keywords it supports): a valid event is answered without touching networknt. Anything else goes to networknt, which
 * stays the one source of violation messages and has the last word.
 */
public final class EventSchema {

    /** Events the fast path called invalid but networknt found valid: expected to stay zero. */
    private static final LongAdder FAST_PATH_DISAGREEMENTS = new LongAdder();

    private final String name;
    private final JsonSchema schema;
    private final JsonNode document;
    private final FastValidator fast; // null: networknt alone

    EventSchema(String name, JsonSchema schema, JsonNode document, Optional<FastValidator> fast) {
        this.name = name;
        this.schema = schema;
        this.document = document;
        this.fast = fast.orElse(null);
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
        if (fast == null) {
            return referenceViolations(document);
        }
        if (fast.isValid(document)) {
            return List.of();
        }
        List<String> violations = referenceViolations(document);
        if (violations.isEmpty()) {
            FAST_PATH_DISAGREEMENTS.increment(); // networknt wins; the fast path should have said valid
        }
        return violations;
    }

    /** The fast validator used for this schema, if the schema compiled to one. */
    Optional<FastValidator> fastValidator() {
        return Optional.ofNullable(fast);
    }

    /**
     * How many times, in this JVM, the fast path called an event invalid that networknt found valid (networknt's
     * verdict was used). A diagnostic for tests and metrics: it should stay zero.
     */
    public static long fastPathDisagreements() {
        return FAST_PATH_DISAGREEMENTS.sum();
    }

    /** networknt's violations alone, without the fast path: the reference verdict and messages. */
    List<String> referenceViolations(JsonNode document) {
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
