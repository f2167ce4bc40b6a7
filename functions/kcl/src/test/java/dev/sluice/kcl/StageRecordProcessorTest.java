package dev.sluice.kcl;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.aws.StageRuntime;
import dev.sluice.core.event.DeadLetter;
import dev.sluice.core.event.ProcessedEvent;
import dev.sluice.core.stage.AggregateSink;
import dev.sluice.core.stage.BatchProcessor;
import dev.sluice.core.stage.EventSink;
import dev.sluice.core.stage.SinkException;
import dev.sluice.core.stage.SinkReport;
import dev.sluice.core.stage.StageChain;
import dev.sluice.core.testing.Events;
import dev.sluice.core.testing.MemoryAggregates;
import dev.sluice.core.testing.Stages;
import dev.sluice.kcl.worker.ShardRegistry;
import dev.sluice.kcl.worker.StageRecordProcessor;
import java.io.IOException;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import software.amazon.kinesis.exceptions.ShutdownException;
import software.amazon.kinesis.exceptions.ThrottlingException;
import software.amazon.kinesis.lifecycle.events.InitializationInput;
import software.amazon.kinesis.lifecycle.events.LeaseLostInput;
import software.amazon.kinesis.lifecycle.events.ProcessRecordsInput;
import software.amazon.kinesis.lifecycle.events.ShardEndedInput;
import software.amazon.kinesis.lifecycle.events.ShutdownRequestedInput;
import software.amazon.kinesis.processor.RecordProcessorCheckpointer;
import software.amazon.kinesis.retrieval.KinesisClientRecord;
import software.amazon.kinesis.retrieval.kpl.ExtendedSequenceNumber;

/**
 * The record processor with the payments stage's real chain and in-memory sinks: the checkpoint
 * follows durability, never precedes it.
 */
class StageRecordProcessorTest {

    private static final String SHARD = "shardId-000000000001";

    /** Everything that happened, in order: sink writes and checkpoints. */
    private final List<String> journal = new ArrayList<>();
    /** What the processor reported per processed part (what the worker's EMF lines carry). */
    private final List<String> reported = new ArrayList<>();

    private final AtomicInteger failuresLeft = new AtomicInteger();
    private final List<DeadLetter> deadLetters = new ArrayList<>();
    private final ShardRegistry registry = new ShardRegistry();
    private boolean stopping;
    private boolean leaseGone;
    /** Checkpoints the lease table throttles before one goes through. */
    private final AtomicInteger throttledCheckpoints = new AtomicInteger();

    private final EventSink sink = new EventSink() {
        @Override
        public String name() {
            return "memory";
        }

        @Override
        public SinkReport write(List<ProcessedEvent> events) throws SinkException {
            if (failuresLeft.getAndDecrement() > 0) {
                journal.add("write-failed");
                throw new SinkException("ProvisionedThroughputExceededException", true, null);
            }
            journal.add("write " + events.size());
            return new SinkReport(events.size(), 0);
        }
    };

    @Test
    void checkpointsTheBatchsLastRecordOnlyAfterItsSinksAreDurable() throws Exception {
        StageRecordProcessor processor = processor();

        processor.processRecords(input(record("100"), record("101"), malformed("102")));

        assertThat(deadLetters).as("dead letters %s", deadLetters).hasSize(1);
        assertThat(journal).containsExactly("write 2", "checkpoint 102.0");
        assertThat(registry.snapshot().get(SHARD).checkpoint()).isEqualTo("102");
        assertThat(registry.snapshot().get(SHARD).records()).isEqualTo(3);
    }

    @Test
    void aFailingSinkIsRetriedAndTheCheckpointWaitsUntilItIsDurable() throws Exception {
        failuresLeft.set(2);
        StageRecordProcessor processor = processor();

        processor.processRecords(input(record("100"), record("101")));

        assertThat(journal).containsExactly("write-failed", "write-failed", "write 2", "checkpoint 101.0");
    }

    @Test
    void eachProcessedPartIsReportedWithTheSequenceNumbersItCovered() throws Exception {
        // the load harness matches a KCL stage's records to these first/last positions in its EMF lines
        failuresLeft.set(1);
        StageRecordProcessor processor = processor();

        processor.processRecords(input(record("100"), record("101")));
        processor.processRecords(input(record("102"), record("103"), record("104")));

        assertThat(reported)
                .containsExactly("batch 100..101 incomplete", "batch 100..101 complete", "batch 102..104 complete");
    }

    @Test
    void aStoppingWorkerLeavesAnUndurableBatchForTheNextOwnerAndCheckpointsNothingPastIt() throws Exception {
        failuresLeft.set(Integer.MAX_VALUE);
        stopping = true;
        StageRecordProcessor processor = processor();

        processor.processRecords(input(record("100"), record("101")));
        processor.processRecords(input(record("102")));
        processor.shutdownRequested(
                ShutdownRequestedInput.builder().checkpointer(checkpointer()).build());

        assertThat(journal).containsExactly("write-failed");
    }

    @Test
    void aLostLeaseStopsRetryingWithoutACheckpoint() throws Exception {
        leaseGone = true;
        StageRecordProcessor processor = processor();

        processor.processRecords(input(record("100")));
        processor.processRecords(input(record("101")));

        assertThat(journal).containsExactly("write 1", "checkpoint refused 100.0");
        processor.leaseLost(LeaseLostInput.builder().build());
        assertThat(registry.snapshot().get(SHARD).state()).isEqualTo("LEASE_LOST");
    }

