package dev.sluice.aws;

import dev.sluice.aws.sink.DynamoDbAggregateSink;
import dev.sluice.aws.sink.DynamoDbStateSink;
import dev.sluice.aws.sink.KinesisStreamSink;
import dev.sluice.aws.sink.S3LakeSink;
import dev.sluice.aws.sink.SqsDeadLetterSink;
import dev.sluice.core.definition.EnvironmentNames;
import dev.sluice.core.definition.LakeDefinition;
import dev.sluice.core.definition.SinkDefinition;
import dev.sluice.core.definition.StageDefinition;
import dev.sluice.core.definition.StepType;
import dev.sluice.core.stage.AggregateSink;
import dev.sluice.core.stage.EventSink;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/** Builds a stage's sinks, aggregate sink and dead-letter sink from its definition and environment. */
final class SinkFactory {

    private SinkFactory() {}

    /** One sink per {@code sinks:} entry of the stage, keyed by its target name, in definition order. */
    static Map<String, EventSink> sinks(StageContext context) {
        Map<String, EventSink> sinks = new LinkedHashMap<>();
        for (SinkDefinition sink : context.stage().sinks()) {
            sinks.put(sink.target(), sink(context, sink));
        }
        return sinks;
    }

    private static EventSink sink(StageContext context, SinkDefinition sink) {
        StageDefinition stage = context.stage();
        return switch (sink.kind()) {
            case LAKE -> {
                LakeDefinition lake = context.pipeline().lakes().get(sink.lake());
                // a ledger item guards records the input stream may deliver again: keep it the
                // stream's retention and a day after its last write
                Duration keep = Duration.ofHours(
                        context.pipeline().streams().get(stage.input()).retentionHours() + 24L);
                S3LakeSink lakeSink = new S3LakeSink(
                        context.clients().s3(),
                        context.required(EnvironmentNames.LAKE_BUCKET),
                        lake.prefix(),
                        context.clients().dynamoDb(),
                        context.required(EnvironmentNames.LEDGER_TABLE),
                        keep,
                        Clock.systemUTC());
                // claim mode only where parallel batches of a shard need it; the ledger elsewhere
                yield S3LakeSink.claimMode(stage) ? lakeSink : lakeSink.ledgerOnly();
            }
            case TABLE ->
                new DynamoDbStateSink(
                        context.clients().dynamoDb(),
                        context.required(EnvironmentNames.table(sink.table())),
                        context.pipeline().tables().get(sink.table()).key(),
                        context.writers(),
                        sink.table().equals(stage.deduplicate()));
            case STREAM ->
                new KinesisStreamSink(
                        context.clients().kinesis(),
                        context.required(EnvironmentNames.stream(sink.stream())),
                        context.pipeline().stream(sink.stream()).partitionKey(),
                        sink.aggregates());
        };
    }

    /**
     * The sink of the stage's aggregate steps, each writing into its own table; {@code null} when the
     * stage aggregates nothing.
     */
    static AggregateSink aggregates(StageContext context) {
        Map<String, String> tables = new LinkedHashMap<>();
        context.stage().steps().stream()
                .filter(step -> step.type() == StepType.AGGREGATE)
                .forEach(step -> tables.put(
                        step.option("name"), context.required(EnvironmentNames.table(step.option("table")))));
        return tables.isEmpty()
                ? null
                : new DynamoDbAggregateSink(context.clients().dynamoDb(), tables, context.writers());
    }

    /**
     * The stage's dead-letter queue; records too large for a message go whole to the pipeline's
     * bucket (the claim check), when the stage has one.
     */
    static SqsDeadLetterSink deadLetters(StageContext context) {
        String queue = context.stage().failure().deadLetterQueue();
        String claimChecks = context.env().get(EnvironmentNames.LAKE_BUCKET);
        return new SqsDeadLetterSink(
                context.clients().sqs(),
                context.required(EnvironmentNames.queueUrl(queue)),
                context.pipeline().pipeline(),
                context.stageName(),
                context.mapper(),
                claimChecks == null ? null : context.clients().s3(),
                claimChecks,
                queue);
    }

    /**
     * The target of the sink that deduplicates producer re-sends (it is written first and gates the
     * others); {@code null} when the stage does not deduplicate.
     */
    static String gate(StageDefinition stage) {
        return stage.deduplicate() == null
                ? null
                : stage.sinks().stream()
                        .filter(sink -> stage.deduplicate().equals(sink.table()))
                        .map(SinkDefinition::target)
                        .findFirst()
                        .orElseThrow();
    }
}
