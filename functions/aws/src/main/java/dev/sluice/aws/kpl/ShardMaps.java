package dev.sluice.aws.kpl;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import software.amazon.awssdk.services.kinesis.KinesisClient;
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
            var response = kinesis.listShards(b -> {
                if (next == null) {
                    b.streamName(stream);
                } else {
                    b.nextToken(next);
                }
            });
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
}
