package dev.sluice.core.definition;

import java.util.List;

/**
 * A stage: reads one stream, runs its steps in memory, writes to its sinks.
 *
 * @param input logical name of the stream it reads
 * @param consumer Lambda (event-source mapping) or KCL workers
 * @param handler the handler class the runtime loads; defaults to Sluice's Kinesis stage handler
 * @param steps the in-memory step chain, in order
 * @param sinks where accepted events go
 * @param batching how records are grouped into batches and how many run at once
 * @param failure retries and the dead-letter queue
 * @param deduplicate the table (keyed by {@code eventId}, one of the stage's sinks) that recognises
 *     producer re-sends and keeps them out of the other sinks; {@code null} for none
 * @param function memory, timeout and reserved concurrency of the stage's Lambda function ({@code
 *     consumer: lambda} only)
 */
public record StageDefinition(
        String input,
        ConsumerType consumer,
        String handler,
        List<StepDefinition> steps,
        List<SinkDefinition> sinks,
        BatchingDefinition batching,
        FailureDefinition failure,
        String deduplicate,
        FunctionDefinition function) {

    /** The Lambda handler used when a stage names none. */
    public static final String DEFAULT_HANDLER = "dev.sluice.lambda.KinesisStageHandler";

    public StageDefinition {
        consumer = consumer == null ? ConsumerType.LAMBDA : consumer;
        handler = handler == null ? DEFAULT_HANDLER : handler;
        steps = steps == null ? List.of() : List.copyOf(steps);
        sinks = sinks == null ? List.of() : List.copyOf(sinks);
        batching = batching == null ? BatchingDefinition.DEFAULTS : batching;
        failure = failure == null ? FailureDefinition.DEFAULTS : failure;
        function = function == null ? FunctionDefinition.DEFAULTS : function;
    }

    /** This stage with another failure policy. */
    public StageDefinition withFailure(FailureDefinition other) {
        return new StageDefinition(input, consumer, handler, steps, sinks, batching, other, deduplicate, function);
    }

    /** This stage with other batching. */
    public StageDefinition withBatching(BatchingDefinition other) {
        return new StageDefinition(input, consumer, handler, steps, sinks, other, failure, deduplicate, function);
    }
}
