package dev.sluice.emulators.limits;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;

/**
 * The open shards of a stream by hash key range, and the shard of a record as Kinesis finds it: the
 * MD5 of the partition key as an unsigned 128-bit integer, or the explicit hash key, falls in
 * exactly one open shard's {@code [StartingHashKey, EndingHashKey]}.
 */
public record ShardMap(List<Range> shards) {

    /** One open shard's hash key range (inclusive). */
    public record Range(String shardId, BigInteger start, BigInteger end) {}

    public ShardMap {
        shards = List.copyOf(shards);
    }

    /** The hash key of a record: its explicit hash key, else the MD5 of its partition key. */
    public static BigInteger hashKey(String partitionKey, String explicitHashKey) {
        if (explicitHashKey != null && !explicitHashKey.isEmpty()) {
            return new BigInteger(explicitHashKey);
        }
        try {
            byte[] md5 = MessageDigest.getInstance("MD5").digest(partitionKey.getBytes(StandardCharsets.UTF_8));
            return new BigInteger(1, md5);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("MD5 is missing from this JVM", e);
        }
    }

    /** The open shard whose range holds the hash key, or null (a stale map). */
    public String shardOf(BigInteger hashKey) {
        for (Range range : shards) {
            if (range.start().compareTo(hashKey) <= 0 && range.end().compareTo(hashKey) >= 0) {
                return range.shardId();
            }
        }
        return null;
    }

    /** The open shard of a record, or null. */
    public String shardOf(String partitionKey, String explicitHashKey) {
        return shardOf(hashKey(partitionKey, explicitHashKey));
    }
}
