package dev.sluice.local.esm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.ExpiredIteratorException;
import software.amazon.awssdk.services.kinesis.model.GetRecordsResponse;
import software.amazon.awssdk.services.kinesis.model.ProvisionedThroughputExceededException;
import software.amazon.awssdk.services.kinesis.model.Record;
import software.amazon.awssdk.services.kinesis.model.ShardIteratorType;

/**
 * Reads one shard for a local event-source mapping: gathers batches (batch size, batching window),
 * invokes the function, honours {@code batchItemFailures} (everything before the lowest failed
 * record is acknowledged, the rest retried), gives a batch up after the retry limit or record age
 * (describing it on the on-failure queue, as Lambda does), and checkpoints after each
 * acknowledgement. A child shard is read only once its parent is finished.
 */
final class ShardPoller implements Runnable {

    private static final Logger LOG = LoggerFactory.getLogger(ShardPoller.class);

    private final LocalEventSourceMapping mapping;
    private final MappingConfig config;
    private final String shardId;
    /** The shards to finish before this one is read: a split's parent, or both parents of a merge. */
    private final java.util.List<String> parentShardIds;

    private final KinesisClient kinesis;
    private final CheckpointStore checkpoints;
    private final CountDownLatch stop;
    /** Stands for "no iterator yet, Kinesis did not answer": distinct from {@code null}, the shard's end. */
    private static final String RETRY_ITERATOR = new String("retry");

    private final ObjectMapper mapper = new ObjectMapper();
    private final String lease;
    private String lastAcknowledged;

    ShardPoller(
            LocalEventSourceMapping mapping,
            String shardId,
            java.util.List<String> parentShardIds,
            CountDownLatch stop) {
        this.mapping = mapping;
        this.config = mapping.config();
        this.shardId = shardId;
        this.parentShardIds = java.util.List.copyOf(parentShardIds);
        this.kinesis = mapping.kinesis();
        this.checkpoints = mapping.checkpoints();
        this.stop = stop;
        this.lease = mapping.leaseKey(shardId);
    }

    @Override
    public void run() {
        MDC.put("shardId", shardId);
        try {
            poll();
        } catch (RuntimeException e) {
            if (!stopped()) {
                LOG.error("shard {} of {} stopped: {}", shardId, config.streamName(), e.toString(), e);
                mapping.pollerFailed(shardId, e);
            }
        } finally {
            MDC.remove("shardId");
        }
    }

    private void poll() {
        // like Lambda, a child shard is read once every parent is finished: after a merge, its adjacent
        // parent too, or a key's records of the slower parent would come after the child's
        while (!parentShardIds.stream().allMatch(mapping::shardFinished)) {
            if (pause(config.idlePoll())) {
                return;
            }
        }
        Optional<CheckpointStore.Checkpoint> checkpoint = checkpoints.get(lease);
        if (checkpoint.map(CheckpointStore.Checkpoint::shardEnded).orElse(false)) {
            return;
        }
        lastAcknowledged =
                checkpoint.map(CheckpointStore.Checkpoint::sequenceNumber).orElse(null);
        String iterator;
        try {
            iterator = iterator();
        } catch (SdkException e) {
            // Kinesis away (restarting) as the poller starts: wait for it like a running poller does
            LOG.warn("starting shard {} failed, reading again shortly: {}", shardId, e.toString());
            iterator = RETRY_ITERATOR;
        }
        List<Record> buffer = new ArrayList<>();
        Instant windowStart = null;
        while (!stopped()) {
            boolean readNothing = true;
            if (iterator != null && buffer.size() < config.batchSize()) {
                GetRecordsResponse response;
                if (iterator == RETRY_ITERATOR) {
                    if (pause(Duration.ofMillis(500))) {
                        return;
                    }
                    iterator = reacquire(buffer);
                    continue;
                }
                try {
                    String current = iterator;
                    response = kinesis.getRecords(
                            b -> b.shardIterator(current).limit(Math.min(10_000, config.batchSize() - buffer.size())));
                } catch (ExpiredIteratorException e) {
                    iterator = iteratorAfter(buffer.isEmpty() ? lastAcknowledged : last(buffer));
                    continue;
                } catch (ProvisionedThroughputExceededException e) {
                    if (pause(Duration.ofMillis(500))) {
                        return;
                    }
                    continue;
                } catch (SdkException e) {
                    // Kinesis unreachable or restarted (its iterators then mean nothing): like Lambda,
                    // keep the shard and read on from the last record held, once Kinesis answers
                    LOG.warn("reading shard {} failed, reading again shortly: {}", shardId, e.toString());
                    if (pause(Duration.ofMillis(500))) {
                        return;
                    }
                    iterator = reacquire(buffer);
                    continue;
                }
                iterator = response.nextShardIterator();
                if (!response.records().isEmpty()) {
                    readNothing = false;
                    if (buffer.isEmpty()) {
                        windowStart = Instant.now();
                    }
                    buffer.addAll(response.records());
                }
            }
            boolean full = buffer.size() >= config.batchSize();
            boolean windowClosed =
                    windowStart != null && !Instant.now().isBefore(windowStart.plus(config.batchingWindow()));
            if (!buffer.isEmpty() && (full || windowClosed || iterator == null)) {
                // like Lambda, a batch ends where its payload would pass 6 MB; the rest is the next one
                int fitting = mapping.eventJson().fitting(shardId, buffer);
                if (!deliver(List.copyOf(buffer.subList(0, fitting)))) {
                    return;
                }
                buffer.subList(0, fitting).clear();
                if (buffer.isEmpty()) {
                    windowStart = null;
                }
                continue;
            }
            if (iterator == null) {
                checkpoints.put(lease, lastAcknowledged, true);
                mapping.shardEnded(shardId);
                LOG.info("shard {} of {} is finished", shardId, config.streamName());
                return;
            }
            if (readNothing) {
                Duration wait = windowStart == null
                        ? config.idlePoll()
                        : min(
                                config.idlePoll(),
                                Duration.between(Instant.now(), windowStart.plus(config.batchingWindow())));
                if (pause(wait)) {
                    return;
                }
            }
        }
    }

