package dev.sluice.kcl.worker;

import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What this worker's record processors report about their shards: the last checkpoint they wrote,
 * records processed and how far behind the stream's tip they are. The health and lease endpoints
 * read it; nothing here decides anything.
 */
public final class ShardRegistry {

    /**
     * One shard as its processor last saw it.
     *
     * @param shardId the shard
     * @param state {@code PROCESSING}, {@code SHARD_ENDED}, {@code LEASE_LOST} or {@code SHUT_DOWN}
     * @param checkpoint the last sequence number checkpointed (with {@code .sub} for aggregated
     *     records), or {@code null}
     * @param records records processed by this worker since it took the lease
     * @param millisBehindLatest KCL's MillisBehindLatest of the last batch
     * @param updatedAt when the processor last reported
     */
    public record ShardStatus(
            String shardId,
            String state,
            String checkpoint,
            long records,
            long millisBehindLatest,
            Instant updatedAt) {}

    private final Map<String, ShardStatus> shards = new ConcurrentHashMap<>();

    /**
     * A KCL checkpoint as the endpoints show it: {@code TRIM_HORIZON}, {@code SHARD_END}, a sequence
     * number, or {@code <sequence>.<sub-sequence>} for a record taken out of an aggregated one.
     */
    public static String format(software.amazon.kinesis.retrieval.kpl.ExtendedSequenceNumber checkpoint) {
        if (checkpoint == null) {
            return null;
        }
        long sub = checkpoint.subSequenceNumber();
        return checkpoint.sequenceNumber() + (sub > 0 ? "." + sub : "");
    }

    public void started(String shardId, String checkpoint) {
        shards.put(shardId, new ShardStatus(shardId, "PROCESSING", checkpoint, 0, -1, Instant.now()));
    }

    public void processed(String shardId, int records, long millisBehindLatest) {
        shards.compute(
                shardId,
                (id, s) -> s == null
                        ? new ShardStatus(id, "PROCESSING", null, records, millisBehindLatest, Instant.now())
                        : new ShardStatus(
                                id,
                                s.state(),
                                s.checkpoint(),
                                s.records() + records,
                                millisBehindLatest,
                                Instant.now()));
    }

    public void checkpointed(String shardId, String checkpoint) {
        shards.compute(
                shardId,
                (id, s) -> s == null
                        ? new ShardStatus(id, "PROCESSING", checkpoint, 0, -1, Instant.now())
                        : new ShardStatus(
                                id, s.state(), checkpoint, s.records(), s.millisBehindLatest(), Instant.now()));
    }

    public void ended(String shardId, String state) {
        shards.computeIfPresent(
                shardId,
                (id, s) ->
                        new ShardStatus(id, state, s.checkpoint(), s.records(), s.millisBehindLatest(), Instant.now()));
    }

    /** Shards whose processor is still running on this worker. */
    public long processing() {
        return shards.values().stream()
                .filter(s -> s.state().equals("PROCESSING"))
                .count();
    }

    /** The largest MillisBehindLatest over the shards still processing, or -1. */
    public long maxMillisBehindLatest() {
        return shards.values().stream()
                .filter(s -> s.state().equals("PROCESSING"))
                .mapToLong(ShardStatus::millisBehindLatest)
                .max()
                .orElse(-1);
    }

    public Map<String, ShardStatus> snapshot() {
        return new TreeMap<>(shards);
    }
}