    @Test
    void aCheckpointTheLeaseTableKeepsThrottlingIsDeferredAndTheShardKeepsFlowing() throws Exception {
        // five attempts of the first checkpoint are throttled: its records are durable, so the
        // processor goes on, and the next batch's checkpoint covers them
        throttledCheckpoints.set(5);
        StageRecordProcessor processor = processor();

        processor.processRecords(input(record("100")));
        processor.processRecords(input(record("101")));

        assertThat(journal)
                .containsExactly(
                        "write 1",
                        "checkpoint throttled 100.0",
                        "checkpoint throttled 100.0",
                        "checkpoint throttled 100.0",
                        "checkpoint throttled 100.0",
                        "checkpoint throttled 100.0",
                        "write 1",
                        "checkpoint 101.0");
        assertThat(registry.snapshot().get(SHARD).checkpoint()).isEqualTo("101");
    }

    @Test
    void shardEndIsCheckpointedSoThatTheChildrenCanStart() throws Exception {
        StageRecordProcessor processor = processor();
        processor.processRecords(input(record("100")));

        processor.shardEnded(
                ShardEndedInput.builder().checkpointer(checkpointer()).build());

        assertThat(journal).containsExactly("write 1", "checkpoint 100.0", "checkpoint last");
        assertThat(registry.snapshot().get(SHARD).checkpoint()).isEqualTo("SHARD_END");
        assertThat(registry.snapshot().get(SHARD).state()).isEqualTo("SHARD_ENDED");
    }

    @Test
    void aGracefulShutdownWritesTheFinalCheckpoint() throws Exception {
        StageRecordProcessor processor = processor();
        processor.processRecords(input(record("100")));

        processor.shutdownRequested(
                ShutdownRequestedInput.builder().checkpointer(checkpointer()).build());

        assertThat(journal).containsExactly("write 1", "checkpoint 100.0", "checkpoint last");
        assertThat(registry.snapshot().get(SHARD).state()).isEqualTo("SHUT_DOWN");
    }

    private StageRecordProcessor processor() throws IOException {
        StageChain chain = Stages.compile(
                "payments",
                "validate",
                StageRuntime.mapper(),
                // a minute after the fixture's event time: its hourly window is open whatever the
                // day the test runs (a system clock made the fixture late from 2026-12-01T18:00Z on)
                Clock.fixed(Instant.parse("2026-11-30T17:43:07.125Z"), ZoneOffset.UTC));
        AggregateSink aggregates = new MemoryAggregates();
        BatchProcessor batches = new BatchProcessor(chain, Map.of(sink.name(), sink), aggregates, deadLetters::addAll);
        StageRecordProcessor processor = new StageRecordProcessor(
                "payments-raw",
                batches,
                registry,
                (shard, first, last, result, behind) -> reported.add(
                        "batch " + first + ".." + last + (result.complete() ? " complete" : " incomplete")),
                () -> stopping);
        processor.initialize(InitializationInput.builder()
                .shardId(SHARD)
                .extendedSequenceNumber(ExtendedSequenceNumber.TRIM_HORIZON)
                .build());
        return processor;
    }

    private ProcessRecordsInput input(KinesisClientRecord... records) {
        return ProcessRecordsInput.builder()
                .records(Arrays.asList(records))
                .checkpointer(checkpointer())
                .millisBehindLatest(0L)
                .build();
    }

    /** A checkpointer that writes what it is asked into the journal (or refuses: lease lost). */
    private RecordProcessorCheckpointer checkpointer() {
        return (RecordProcessorCheckpointer) Proxy.newProxyInstance(
                getClass().getClassLoader(),
                new Class<?>[] {RecordProcessorCheckpointer.class},
                (proxy, method, args) -> {
                    if (!method.getName().equals("checkpoint")) {
                        throw new UnsupportedOperationException(method.getName());
                    }
                    String at =
                            args == null || args.length == 0 ? "last" : args[0] + "." + (args.length > 1 ? args[1] : 0);
                    if (leaseGone) {
                        journal.add("checkpoint refused " + at);
                        throw new ShutdownException("lease lost");
                    }
                    if (throttledCheckpoints.getAndDecrement() > 0) {
                        journal.add("checkpoint throttled " + at);
                        throw new ThrottlingException("lease table throttled");
                    }
                    journal.add("checkpoint " + at);
                    return null;
                });
    }

    /** The valid payment with its own eventId, as KCL hands it over at {@code sequence}. */
    private static KinesisClientRecord record(String sequence) {
        return kinesisRecord(
                sequence, Events.payment().eventId("pay-test-" + sequence).bytes());
    }

    private static KinesisClientRecord malformed(String sequence) {
        return kinesisRecord(sequence, "{not json".getBytes(StandardCharsets.UTF_8));
    }

    private static KinesisClientRecord kinesisRecord(String sequence, byte[] data) {
        return KinesisClientRecord.builder()
                .sequenceNumber(sequence)
                .partitionKey("k")
                .data(ByteBuffer.wrap(data))
                .build();
    }
}
