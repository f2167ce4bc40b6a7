package dev.sluice.local.esm;

import dev.sluice.core.definition.StartingPosition;
import dev.sluice.emulators.LocalAws;
import dev.sluice.emulators.ResourceNames;
import dev.sluice.local.provision.Provisioner;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/** Local event-source mappings that feed {@link RecordingHandler}, for the runner's ITs. */
final class RecorderMappings {

    private RecorderMappings() {}

    /**
     * A mapping's settings: 250 ms idle polls (4 GetRecords a second, under a shard's 5: the local
     * stack throttles as Kinesis does, and a throttled read pauses the shard), three retries, no
     * record age limit.
     */
    static MappingConfig config(
            String stream,
            int batchSize,
            Duration batchingWindow,
            StartingPosition startingPosition,
            Instant startingTimestamp,
            String onFailureQueue,
            int parallelizationFactor,
            boolean bisectOnError) {
        return new MappingConfig(
                "recorder",
                stream,
                batchSize,
                batchingWindow,
                startingPosition,
                startingTimestamp,
                3,
                null,
                onFailureQueue,
                Duration.ofMillis(250),
                parallelizationFactor,
                bisectOnError);
    }

    /** A mapping (not started) with a fresh checkpoint table, invoking {@link RecordingHandler}. */
    static LocalEventSourceMapping create(LocalAws aws, ResourceNames names, MappingConfig config) {
        String checkpoints = new Provisioner(aws).createTable(names.name("checkpoints"), "lease");
        LocalFunction function = LocalFunction.load("recorder", RecordingHandler.class.getName(), Map.of());
        return new LocalEventSourceMapping(
                config,
                function,
                aws.kinesis(),
                aws.sqs(),
                new CheckpointStore(aws.dynamoDb(), checkpoints),
                aws.region().id(),
                aws.accountId());
    }
}
