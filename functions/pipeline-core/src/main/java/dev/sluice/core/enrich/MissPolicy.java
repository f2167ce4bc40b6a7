package dev.sluice.core.enrich;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** What an enrich step does with an event whose key has no reference item. */
public enum MissPolicy {
    /** The event goes to the dead-letter queue with reason {@code ENRICHMENT_MISS}. */
    DEAD_LETTER,
    /** The event carries on without the field. */
    PASS_THROUGH,
    /** The event gets the reference's declared default item. */
    DEFAULT;

    @JsonValue
    public String yamlName() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    @JsonCreator
    public static MissPolicy fromYaml(String value) {
        for (MissPolicy policy : values()) {
            if (policy.yamlName().equals(value)) {
                return policy;
            }
        }
        throw new IllegalArgumentException("must be dead-letter, pass-through or default; got '" + value + "'");
    }
}
