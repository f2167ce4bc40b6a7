package dev.sluice.local.esm;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.Shard;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * Lambda's Kinesis event-source mapping, run locally against kinesis-mock: one poller per shard,
 * new shards discovered as the stream is resharded, checkpoints in DynamoDB so that a restarted
 * mapping resumes where the last one stopped.
 */
public final class LocalEventSourceMapping implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(LocalEventSourceMapping.class);

    /** Figures of a running mapping. */
    public record Stats(long invocations, long recordsInvoked, long acknowledged, long retries, long discarded) {}

    private final MappingConfig config;
    private final LocalFunction function;
    private final KinesisClient kinesis;
    private final SqsClient sqs;
    private final CheckpointStore checkpoints;
    private final String streamArn;
    private final String functionArn;
    private final KinesisEventJson eventJson;
    private final CountDownLatch stop = new CountDownLatch(1);
    private final ExecutorService threads;
    private final ExecutorService lanes;
    private final Set<String> started = ConcurrentHashMap.newKeySet();
    private final Set<String> ended = ConcurrentHashMap.newKeySet();
    private final Map<String, RuntimeException> failures = new ConcurrentHashMap<>();
    private final AtomicLong invocations = new AtomicLong();
    private final AtomicLong recordsInvoked = new AtomicLong();
    private final AtomicLong acknowledged = new AtomicLong();
    private final AtomicLong retries = new AtomicLong();
    private final AtomicLong discarded = new AtomicLong();
    private volatile boolean killed;
    private volatile boolean killBeforeCheckpoint;

    public LocalEventSourceMapping(
            MappingConfig config,
            LocalFunction function,
            KinesisClient kinesis,
            SqsClient sqs,
            CheckpointStore checkpoints,
            String region,
            String accountId) {
        this.config = config;
        this.function = function;
        this.kinesis = kinesis;
        this.sqs = sqs;
        this.checkpoints = checkpoints;
        this.streamArn = "arn:aws:kinesis:" + region + ":" + accountId + ":stream/" + config.streamName();
        this.functionArn = "arn:aws:lambda:" + region + ":" + accountId + ":function:" + config.functionName();
        this.eventJson = new KinesisEventJson(
                new ObjectMapper(), region, streamArn, "arn:aws:iam::" + accountId + ":role/" + config.functionName());
        this.threads = Executors.newCachedThreadPool(runnable -> {
            Thread thread = new Thread(runnable, "esm-" + config.functionName());
            thread.setDaemon(true);
            return thread;
        });
        this.lanes = Executors.newCachedThreadPool(runnable -> {
            Thread thread = new Thread(runnable, "esm-" + config.functionName() + "-lane");
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Starts reading every shard, and keeps discovering shards created by resharding. */
    public LocalEventSourceMapping start() {
        discoverShards();
        threads.execute(() -> {
            try {
                while (!stop.await(2, TimeUnit.SECONDS)) {
                    try {
                        discoverShards();
                    } catch (RuntimeException e) {
                        LOG.warn("shard discovery for {} failed, trying again: {}", config.streamName(), e.toString());
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        LOG.info("event-source mapping {} → {} started", config.streamName(), config.functionName());
        return this;
    }

    private void discoverShards() {
        for (Shard shard :
                kinesis.listShards(b -> b.streamName(config.streamName())).shards()) {
            if (started.add(shard.shardId())) {
                List<String> parents = new ArrayList<>(2);
                if (shard.parentShardId() != null) {
                    parents.add(shard.parentShardId());
                }
                if (shard.adjacentParentShardId() != null) {
                    parents.add(shard.adjacentParentShardId());
                }
                threads.execute(new ShardPoller(this, shard.shardId(), parents, stop));
            }
        }
    }

    /** Records acknowledged so far (processed, dead lettered or given up), across shards. */
    public long acknowledged() {
        return acknowledged.get();
    }

    public Stats stats() {
        return new Stats(invocations.get(), recordsInvoked.get(), acknowledged.get(), retries.get(), discarded.get());
    }

    /**
     * Whether this mapping's checkpoint for a shard is at or past a sequence number (read from the
     * checkpoint table, so it holds across runner restarts).
     */
    public boolean checkpointedPast(String shardId, String sequenceNumber) {
        return checkpoints
                .get(leaseKey(shardId))
                .map(CheckpointStore.Checkpoint::sequenceNumber)
                .map(done -> new java.math.BigInteger(done).compareTo(new java.math.BigInteger(sequenceNumber)) >= 0)
                .orElse(false);
    }

    /** A shard whose poller died, if any: the mapping is then not healthy. */
    public Optional<RuntimeException> failure() {
        return failures.values().stream().findFirst();
    }

    /**
     * Kills the runner as a crash would: pollers are interrupted mid-batch and nothing more is
     * checkpointed, even for an invocation that completes after this call. The next mapping
     * resumes from the last checkpoint written before.
     */
    public void kill() {
        killed = true;
        stop.countDown();
        threads.shutdownNow();
        lanes.shutdownNow();
        LOG.warn("event-source mapping {} → {} killed", config.streamName(), config.functionName());
    }

    /**
     * Arms a crash at the worst moment: right after the next invocation that succeeds, before its
     * checkpoint is written, the runner dies (as {@link #kill()}), so that batch is certainly
     * delivered again by the next runner.
     */
    public void killBeforeNextCheckpoint() {
        killBeforeCheckpoint = true;
    }

    /**
     * Waits for an armed crash; kills the runner anyway when it has not happened in time.
     *
     * @return whether it died before a checkpoint, as armed
     */
    public boolean awaitKilled(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!killed && System.nanoTime() < deadline) {
            java.util.concurrent.locks.LockSupport.parkNanos(
                    Duration.ofMillis(20).toNanos());
        }
        boolean asArmed = killed;
        kill();
        return asArmed;
    }

    boolean killed() {
        return killed;
    }

    /** Called by a poller before it checkpoints; true when the runner is (now) dead. */
    boolean dieBeforeCheckpoint() {
        if (killBeforeCheckpoint && !killed) {
            kill();
        }
        return killed;
    }

    /** Stops every poller; un-acknowledged batches are read again by the next mapping. */
    @Override
    public void close() {
        stop.countDown();
        threads.shutdown();
        lanes.shutdown();
        try {
            if (!threads.awaitTermination(30, TimeUnit.SECONDS)) {
                threads.shutdownNow();
            }
        } catch (InterruptedException e) {
            threads.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    // collaborators and callbacks for the shard pollers

    MappingConfig config() {
        return config;
    }

    KinesisClient kinesis() {
        return kinesis;
    }

    SqsClient sqs() {
        return sqs;
    }

    CheckpointStore checkpoints() {
        return checkpoints;
    }

    LocalFunction function() {
        return function;
    }

    /** Runs the concurrent invocations of a parallelization factor above 1. */
    ExecutorService lanes() {
        return lanes;
    }

    KinesisEventJson eventJson() {
        return eventJson;
    }

    String streamArn() {
        return streamArn;
    }

    String functionArn() {
        return functionArn;
    }

    String leaseKey(String shardId) {
        return config.functionName() + "|" + config.streamName() + "|" + shardId;
    }

    boolean shardFinished(String shardId) {
        return ended.contains(shardId)
                || checkpoints
                        .get(leaseKey(shardId))
                        .map(CheckpointStore.Checkpoint::shardEnded)
                        .orElse(false);
    }

    void shardEnded(String shardId) {
        ended.add(shardId);
    }

    void invoked(int records) {
        invocations.incrementAndGet();
        recordsInvoked.addAndGet(records);
    }

    void acknowledged(int records) {
        acknowledged.addAndGet(records);
    }

    void retried() {
        retries.incrementAndGet();
    }

    void discarded(int records) {
        discarded.addAndGet(records);
    }

    void pollerFailed(String shardId, RuntimeException e) {
        failures.put(shardId, e);
    }
}
