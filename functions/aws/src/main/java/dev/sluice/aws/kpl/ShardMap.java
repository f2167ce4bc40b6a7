package dev.sluice.aws.kpl;

import dev.sluice.core.event.KplFormat;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The shards of a stream by hash-key range, as {@code ListShards} names them: which open shard a
 * record goes to, from its explicit hash key or the MD5 of its partition key, as Kinesis decides;
 * and the range of any shard listed, closed ones too (a shard's range never changes, so a record
 * read from a shard can be checked against it long after the shard closed).
 */
public final class ShardMap {

    /** The whole 128-bit hash-key space. */
    public static final BigInteger MAX_HASH_KEY = BigInteger.TWO.pow(128).subtract(BigInteger.ONE);

    /** One open shard's range, both ends included. */
    public record Range(String shardId, BigInteger startingHashKey, BigInteger endingHashKey) {
        public Range {
            Objects.requireNonNull(shardId, "shardId");
            Objects.requireNonNull(startingHashKey, "startingHashKey");
            Objects.requireNonNull(endingHashKey, "endingHashKey");
        }
    }

    private final List<Range> ranges;
    private final Map<String, Range> byId;

    /** A map of open shards only. */
    public ShardMap(List<Range> ranges) {
        this(ranges, List.of());
    }

    /**
     * @param open the open shards, which take records
     * @param closed the closed shards listed with them, whose ranges {@link #range} still knows
     */
    public ShardMap(List<Range> open, List<Range> closed) {
        if (open.isEmpty()) {
            throw new IllegalArgumentException("a stream has at least one open shard");
        }
        List<Range> sorted = new ArrayList<>(open);
        sorted.sort(Comparator.comparing(Range::startingHashKey));
        this.ranges = List.copyOf(sorted);
        Map<String, Range> all = new HashMap<>();
        closed.forEach(r -> all.put(r.shardId(), r));
        open.forEach(r -> all.put(r.shardId(), r));
        this.byId = Map.copyOf(all);
    }

    /** How many open shards the stream had when it was listed. */
    public int openShards() {
        return ranges.size();
    }

    /** The hash-key range of a shard listed, open or closed. */
    public Optional<Range> range(String shardId) {
        return Optional.ofNullable(byId.get(shardId));
    }

    /** Whether a hash key lies in the range, both ends included. */
    public static boolean holds(Range range, BigInteger hashKey) {
        return range.startingHashKey().compareTo(hashKey) <= 0 && hashKey.compareTo(range.endingHashKey()) <= 0;
    }

    /** A stream of one shard (tests, and producers that do not know the shards). */
    public static ShardMap single(String shardId) {
        return new ShardMap(List.of(new Range(shardId, BigInteger.ZERO, MAX_HASH_KEY)));
    }

    /** The hash key of a record: its explicit hash key, else the MD5 of its partition key (UTF-8). */
    public static BigInteger hashKey(String partitionKey, String explicitHashKey) {
        if (explicitHashKey != null) {
            return new BigInteger(explicitHashKey);
        }
        byte[] utf8 = partitionKey.getBytes(StandardCharsets.UTF_8);
        return new BigInteger(1, KplFormat.md5(utf8, 0, utf8.length));
    }

    /** The shard a record with this hash key goes to. */
    public String shardFor(BigInteger hashKey) {
        for (Range range : ranges) {
            if (holds(range, hashKey)) {
                return range.shardId();
            }
        }
        throw new IllegalArgumentException("no open shard holds hash key " + hashKey);
    }
}
