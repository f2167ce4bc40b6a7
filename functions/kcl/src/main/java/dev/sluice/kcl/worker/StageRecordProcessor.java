package dev.sluice.kcl.worker;

import dev.sluice.core.event.InboundRecord;
import dev.sluice.core.event.Position;
import dev.sluice.core.stage.BatchProcessor;
import dev.sluice.core.stage.BatchResult;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import software.amazon.kinesis.exceptions.InvalidStateException;
import software.amazon.kinesis.exceptions.KinesisClientLibDependencyException;
import software.amazon.kinesis.exceptions.ShutdownException;
import software.amazon.kinesis.exceptions.ThrottlingException;
import software.amazon.kinesis.lifecycle.events.InitializationInput;
import software.amazon.kinesis.lifecycle.events.LeaseLostInput;
import software.amazon.kinesis.lifecycle.events.ProcessRecordsInput;
import software.amazon.kinesis.lifecycle.events.ShardEndedInput;
import software.amazon.kinesis.lifecycle.events.ShutdownRequestedInput;
import software.amazon.kinesis.processor.RecordProcessorCheckpointer;
import software.amazon.kinesis.processor.ShardRecordProcessor;
import software.amazon.kinesis.retrieval.KinesisClientRecord;

/**
 * The record processor of one shard: each batch KCL delivers goes through the stage's {@link
 * BatchProcessor} (the same chain and idempotent sinks as the Lambda path), and the checkpoint
 * advances only past records whose sinks and dead letters are durable. When a sink fails, the
 * durable prefix is checkpointed and the rest is processed again, with backoff, until it is done —
 * or until the lease is lost or the worker stops, and then the next owner delivers it again and the
 * sinks absorb what was already written. A shard's end is checkpointed ({@code shardEnded}) so its
 * children can start; a lost lease is never checkpointed.
 */
public final class StageRecordProcessor implements ShardRecordProcessor {

    private static final Logger LOG = LoggerFactory.getLogger(StageRecordProcessor.class);
    private static final Duration FIRST_BACKOFF = Duration.ofMillis(100);
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(5);
    private static final int CHECKPOINT_ATTEMPTS = 5;

    /** What a processed batch reports (metrics). */
    public interface BatchListener {
        /**
         * @param firstSequenceNumber the first record of the part of the batch just processed
         * @param lastSequenceNumber its last record (records before {@code result.failedFrom()} are
         *     durable when the part is incomplete)
         */
        void batch(
                String shardId,
                String firstSequenceNumber,
                String lastSequenceNumber,
                BatchResult result,
                long millisBehindLatest);
    }

    private final String stream;
    private final BatchProcessor processor;
    private final ShardRegistry registry;
    private final BatchListener listener;
    private final BooleanSupplier stopping;
    private String shardId = "unknown";
    /** Set once records were delivered but not made durable: nothing may be checkpointed past them. */
    private boolean undurable;

    /**
     * @param stream the stream's name, carried in each record
     * @param stopping true once the worker is shutting down: a failing batch is then left to the next
     *     owner instead of being retried here
     */
    public StageRecordProcessor(
            String stream,
            BatchProcessor processor,
            ShardRegistry registry,
            BatchListener listener,
            BooleanSupplier stopping) {
        this.stream = stream;
        this.processor = processor;
        this.registry = registry;
        this.listener = listener;
        this.stopping = stopping;
    }

    @Override
    public void initialize(InitializationInput input) {
        shardId = input.shardId();
        String checkpoint = ShardRegistry.format(input.extendedSequenceNumber());
        registry.started(shardId, checkpoint);
        LOG.info("shard {} initialised at {}", shardId, checkpoint);
    }

    @Override
    public void processRecords(ProcessRecordsInput input) {
        List<KinesisClientRecord> records = input.records();
        long behind = input.millisBehindLatest() == null ? -1 : input.millisBehindLatest();
        if (records.isEmpty()) {
            registry.processed(shardId, 0, behind);
            return;
        }
        if (undurable) {
            // an earlier batch is not durable: the next owner of the lease delivers from there
            return;
        }
        MDC.put("shardId", shardId);
        try {
            process(records, input.checkpointer(), behind);
        } finally {
            MDC.remove("shardId");
            MDC.remove("sequenceNumber");
        }
    }

