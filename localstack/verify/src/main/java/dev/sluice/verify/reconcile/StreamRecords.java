package dev.sluice.verify.reconcile;

import dev.sluice.aws.kpl.KplAggregates;
import dev.sluice.aws.kpl.MalformedAggregateException;
import dev.sluice.aws.kpl.UserRecord;
import dev.sluice.core.event.KplFormat;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.GetRecordsResponse;
import software.amazon.awssdk.services.kinesis.model.ProvisionedThroughputExceededException;
import software.amazon.awssdk.services.kinesis.model.Record;
import software.amazon.awssdk.services.kinesis.model.Shard;
import software.amazon.awssdk.services.kinesis.model.ShardIteratorType;

/**
 * Reads a whole stream back, from the start of each shard up to its tip (GetRecords polling), as the
 * stage reading it sees it: a record as it is, a KPL aggregate (an aggregating hop) as its user
 * records in sub-sequence order, each at the aggregate's position. The verifiers and the load
 * harness read output streams and re-key hops this one way.
 */
public final class StreamRecords {

    /**
     * One user record.
     *
     * @param shardId its shard
     * @param sequenceNumber its Kinesis record's sequence number (the aggregate's, for a user record of one)
     * @param arrivedAtMillis the Kinesis record's approximate arrival time, 0 when not given
     * @param partitionKey its own partition key
     * @param data its bytes
     */
    public record UserRecordAt(
            String shardId, String sequenceNumber, long arrivedAtMillis, String partitionKey, byte[] data) {}

    /** A shard's 5 reads a second are shared with the stage reading it: wait this long when throttled. */
    private static final Duration THROTTLED = Duration.ofMillis(250);

    private StreamRecords() {}

    /** Every user record of the stream, shard by shard, in stream order. */
    public static List<UserRecordAt> readAll(KinesisClient kinesis, String stream) {
        List<UserRecordAt> all = new ArrayList<>();
        List<Shard> shards = new ArrayList<>();
        var listed = kinesis.listShards(b -> b.streamName(stream));
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
                    long arrived = r.approximateArrivalTimestamp() == null
                            ? 0
                            : r.approximateArrivalTimestamp().toEpochMilli();
                    for (UserRecord user :
                            userRecords(r.partitionKey(), r.data().asByteArray())) {
                        all.add(new UserRecordAt(
                                shard.shardId(), r.sequenceNumber(), arrived, user.partitionKey(), user.data()));
                    }
                }
                iterator = page.nextShardIterator();
                if (page.records().isEmpty() && (page.millisBehindLatest() == null || page.millisBehindLatest() == 0)) {
                    break; // at the tip of an open shard
                }
            }
        }
        return all;
    }

    /** A record's user records: itself, or those of its KPL aggregate (a malformed one as itself). */
    static List<UserRecord> userRecords(String partitionKey, byte[] data) {
        if (KplFormat.hasMagic(data)) {
            try {
                return KplAggregates.decode(data);
            } catch (MalformedAggregateException e) {
                // what the stage dead-letters whole: one record
            }
        }
        return List.of(new UserRecord(partitionKey, data));
    }
}
