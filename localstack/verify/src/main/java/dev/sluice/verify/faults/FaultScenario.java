package dev.sluice.verify.faults;

import dev.sluice.core.definition.StageDefinition;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * One run of the fault suite: a payments pipeline on the local stack, a fault plan, a volume.
 *
 * @param name short name, used by {@code ./sluice faults --scenario NAME}
 * @param description what goes wrong, for the table
 * @param events how many events the producer sends (the suite may scale it)
 * @param invalidShare the share of deliberately bad events (poison records)
 * @param plan fills in the faults once the scenario's resources exist
 * @param stage the stage as this scenario runs it (its failure policy, its batching), made from the
 *     definition's; the template and so the local event-source mapping then carry it
 * @param pipeline the pipeline it runs: {@link #PAYMENTS} ({@code pipelines/payments.yaml}) or {@link
 *     #PAYMENTS_PF} (the {@code payments-pf} test pipeline: parallelizationFactor 4, its lake claimed
 *     through the deduplicate table)
 */
public record FaultScenario(
        String name,
        String description,
        int events,
        double invalidShare,
        Consumer<FaultPlan> plan,
        UnaryOperator<StageDefinition> stage,
        String pipeline) {

    /** {@code pipelines/payments.yaml}, the pipeline of most scenarios. */
    public static final String PAYMENTS = "payments";

    /**
     * The {@code payments-pf} test pipeline ({@code localstack/verify/src/main/resources/sluice/pf/}):
     * payments at parallelizationFactor 4 with a deduplicate table and a lake, so in claim mode.
     */
    public static final String PAYMENTS_PF = "payments-pf";

    public FaultScenario {
        if (!pipeline.equals(PAYMENTS) && !pipeline.equals(PAYMENTS_PF)) {
            throw new IllegalArgumentException("no fault-suite pipeline '" + pipeline + "'");
        }
    }

    /** A payments scenario that runs the stage changed so. */
    public FaultScenario(
            String name,
            String description,
            int events,
            double invalidShare,
            Consumer<FaultPlan> plan,
            UnaryOperator<StageDefinition> stage) {
        this(name, description, events, invalidShare, plan, stage, PAYMENTS);
    }

    /** A payments scenario that runs the stage as defined. */
    public FaultScenario(String name, String description, int events, double invalidShare, Consumer<FaultPlan> plan) {
        this(name, description, events, invalidShare, plan, UnaryOperator.identity());
    }

    /** The same scenario on another pipeline ({@link #PAYMENTS} or {@link #PAYMENTS_PF}). */
    public FaultScenario on(String other) {
        return new FaultScenario(name, description, events, invalidShare, plan, stage, other);
    }

    /** The same scenario with another volume. */
    public FaultScenario withEvents(int count) {
        return new FaultScenario(name, description, count, invalidShare, plan, stage, pipeline);
    }

    @Override
    public String toString() {
        return name;
    }
}
