package dev.sluice.bench.handler;

import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import dev.sluice.aws.StageRuntime;
import dev.sluice.aws.metrics.EmfMetrics;
import dev.sluice.core.definition.EnvironmentNames;
import dev.sluice.kcl.worker.ShardRegistry;
import dev.sluice.kcl.worker.StageRecordProcessor;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import software.amazon.kinesis.checkpoint.Checkpoint;
import software.amazon.kinesis.checkpoint.ShardRecordProcessorCheckpointer;
import software.amazon.kinesis.leases.ShardInfo;
import software.amazon.kinesis.lifecycle.events.InitializationInput;
import software.amazon.kinesis.lifecycle.events.ProcessRecordsInput;
import software.amazon.kinesis.processor.Checkpointer;
import software.amazon.kinesis.retrieval.KinesisClientRecord;
import software.amazon.kinesis.retrieval.kpl.ExtendedSequenceNumber;

/**
 * A {@code consumer: kcl} stage as the handler benchmark drives it: the real {@link
 * StageRecordProcessor}, wired as {@code KclWorker} wires it ({@link StageRuntime#fromEnvironment}:
 * chain, sinks, de-duplication, dead-letter queue and their SDK v2 clients; the batch listener
 * writing EMF metrics; a {@link ShardRegistry}), fed KCL's {@link ProcessRecordsInput} of the same
 * records the Lambda path gets as Kinesis events, one shard, as KCL's {@code ProcessTask} calls it:
 * the largest permitted checkpoint set to the batch's last record first.
 *
 * <p>The checkpoint goes through KCL's own {@link ShardRecordProcessorCheckpointer} (its range
 * checks and bookkeeping), over a {@link RecordingCheckpointer}: KCL's {@code DynamoDBCheckpointer}
 * writes through a lease coordinator that must hold the shard's lease (taken by the Scheduler's
 * lease taker) and sends a legacy {@code UpdateItem} ({@code Expected} and {@code AttributeUpdates})
 * with the async DynamoDB client, which the stub does not speak; so the checkpoint's lease-table
 * write is counted (one a batch) and modelled, not sent to the stub. Neither is {@code GetRecords}:
 * the records are handed to the processor as the prefetcher would.
 */
final class KclStageTarget {

    static final String SHARD = "shardId-000000000000";

    private final String stream;
    private final StageRuntime runtime;
    private final EmfMetrics metrics;
    private final ShardRegistry registry = new ShardRegistry();
    private final List<List<KinesisClientRecord>> batches;
    private RecordingCheckpointer checkpoints;
    private ShardRecordProcessorCheckpointer checkpointer;
    private StageRecordProcessor processor;
    private long checkpointsBeforeReset;

    KclStageTarget(Map<String, String> env, String inputStream, List<KinesisEvent> events) {
        this.stream = env.get(EnvironmentNames.stream(inputStream));
        this.runtime = StageRuntime.fromEnvironment(env);
        this.metrics = EmfMetrics.fromEnvironment(env, runtime.pipeline().pipeline(), runtime.stageName());
        this.batches = records(events);
        lease();
    }

    /** KCL's records of each event (built once, outside the measurement). */
    static List<List<KinesisClientRecord>> records(List<KinesisEvent> events) {
        List<List<KinesisClientRecord>> out = new ArrayList<>(events.size());
        for (KinesisEvent event : events) {
            List<KinesisClientRecord> records =
                    new ArrayList<>(event.getRecords().size());
            for (KinesisEvent.KinesisEventRecord r : event.getRecords()) {
                ByteBuffer data = r.getKinesis().getData().duplicate();
                byte[] bytes = new byte[data.remaining()];
                data.get(bytes);
                records.add(KinesisClientRecord.builder()
                        .sequenceNumber(r.getKinesis().getSequenceNumber())
                        .partitionKey(r.getKinesis().getPartitionKey())
                        .approximateArrivalTimestamp(
                                r.getKinesis().getApproximateArrivalTimestamp().toInstant())
                        .data(ByteBuffer.wrap(bytes).asReadOnlyBuffer())
                        .build());
            }
            out.add(List.copyOf(records));
        }
        return List.copyOf(out);
    }

