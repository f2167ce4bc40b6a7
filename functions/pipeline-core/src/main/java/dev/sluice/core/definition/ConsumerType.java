package dev.sluice.core.definition;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** What reads a stage's input stream. */
public enum ConsumerType {
    /** A Lambda function behind a Kinesis event-source mapping. */
    LAMBDA,
    /** Long-lived KCL workers sharing a lease table. */
    KCL;

    @JsonValue
    public String yamlName() {
        return name().toLowerCase(Locale.ROOT);
    }

    @JsonCreator
    public static ConsumerType fromYaml(String value) {
        for (ConsumerType type : values()) {
            if (type.yamlName().equals(value)) {
                return type;
            }
        }
        throw new IllegalArgumentException("must be lambda or kcl; got '" + value + "'");
    }
}
