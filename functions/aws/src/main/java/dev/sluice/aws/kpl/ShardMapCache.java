package dev.sluice.aws.kpl;

import java.util.concurrent.atomic.AtomicLong;
import software.amazon.awssdk.services.kinesis.KinesisClient;

/**
 * One stream's {@link ShardMap}, listed once and kept: listed again only when its user finds it
 * stale — a put landed on another shard than the map predicted (the predicted shard closed: the
 * stream was resharded), or a record came from a shard the map does not know. A shard's hash-key
 * range never changes, so a kept map is never wrong about a shard it names, only incomplete. The
 * aggregating producers (the re-key {@code KinesisStreamSink}, the fault suite's and load runs'
 * producer) and the Lambda handler's de-aggregation share this one cache type; each holder needs
 * {@code kinesis:ListShards} on the stream. {@code ListShards} is limited to 1,000 transactions a
 * second per data stream (Kinesis API reference, ListShards), so a producer that listed before
 * every put would spend that budget for nothing; this one lists 1 + (number of reshards it saw)
 * times. Thread-safe.
 */
public final class ShardMapCache {

    private final KinesisClient kinesis;
    private final String stream;
    private final AtomicLong listings = new AtomicLong();
    private ShardMap map;

    /** @param kinesis a client whose role may {@code kinesis:ListShards} on {@code stream} */
    public ShardMapCache(KinesisClient kinesis, String stream) {
        this.kinesis = kinesis;
        this.stream = stream;
    }

    /** The stream this cache lists. */
    public String stream() {
        return stream;
    }

    /**
     * The map as last listed, listing it first if it never was.
     *
     * @throws software.amazon.awssdk.core.exception.SdkException if listing fails
     */
    public synchronized ShardMap current() {
        if (map == null) {
            return refresh();
        }
        return map;
    }

    /** Lists the shards again (the map was found stale) and keeps the answer. */
    public synchronized ShardMap refresh() {
        ShardMap listed = ShardMaps.list(kinesis, stream);
        listings.incrementAndGet();
        map = listed;
        return listed;
    }

    /**
     * The range of a shard, listing the shards again if the kept map does not name it (a shard
     * created since).
     *
     * @throws IllegalStateException if the stream does not list the shard even then
     */
    public synchronized ShardMap.Range range(String shardId) {
        return current()
                .range(shardId)
                .or(() -> refresh().range(shardId))
                .orElseThrow(() -> new IllegalStateException(stream + " does not list shard " + shardId));
    }

    /** How many times this cache listed the stream's shards (each listing may take several pages). */
    public long listings() {
        return listings.get();
    }
}
