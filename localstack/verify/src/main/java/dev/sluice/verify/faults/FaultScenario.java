package dev.sluice.verify.faults;

import java.util.function.Consumer;

/**
 * One run of the fault suite: the payments pipeline on the local stack, a fault plan, a volume.
 *
 * @param name short name, used by {@code ./sluice faults --scenario NAME}
 * @param description what goes wrong, for the table
 * @param events how many events the producer sends (the suite may scale it)
 * @param invalidShare the share of deliberately bad events (poison records)
 * @param plan fills in the faults once the scenario's resources exist
 */
public record FaultScenario(
        String name, String description, int events, double invalidShare, Consumer<FaultPlan> plan) {

    /** The same scenario with another volume. */
    public FaultScenario withEvents(int count) {
        return new FaultScenario(name, description, count, invalidShare, plan);
    }

    @Override
    public String toString() {
        return name;
    }
}