    private void process(List<KinesisClientRecord> records, RecordProcessorCheckpointer checkpointer, long behind) {
        List<InboundRecord> inbound = KclRecords.toInbound(stream, shardId, records);
        int from = 0;
        Duration backoff = FIRST_BACKOFF;
        while (true) {
            List<InboundRecord> part = inbound.subList(from, inbound.size());
            MDC.put("sequenceNumber", part.get(0).position().sequenceNumber());
            BatchResult result = processor.process(part);
            registry.processed(shardId, result.complete() ? part.size() : 0, behind);
            listener.batch(
                    shardId,
                    part.get(0).position().sequenceNumber(),
                    part.get(part.size() - 1).position().sequenceNumber(),
                    result,
                    behind);
            LOG.info(
                    "shard={} records={} accepted={} deadLettered={} complete={}",
                    shardId,
                    result.received(),
                    result.accepted(),
                    result.deadLettered(),
                    result.complete());
            if (result.complete()) {
                if (!checkpoint(checkpointer, records.get(records.size() - 1))) {
                    // durable but not checkpointed: the next owner delivers it again and the sinks absorb it
                    undurable = true;
                }
                return;
            }
            Position failed = result.failedFrom().orElseThrow();
            int index = indexOf(inbound, failed, from);
            if (index > from) {
                // the records before the failed one are durable: never deliver them again
                registry.processed(shardId, index - from, behind);
                if (!checkpoint(checkpointer, records.get(index - 1))) {
                    undurable = true;
                    return;
                }
                from = index;
            }
            if (stopping.getAsBoolean()) {
                undurable = true;
                LOG.warn(
                        "shard {}: worker stopping with records from {} not durable; the next owner delivers them again",
                        shardId,
                        failed);
                return;
            }
            LOG.warn(
                    "shard {}: batch not durable from {} ({}); processing it again in {} ms",
                    shardId,
                    failed,
                    result.failure().map(Throwable::getMessage).orElse("?"),
                    backoff.toMillis());
            LockSupport.parkNanos(backoff.toNanos());
            backoff = backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff.multipliedBy(2);
        }
    }

    private static int indexOf(List<InboundRecord> inbound, Position failed, int from) {
        for (int i = from; i < inbound.size(); i++) {
            if (inbound.get(i).position().equals(failed)) {
                return i;
            }
        }
        return from; // not in this batch: process all of what is left again
    }

    /**
     * Checkpoints at a record; retries throttling and dependency failures a few times, then leaves
     * the checkpoint to the next batch.
     *
     * @return false if the lease is gone (this processor must stop)
     */
    private boolean checkpoint(RecordProcessorCheckpointer checkpointer, KinesisClientRecord last) {
        for (int attempt = 1; ; attempt++) {
            try {
                checkpointer.checkpoint(last.sequenceNumber(), last.aggregated() ? last.subSequenceNumber() : 0);
                registry.checkpointed(
                        shardId, last.sequenceNumber() + (last.aggregated() ? "." + last.subSequenceNumber() : ""));
                return true;
            } catch (ShutdownException e) {
                LOG.info("shard {}: lease lost before checkpoint at {}", shardId, last.sequenceNumber());
                return false;
            } catch (InvalidStateException e) {
                LOG.error("shard {}: cannot checkpoint at {}", shardId, last.sequenceNumber(), e);
                return false;
            } catch (ThrottlingException | KinesisClientLibDependencyException e) {
                if (attempt >= CHECKPOINT_ATTEMPTS) {
                    // the records are durable: keep processing (never block the shard on the lease
                    // table); the next batch's checkpoint covers these, and should this worker die
                    // first, its successor delivers them again and the sinks absorb them
                    LOG.error(
                            "shard {}: checkpoint at {} failed {} times; deferred to the next batch",
                            shardId,
                            last.sequenceNumber(),
                            attempt,
                            e);
                    return true;
                }
                LockSupport.parkNanos(FIRST_BACKOFF.multipliedBy(1L << attempt).toNanos());
            }
        }
    }

    @Override
    public void leaseLost(LeaseLostInput input) {
        // another worker owns the shard now; it cannot be checkpointed from here
        registry.ended(shardId, "LEASE_LOST");
        LOG.info("shard {}: lease lost", shardId);
    }

    @Override
    public void shardEnded(ShardEndedInput input) {
        // required: the checkpoint at SHARD_END lets the children start
        if (undurable) {
            LOG.warn("shard {}: ended with records not durable; left for the next owner", shardId);
            return;
        }
        try {
            input.checkpointer().checkpoint();
            registry.checkpointed(shardId, "SHARD_END");
            registry.ended(shardId, "SHARD_ENDED");
            LOG.info("shard {}: ended and checkpointed", shardId);
        } catch (ShutdownException | InvalidStateException e) {
            LOG.warn("shard {}: cannot checkpoint its end: {}", shardId, e.getMessage());
        }
    }

    @Override
    public void shutdownRequested(ShutdownRequestedInput input) {
        // graceful shutdown or lease hand-off: every delivered batch is durable and checkpointed;
        // this final checkpoint records the same position again and releases the shard cleanly
        if (undurable) {
            registry.ended(shardId, "SHUT_DOWN");
            LOG.warn("shard {}: handed off with records not durable; the next owner delivers them", shardId);
            return;
        }
        try {
            input.checkpointer().checkpoint();
            registry.ended(shardId, "SHUT_DOWN");
            LOG.info("shard {}: final checkpoint before hand-off", shardId);
        } catch (ShutdownException | InvalidStateException e) {
            LOG.warn("shard {}: no final checkpoint: {}", shardId, e.getMessage());
        }
    }
}
