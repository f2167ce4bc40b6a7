package dev.sluice.local.esm;

import dev.sluice.core.definition.StartingPosition;
import java.time.Duration;

/**
 * The settings of one local event-source mapping, as Lambda's mapping has them; the provisioner
 * reads them from the template's {@code AWS::Lambda::EventSourceMapping}.
 *
 * @param functionName the function it invokes
 * @param streamName the stream it reads
 * @param batchSize most records per invocation
 * @param batchingWindow how long to gather records before invoking
 * @param startingPosition where a shard without checkpoint starts
 * @param startingTimestamp with {@code AT_TIMESTAMP}: the instant to start from
 * @param maxRetryAttempts retries of a failing batch before it is given up (-1: until the records expire)
 * @param maxRecordAge records older than this are given up ({@code null}: never)
 * @param onFailureQueueUrl where a given-up batch is described (shard and sequence range), or {@code null}
 * @param idlePoll pause between reads of a shard that returned nothing (Lambda polls about once a second)
 * @param parallelizationFactor concurrent batches per shard, 1 to 10; records are spread over them
 *     by partition key, so each key's records stay in order
 * @param bisectOnError when the function fails, split the batch in two and deliver each half on
 *     its own (splitting does not count as a retry), so one bad record cannot hold its
 *     neighbours back
 */
public record MappingConfig(
        String functionName,
        String streamName,
        int batchSize,
        Duration batchingWindow,
        StartingPosition startingPosition,
        java.time.Instant startingTimestamp,
        int maxRetryAttempts,
        Duration maxRecordAge,
        String onFailureQueueUrl,
        Duration idlePoll,
        int parallelizationFactor,
        boolean bisectOnError) {

    public MappingConfig {
        if (startingPosition == StartingPosition.AT_TIMESTAMP && startingTimestamp == null) {
            throw new IllegalArgumentException("AT_TIMESTAMP needs a starting timestamp");
        }
        if (parallelizationFactor < 1 || parallelizationFactor > 10) {
            throw new IllegalArgumentException("parallelizationFactor must be 1 to 10, got " + parallelizationFactor);
        }
    }

    /** The same mapping with another batching window (tests, the demo). */
    public MappingConfig withBatchingWindow(Duration window) {
        return new MappingConfig(
                functionName,
                streamName,
                batchSize,
                window,
                startingPosition,
                startingTimestamp,
                maxRetryAttempts,
                maxRecordAge,
                onFailureQueueUrl,
                idlePoll,
                parallelizationFactor,
                bisectOnError);
    }

    /** The same mapping with another parallelization factor (tests). */
    public MappingConfig withParallelizationFactor(int factor) {
        return new MappingConfig(
                functionName,
                streamName,
                batchSize,
                batchingWindow,
                startingPosition,
                startingTimestamp,
                maxRetryAttempts,
                maxRecordAge,
                onFailureQueueUrl,
                idlePoll,
                factor,
                bisectOnError);
    }
}
