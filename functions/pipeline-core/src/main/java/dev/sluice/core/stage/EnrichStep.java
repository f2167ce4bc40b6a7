package dev.sluice.core.stage;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.core.definition.FieldPaths;
import dev.sluice.core.enrich.MissPolicy;
import dev.sluice.core.enrich.ReferenceCache;
import dev.sluice.core.event.DeadLetter;
import dev.sluice.core.event.ReasonCode;
import java.util.Optional;

/** Copies the reference item for the event's join key into a field of the event, from memory. */
final class EnrichStep implements Step {

    private final String reference;
    private final ReferenceCache cache;
    private final JsonPointer key;
    private final String keyPath;
    private final String into;
    private final MissPolicy onMiss;
    private final JsonNode defaultItem;

    EnrichStep(
            String reference,
            ReferenceCache cache,
            String keyPath,
            String into,
            MissPolicy onMiss,
            JsonNode defaultItem) {
        this.reference = reference;
        this.cache = cache;
        this.key = FieldPaths.pointer(keyPath);
        this.keyPath = keyPath;
        this.into = into;
        this.onMiss = onMiss;
        this.defaultItem = defaultItem;
    }

    @Override
    public DeadLetter apply(EventContext context) {
        JsonNode value = context.event().at(key);
        Optional<JsonNode> item = value.isValueNode() ? cache.get(value.asText()) : Optional.empty();
        if (item.isPresent()) {
            context.event().set(into, item.get().deepCopy());
            return null;
        }
        return switch (onMiss) {
            case PASS_THROUGH -> null;
            case DEFAULT -> {
                context.event().set(into, defaultItem.deepCopy());
                yield null;
            }
            case DEAD_LETTER ->
                new DeadLetter(
                        context.record(),
                        ReasonCode.ENRICHMENT_MISS,
                        "no '" + reference + "' item for " + keyPath + " = "
                                + (value.isMissingNode() ? "(absent)" : value));
        };
    }
}