    /**
     * Invokes the function until the batch is acknowledged or given up.
     *
     * @return {@code false} if the mapping was stopped first (nothing more is checkpointed)
     */
    private boolean deliver(List<Record> batch) {
        List<Record> pending = batch;
        for (int attempt = 0; ; attempt++) {
            if (stopped()) {
                return false;
            }
            Outcome outcome = config.parallelizationFactor() == 1
                    ? invoke(pending)
                    : new Outcome(invokeConcurrently(pending), false);
            String failedFrom = outcome.failedFrom();
            if (failedFrom == null) {
                acknowledge(pending, pending.size());
                return true;
            }
            if (outcome.functionError() && config.bisectOnError() && pending.size() > 1) {
                // like Lambda: deliver each half on its own; splitting does not count as a retry
                int half = pending.size() / 2;
                return deliver(pending.subList(0, half)) && deliver(pending.subList(half, pending.size()));
            }
            int index = indexOf(pending, failedFrom);
            if (index > 0) {
                acknowledge(pending, index);
                pending = pending.subList(index, pending.size());
            }
            mapping.retried();
            boolean retriesExhausted = config.maxRetryAttempts() >= 0 && attempt + 1 > config.maxRetryAttempts();
            boolean expired = config.maxRecordAge() != null
                    && pending.get(0).approximateArrivalTimestamp() != null
                    && pending.get(0)
                            .approximateArrivalTimestamp()
                            .plus(config.maxRecordAge())
                            .isBefore(Instant.now());
            if (retriesExhausted || expired) {
                giveUp(pending, attempt + 1, retriesExhausted ? "RetryAttemptsExhausted" : "RecordAgeExceeded");
                acknowledge(pending, pending.size());
                return true;
            }
            long backoff = Math.min(2_000, 100L << Math.min(attempt, 5));
            if (pause(Duration.ofMillis(backoff))) {
                return false;
            }
        }
    }

    /**
     * Lambda's parallelization factor: the batch is spread over concurrent invocations by partition
     * key (each key's records keep their order in one of them), and the shard's checkpoint can only
     * advance to just before the lowest record any of them failed on; everything from there is
     * delivered again, and the idempotent sinks absorb what had succeeded.
     *
     * @return the sequence number to retry from, or {@code null} if every invocation succeeded
     */
    private String invokeConcurrently(List<Record> batch) {
        int lanes = config.parallelizationFactor();
        List<List<Record>> split = new ArrayList<>(lanes);
        for (int i = 0; i < lanes; i++) {
            split.add(new ArrayList<>());
        }
        for (Record record : batch) {
            split.get(Math.floorMod(record.partitionKey().hashCode(), lanes)).add(record);
        }
        List<java.util.concurrent.CompletableFuture<String>> results = new ArrayList<>();
        for (List<Record> lane : split) {
            if (!lane.isEmpty()) {
                results.add(java.util.concurrent.CompletableFuture.supplyAsync(
                        () -> invoke(lane).failedFrom(), mapping.lanes()));
            }
        }
        int lowest = -1;
        for (java.util.concurrent.CompletableFuture<String> result : results) {
            String failed = result.join();
            if (failed != null) {
                int index = indexOf(batch, failed);
                lowest = lowest < 0 ? index : Math.min(lowest, index);
            }
        }
        return lowest < 0 ? null : batch.get(lowest).sequenceNumber();
    }

    /**
     * What an invocation asks for.
     *
     * @param failedFrom the sequence number to deliver again from, or {@code null} if all succeeded
     * @param functionError whether the function failed as a whole (threw), rather than reporting
     *     item failures
     */
    record Outcome(String failedFrom, boolean functionError) {}

