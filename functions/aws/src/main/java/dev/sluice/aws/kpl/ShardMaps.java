package dev.sluice.aws.kpl;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.Shard;

/** A stream's {@link ShardMap}, as {@code ListShards} gives it (the caller needs {@code kinesis:ListShards}). */
public final class ShardMaps {

    private ShardMaps() {}

    /** The stream's open shards (those without an ending sequence number) by hash-key range. */
    public static ShardMap list(KinesisClient kinesis, String stream) {
        List<ShardMap.Range> ranges = new ArrayList<>();
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
                if (shard.sequenceNumberRange().endingSequenceNumber() == null) {
                    ranges.add(new ShardMap.Range(
                            shard.shardId(),
                            new BigInteger(shard.hashKeyRange().startingHashKey()),
                            new BigInteger(shard.hashKeyRange().endingHashKey())));
                }
            }
            token = response.nextToken();
        } while (token != null);
        return new ShardMap(ranges);
    }
}
