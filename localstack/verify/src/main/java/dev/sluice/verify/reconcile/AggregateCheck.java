package dev.sluice.verify.reconcile;

import dev.sluice.core.definition.Durations;
import dev.sluice.core.definition.StageDefinition;
import dev.sluice.core.definition.StepDefinition;
import dev.sluice.core.definition.StepType;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What reconciliation checks in an aggregate table: for each (key, window) of the aggregate, the
 * item's count and sum against the ledger's valid events that were not late.
 *
 * @param table the physical table
 * @param aggregate the aggregate's name
 * @param keyField the event field the aggregate groups by (dotted path)
 * @param valueField the event field summed, or {@code null} for a count-only aggregate
 * @param window the tumbling window's size
 */
public record AggregateCheck(String table, String aggregate, String keyField, String valueField, Duration window) {

    public AggregateCheck {
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(aggregate, "aggregate");
        Objects.requireNonNull(keyField, "keyField");
        Objects.requireNonNull(window, "window");
    }

    /**
     * The check of a stage's first aggregate step, if it has one.
     *
     * @param tables physical table names by logical name
     */
    public static Optional<AggregateCheck> of(StageDefinition stage, Map<String, String> tables) {
        for (StepDefinition step : stage.steps()) {
            if (step.type() == StepType.AGGREGATE) {
                return Optional.of(new AggregateCheck(
                        tables.get(step.option("table")),
                        step.option("name"),
                        step.option("key"),
                        step.option("value"),
                        Durations.parse(step.option("window"))));
            }
        }
        return Optional.empty();
    }
}