    /**
     * A new lease of the shard from {@code TRIM_HORIZON}: a new processor and checkpointer, as KCL
     * creates for a lease it takes (the bench's reset: the stub forgot the stage's items).
     */
    void lease() {
        checkpointsBeforeReset += checkpoints == null ? 0 : checkpoints.writes();
        checkpoints = new RecordingCheckpointer();
        ShardInfo info =
                new ShardInfo(SHARD, UUID.randomUUID().toString(), List.of(), ExtendedSequenceNumber.TRIM_HORIZON);
        checkpointer = new ShardRecordProcessorCheckpointer(info, checkpoints);
        checkpointer.setInitialCheckpointValue(ExtendedSequenceNumber.TRIM_HORIZON);
        StageRecordProcessor.BatchListener listener = (shardId, first, last, result, behind) ->
                metrics.kclBatch(shardId, first, last, result, "bench-worker", behind, registry.processing());
        processor = new StageRecordProcessor(stream, runtime.processor(), registry, listener, () -> false);
        processor.initialize(InitializationInput.builder()
                .shardId(SHARD)
                .extendedSequenceNumber(ExtendedSequenceNumber.TRIM_HORIZON)
                .build());
    }

    /** Hands batch {@code index} to the processor; fails unless it checkpointed at its last record. */
    void process(int index) {
        List<KinesisClientRecord> records = batches.get(index);
        KinesisClientRecord last = records.get(records.size() - 1);
        checkpointer.largestPermittedCheckpointValue(new ExtendedSequenceNumber(last.sequenceNumber()));
        processor.processRecords(ProcessRecordsInput.builder()
                .records(records)
                .checkpointer(checkpointer)
                .millisBehindLatest(0L)
                .isAtShardEnd(false)
                .build());
        ExtendedSequenceNumber at = checkpoints.last();
        if (at == null || !last.sequenceNumber().equals(at.sequenceNumber())) {
            throw new IllegalStateException("the KCL processor did not checkpoint at " + last.sequenceNumber()
                    + " (checkpoint at " + at + "): the stub answered something the sinks did not expect");
        }
    }

    /** Checkpoints written since this target was built, every lease included. */
    long checkpointWrites() {
        return checkpointsBeforeReset + checkpoints.writes();
    }

    ExtendedSequenceNumber lastCheckpoint() {
        return checkpoints.last();
    }

    ShardRegistry registry() {
        return registry;
    }

    /**
     * KCL's {@link Checkpointer} SPI, recording what KCL's {@code DynamoDBCheckpointer} would write
     * to the lease table (one conditional {@code UpdateItem} of the lease each call).
     */
    static final class RecordingCheckpointer implements Checkpointer {
        private ExtendedSequenceNumber last;
        private long writes;
        private String operation;

        @Override
        public synchronized void setCheckpoint(String leaseKey, ExtendedSequenceNumber value, String token) {
            last = value;
            writes++;
        }

        @Override
        public synchronized ExtendedSequenceNumber getCheckpoint(String leaseKey) {
            return last;
        }

        @Override
        public synchronized Checkpoint getCheckpointObject(String leaseKey) {
            return new Checkpoint(last, null, null);
        }

        @Override
        public void prepareCheckpoint(String leaseKey, ExtendedSequenceNumber value, String token) {
            throw new UnsupportedOperationException("the processor does not prepare checkpoints");
        }

        @Override
        public void prepareCheckpoint(String leaseKey, ExtendedSequenceNumber value, String token, byte[] state) {
            throw new UnsupportedOperationException("the processor does not prepare checkpoints");
        }

        @Override
        public void operation(String operation) {
            this.operation = operation;
        }

        @Override
        public String operation() {
            return operation;
        }

        synchronized ExtendedSequenceNumber last() {
            return last;
        }

        synchronized long writes() {
            return writes;
        }
    }
}
