package dev.sluice.cdk;

import dev.sluice.core.definition.ReferenceDefinition;
import dev.sluice.core.definition.StageDefinition;
import dev.sluice.core.definition.StepType;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/** What a stage's steps touch besides its input and sinks: the same for Lambda and KCL stages. */
final class StageSteps {

    private StageSteps() {}

    /** The tables the stage's {@code aggregate} steps update, each once, in step order. */
    static List<String> aggregateTables(StageDefinition stage) {
        return stage.steps().stream()
                .filter(step -> step.type() == StepType.AGGREGATE)
                .map(step -> step.option("table"))
                .distinct()
                .toList();
    }

    /** The references the stage's {@code enrich} steps read, each once, in step order. */
    static List<ReferenceDefinition> references(PipelineStack stack, StageDefinition stage) {
        return stage.steps().stream()
                .filter(step -> step.type() == StepType.ENRICH)
                .map(step -> step.option("reference"))
                .distinct()
                .map(name -> stack.getDefinition().references().get(name))
                .toList();
    }

    /** The secrets the stage's {@code mask} steps read, each once, sorted. */
    static Set<String> secrets(StageDefinition stage) {
        Set<String> names = new TreeSet<>();
        stage.steps().stream()
                .filter(step -> step.type() == StepType.MASK)
                .forEach(step -> names.add(PipelineStack.maskSecret(step)));
        return names;
    }
}
