package dev.sluice.core.definition;

import java.util.Locale;
import java.util.Set;

/** The kinds of step a chain is built from. */
public enum StepType {
    /** Checks the envelope and the payload against the stream's JSON Schema. */
    VALIDATE(Set.of("schema"));

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
