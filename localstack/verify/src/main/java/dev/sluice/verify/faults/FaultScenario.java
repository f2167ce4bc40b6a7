package dev.sluice.verify.faults;

import dev.sluice.core.definition.FailureDefinition;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * One run of the fault suite: the payments pipeline on the local stack, a fault plan, a volume.
 *
 * @param name short name, used by {@code ./sluice faults --scenario NAME}
 * @param description what goes wrong, for the table
 * @param events how many events the producer sends (the suite may scale it)
 * @param invalidShare the share of deliberately bad events (poison records)
 * @param plan fills in the faults once the scenario's resources exist
 * @param failure the stage's failure policy for this scenario (retries, record age, bisection), made
 *     from the definition's; the template and so the local event-source mapping then carry it
 */
public record FaultScenario(
        String name,
        String description,
        int events,
        double invalidShare,
        Consumer<FaultPlan> plan,
        UnaryOperator<FailureDefinition> failure) {

    /** A scenario with the definition's failure policy. */
    public FaultScenario(String name, String description, int events, double invalidShare, Consumer<FaultPlan> plan) {
        this(name, description, events, invalidShare, plan, UnaryOperator.identity());
    }

    /** The same scenario with another volume. */
    public FaultScenario withEvents(int count) {
        return new FaultScenario(name, description, count, invalidShare, plan, failure);
    }

    @Override
    public String toString() {
        return name;
    }
}
