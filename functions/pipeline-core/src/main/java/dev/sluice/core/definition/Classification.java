package dev.sluice.core.definition;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Arrays;
import java.util.Locale;

/** How sensitive a stream's raw records are. */
public enum Classification {
    /** Holds raw PII: readable only by the stage that masks it. */
    RESTRICTED,
    /** Masked data for the pipeline's developers and analysts. */
    INTERNAL,
    /** No personal data at all. */
    PUBLIC;

    @JsonValue
    public String yamlName() {
        return name().toLowerCase(Locale.ROOT);
    }

    @JsonCreator
    public static Classification fromYaml(String value) {
        return Arrays.stream(values())
                .filter(c -> c.yamlName().equals(value))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException(
                        "must be one of restricted, internal, public; got '" + value + "'"));
    }
}
