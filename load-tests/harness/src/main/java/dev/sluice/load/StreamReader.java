package dev.sluice.load;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.GetRecordsResponse;
import software.amazon.awssdk.services.kinesis.model.ListShardsResponse;
import software.amazon.awssdk.services.kinesis.model.ProvisionedThroughputExceededException;
import software.amazon.awssdk.services.kinesis.model.Record;
import software.amazon.awssdk.services.kinesis.model.Shard;
import software.amazon.awssdk.services.kinesis.model.ShardIteratorType;

/** Reads every record of a stream from the start of each shard up to its tip (GetRecords polling). */
final class StreamReader {

    /** Kinesis allows five GetRecords a second per shard: wait this long when throttled. */
    private static final Duration THROTTLED = Duration.ofMillis(250);

    private StreamReader() {}

    static List<StageFigures.StreamRecord> readAll(KinesisClient kinesis, String stream) {
        List<StageFigures.StreamRecord> records = new ArrayList<>();
        List<Shard> shards = new ArrayList<>();
        ListShardsResponse listed = kinesis.listShards(b -> b.streamName(stream));
        shards.addAll(listed.shards());
        while (listed.nextToken() != null) {
            String token = listed.nextToken();
            listed = kinesis.listShards(b -> b.nextToken(token));
            shards.addAll(listed.shards());
        }
        for (Shard shard : shards) {
            String iterator = kinesis.getShardIterator(b -> b.streamName(stream)
                            .shardId(shard.shardId())
                            .shardIteratorType(ShardIteratorType.TRIM_HORIZON))
                    .shardIterator();
            while (iterator != null) {
                String at = iterator;
                GetRecordsResponse page;
                try {
                    page = kinesis.getRecords(b -> b.shardIterator(at).limit(10_000));
                } catch (ProvisionedThroughputExceededException e) {
                    LockSupport.parkNanos(THROTTLED.toNanos());
                    continue;
                }
                for (Record r : page.records()) {
                    records.add(new StageFigures.StreamRecord(
                            shard.shardId(),
                            r.sequenceNumber(),
                            r.approximateArrivalTimestamp() == null
                                    ? 0
                                    : r.approximateArrivalTimestamp().toEpochMilli(),
                            r.data().asByteArray()));
                }
                iterator = page.nextShardIterator();
                if (page.records().isEmpty() && (page.millisBehindLatest() == null || page.millisBehindLatest() == 0)) {
                    break; // at the tip of an open shard
                }
            }
        }
        return records;
    }
}
