package dev.sluice.core.definition;

import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import java.util.Map;

/**
 * One step of a stage's chain. In YAML either a bare name ({@code - validate}) or a name with
 * options ({@code - validate: {schema: payments.transaction.v1}}).
 *
 * @param type the step's kind
 * @param options its settings, as declared
 */
@JsonDeserialize(using = StepDefinitionDeserializer.class)
public record StepDefinition(StepType type, Map<String, Object> options) {

    public StepDefinition {
        options = options == null ? Map.of() : Map.copyOf(options);
    }

    /** A string option, or {@code null}. */
    public String option(String name) {
        Object value = options.get(name);
        return value == null ? null : value.toString();
    }
}
