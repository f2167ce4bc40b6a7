package dev.sluice.core.definition;

import java.util.Locale;
import java.util.Set;

/** The kinds of step a chain is built from, with the options each accepts. */
public enum StepType {
    /** Checks timestamp, type and the whole JSON Schema. Option: {@code schema} (default: the stream's). */
    VALIDATE(Set.of("schema")),
    /**
     * Protects PII as the schema's {@code x-pii} annotations say: tokenize, mask or drop. Option:
     * {@code secret}, the name of the tokenization key (default {@code tokenization-key}).
     */
    MASK(Set.of("secret")),
    /** Keeps only events for which a CEL expression is true. Option: {@code when}. */
    FILTER(Set.of("when")),
    /**
     * Joins each event with reference data. Options: {@code reference} (a name under
     * {@code references:}), {@code key} (the event field to join on), {@code into} (the field that
     * receives the reference item).
     */
    ENRICH(Set.of("reference", "key", "into")),
    /**
     * Event-time tumbling windows per key. Options: {@code name}, {@code key}, {@code value},
     * {@code window}, {@code allowedLateness}, {@code functions}, {@code scale} (decimals of sum,
     * min and max), {@code table} (where the partial aggregates are applied).
     */
    AGGREGATE(Set.of("name", "key", "value", "window", "allowedLateness", "functions", "scale", "table")),
    /**
     * Sends each event to some sinks only: {@code rules} (a list of {@code when} + {@code to}, first
     * match wins) and {@code otherwise}.
     */
    ROUTE(Set.of("rules", "otherwise"));

    private final Set<String> options;

    StepType(Set<String> options) {
        this.options = options;
    }

    /** The option names this step accepts. */
    public Set<String> options() {
        return options;
    }

    public String yamlName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