    private Outcome invoke(List<Record> batch) {
        mapping.invoked(batch.size());
        String response;
        try {
            response = mapping.function().invoke(mapping.eventJson().build(shardId, batch));
        } catch (LocalFunction.FunctionError e) {
            return new Outcome(batch.get(0).sequenceNumber(), true);
        }
        try {
            JsonNode failures = mapper.readTree(response).path("batchItemFailures");
            String lowest = null;
            for (JsonNode failure : failures) {
                String id = failure.path("itemIdentifier").asText(null);
                if (id == null || id.isEmpty() || indexOf(batch, id) < 0) {
                    // Lambda treats an unknown or empty identifier as a failure of the whole batch
                    return new Outcome(batch.get(0).sequenceNumber(), false);
                }
                if (lowest == null || indexOf(batch, id) < indexOf(batch, lowest)) {
                    lowest = id;
                }
            }
            return new Outcome(lowest, false);
        } catch (IOException e) {
            return new Outcome(batch.get(0).sequenceNumber(), false);
        }
    }

    private void acknowledge(List<Record> batch, int count) {
        if (count == 0 || mapping.dieBeforeCheckpoint()) {
            return; // a killed runner checkpoints nothing more
        }
        lastAcknowledged = batch.get(count - 1).sequenceNumber();
        checkpoints.put(lease, lastAcknowledged, false);
        mapping.acknowledged(count);
    }

    private void giveUp(List<Record> batch, int invokeCount, String condition) {
        LOG.warn(
                "giving up {} records of shard {} ({} after {} attempts)",
                batch.size(),
                shardId,
                condition,
                invokeCount);
        mapping.discarded(batch.size());
        String queue = config.onFailureQueueUrl();
        if (queue == null) {
            return;
        }
        ObjectNode message = mapper.createObjectNode();
        ObjectNode request = message.putObject("requestContext");
        request.put("functionArn", mapping.functionArn());
        request.put("condition", condition);
        request.put("approximateInvokeCount", invokeCount);
        message.putObject("responseContext").put("statusCode", 200).put("executedVersion", "$LATEST");
        message.put("version", "1.0");
        message.put("timestamp", Instant.now().toString());
        ObjectNode info = message.putObject("KinesisBatchInfo");
        info.put("shardId", shardId);
        info.put("startSequenceNumber", batch.get(0).sequenceNumber());
        info.put("endSequenceNumber", last(batch));
        if (batch.get(0).approximateArrivalTimestamp() != null) {
            info.put(
                    "approximateArrivalOfFirstRecord",
                    batch.get(0).approximateArrivalTimestamp().toString());
            info.put(
                    "approximateArrivalOfLastRecord",
                    batch.get(batch.size() - 1).approximateArrivalTimestamp().toString());
        }
        info.put("batchSize", batch.size());
        info.put("streamArn", mapping.streamArn());
        mapping.sqs().sendMessage(b -> b.queueUrl(queue).messageBody(message.toString()));
    }

    private String iterator() {
        if (lastAcknowledged != null) {
            return iteratorAfter(lastAcknowledged);
        }
        return switch (config.startingPosition()) {
            case LATEST ->
                kinesis.getShardIterator(b -> b.streamName(config.streamName())
                                .shardId(shardId)
                                .shardIteratorType(ShardIteratorType.LATEST))
                        .shardIterator();
            case AT_TIMESTAMP ->
                kinesis.getShardIterator(b -> b.streamName(config.streamName())
                                .shardId(shardId)
                                .shardIteratorType(ShardIteratorType.AT_TIMESTAMP)
                                .timestamp(config.startingTimestamp()))
                        .shardIterator();
            case TRIM_HORIZON -> iteratorAfter(null);
        };
    }

    /** A fresh iterator after the last record buffered or acknowledged; {@code null} while Kinesis is away. */
    private String reacquire(List<Record> buffer) {
        try {
            return buffer.isEmpty() && lastAcknowledged == null
                    ? iterator()
                    : iteratorAfter(buffer.isEmpty() ? lastAcknowledged : last(buffer));
        } catch (SdkException e) {
            return RETRY_ITERATOR;
        }
    }

    private String iteratorAfter(String sequenceNumber) {
        if (sequenceNumber == null) {
            return kinesis.getShardIterator(b -> b.streamName(config.streamName())
                            .shardId(shardId)
                            .shardIteratorType(ShardIteratorType.TRIM_HORIZON))
                    .shardIterator();
        }
        return kinesis.getShardIterator(b -> b.streamName(config.streamName())
                        .shardId(shardId)
                        .shardIteratorType(ShardIteratorType.AFTER_SEQUENCE_NUMBER)
                        .startingSequenceNumber(sequenceNumber))
                .shardIterator();
    }

    private static int indexOf(List<Record> batch, String sequenceNumber) {
        for (int i = 0; i < batch.size(); i++) {
            if (batch.get(i).sequenceNumber().equals(sequenceNumber)) {
                return i;
            }
        }
        return -1;
    }

    private static String last(List<Record> batch) {
        return batch.get(batch.size() - 1).sequenceNumber();
    }

    private static Duration min(Duration a, Duration b) {
        Duration smaller = a.compareTo(b) <= 0 ? a : b;
        return smaller.isNegative() ? Duration.ZERO : smaller;
    }

    private boolean stopped() {
        return stop.getCount() == 0;
    }

    /** Waits, returning early (and {@code true}) if the mapping is stopped meanwhile. */
    private boolean pause(Duration duration) {
        try {
            return stop.await(Math.max(1, duration.toMillis()), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        }
    }
}
