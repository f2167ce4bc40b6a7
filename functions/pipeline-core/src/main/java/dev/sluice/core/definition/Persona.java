package dev.sluice.core.definition;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** The people and systems that get one IAM role each, generated from a pipeline's access block. */
public enum Persona {
    ADMIN,
    PIPELINE_DEVELOPER,
    SOURCE_OPERATOR,
    ANALYST,
    VIEWER;

    @JsonValue
    public String yamlName() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    @JsonCreator
    public static Persona fromYaml(String value) {
        for (Persona persona : values()) {
            if (persona.yamlName().equals(value)) {
                return persona;
            }
        }
        throw new IllegalArgumentException(
                "must be one of admin, pipeline-developer, source-operator, analyst, viewer; got '" + value + "'");
    }
}
