package dev.sluice.aws.kpl;

import java.math.BigInteger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.LimitExceededException;
import software.amazon.awssdk.services.kinesis.model.ListShardsResponse;
import software.amazon.awssdk.services.kinesis.model.Shard;

/** A stream's {@link ShardMap}, as {@code ListShards} gives it (the caller needs {@code kinesis:ListShards}). */
public final class ShardMaps {

    private ShardMaps() {}

    /**
     * The stream's shards by hash-key range: the open ones (without an ending sequence number) to
     * route by, the closed ones still listed (within the retention period) to check records against.
     */
    public static ShardMap list(KinesisClient kinesis, String stream) {
        List<ShardMap.Range> ranges = new ArrayList<>();
        List<ShardMap.Range> closed = new ArrayList<>();
        String token = null;
        do {
            String next = token;
            var response = page(kinesis, stream, next);
            for (Shard shard : response.shards()) {
                ShardMap.Range range = new ShardMap.Range(
                        shard.shardId(),
                        new BigInteger(shard.hashKeyRange().startingHashKey()),
                        new BigInteger(shard.hashKeyRange().endingHashKey()));
                (shard.sequenceNumberRange().endingSequenceNumber() == null ? ranges : closed).add(range);
            }
            token = response.nextToken();
        } while (token != null);
        return new ShardMap(ranges, closed);
    }

    /** Attempts of one page refused with {@code LimitExceededException} before giving up. */
    static final int LIMIT_ATTEMPTS = 5;

    /**
     * One page of ListShards. A call over ListShards' rate (1,000 a second per stream) is refused with
     * {@code LimitExceededException}, which the SDK does not retry (it is no throttling error code of
     * its): it is tried again after a pause, as the KCL's {@code KinesisShardDetector} does, up to
     * {@link #LIMIT_ATTEMPTS} times; then the exception goes to the caller, whose batch is retried.
     */
    private static ListShardsResponse page(KinesisClient kinesis, String stream, String next) {
        for (int attempt = 1; ; attempt++) {
            try {
                return kinesis.listShards(b -> {
                    if (next == null) {
                        b.streamName(stream);
                    } else {
                        b.nextToken(next);
                    }
                });
            } catch (LimitExceededException e) {
                if (attempt == LIMIT_ATTEMPTS) {
                    throw e;
                }
                LockSupport.parkNanos(Duration.ofMillis(100L << attempt).toNanos());
            }
        }
    }
}
