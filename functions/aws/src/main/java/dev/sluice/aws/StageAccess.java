package dev.sluice.aws;

import dev.sluice.aws.access.Access;
import dev.sluice.aws.access.KclAccess;
import dev.sluice.aws.secrets.SecretsManagerSecretProvider;
import dev.sluice.aws.sink.DynamoDbAggregateSink;
import dev.sluice.aws.sink.DynamoDbReferenceLoader;
import dev.sluice.aws.sink.DynamoDbStateSink;
import dev.sluice.aws.sink.KinesisStreamSink;
import dev.sluice.aws.sink.S3LakeSink;
import dev.sluice.aws.sink.S3ReferenceLoader;
import dev.sluice.aws.sink.SqsDeadLetterSink;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.definition.ReferenceDefinition;
import dev.sluice.core.definition.SinkDefinition;
import dev.sluice.core.definition.StageDefinition;
import dev.sluice.core.definition.StepType;
import dev.sluice.core.event.DeadLetter;
import dev.sluice.core.stage.StageChain;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Every AWS permission a stage's code needs, from its definition: the declarations ({@code access(...)})
 * of the components {@code SinkFactory}, {@code ReferenceFactory} and {@code SecretFactory} build for
 * it — its sinks, aggregate sink, dead-letter sink (with claim checks), reference loaders and secret
 * provider — merged per resource. What the stage's consumer adds (the Lambda event-source mapping's
 * reads, or {@link KclAccess} for a KCL worker) and its logs are not part of it.
 */
public final class StageAccess {

    private StageAccess() {}

    /** The merged declarations of {@code stageName}'s components, sorted by resource. */
    public static List<Access> of(PipelineDefinition pipeline, String stageName) {
        StageDefinition stage = pipeline.stage(stageName);
        List<Access> all = new ArrayList<>();
        for (SinkDefinition sink : stage.sinks()) {
            switch (sink.kind()) {
                case LAKE ->
                    all.addAll(
                            S3LakeSink.access(pipeline.lakes().get(sink.lake()).prefix(), S3LakeSink.claimMode(stage)));
                case TABLE ->
                    all.addAll(DynamoDbStateSink.access(
                            sink.table(),
                            sink.table().equals(stage.deduplicate()),
                            sink.table().equals(stage.deduplicate()) && S3LakeSink.claimMode(stage)));
                case STREAM -> all.addAll(KinesisStreamSink.access(sink.stream(), sink.aggregates()));
            }
        }
        stage.steps().stream()
                .filter(step -> step.type() == StepType.AGGREGATE)
                .map(step -> step.option("table"))
                .distinct()
                .forEach(table -> all.addAll(DynamoDbAggregateSink.access(table)));
        stage.steps().stream()
                .filter(step -> step.type() == StepType.ENRICH)
                .map(step -> step.option("reference"))
                .distinct()
                .forEach(name -> {
                    ReferenceDefinition reference = pipeline.references().get(name);
                    all.addAll(
                            reference.table() != null
                                    ? DynamoDbReferenceLoader.access(reference.table())
                                    : S3ReferenceLoader.access(reference.object()));
                });
        stage.steps().stream()
                .filter(step -> step.type() == StepType.MASK)
                .map(step -> step.option("secret") == null ? StageChain.DEFAULT_SECRET : step.option("secret"))
                .distinct()
                .forEach(secret -> all.addAll(SecretsManagerSecretProvider.access(secret)));
        String queue = stage.failure().deadLetterQueue();
        // the pipeline's bucket holds the claim checks; every pipeline with a queue has one
        all.addAll(SqsDeadLetterSink.access(queue, DeadLetter.claimCheckPrefix(queue)));
        return Access.merge(all);
    }

    /** The actions of every access, for a quick look. */
    static Set<String> actions(List<Access> accesses) {
        Set<String> out = new LinkedHashSet<>();
        accesses.forEach(a -> out.addAll(a.actions()));
        return out;
    }
}
