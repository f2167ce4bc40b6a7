package dev.sluice.aws.kpl;

import dev.sluice.core.event.InboundRecord;
import dev.sluice.core.event.KplFormat;
import dev.sluice.core.event.Position;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns the Kinesis records a consumer read into the stage's inbound records: a KPL aggregate
 * becomes its user records, in order, each with {@code Position(shard, sequence, i)}, its own
 * partition key and explicit hash key; any other record stays as it is. An aggregate that cannot be
 * read (bad digest, undecodable protobuf) stays whole: the chain dead-letters it as {@code
 * MALFORMED_AGGREGATE} with its bytes, and the shard moves on. Given the hash-key range of the
 * shard a record was read from, an aggregate one of whose user records lies outside it is dropped
 * whole, exactly as the KCL's {@code AggregatorUtil.deaggregate(records, startingHashKey,
 * endingHashKey)} drops it: a producer with a stale shard map put it there after a reshard, and puts
 * its records again where they belong ({@link AggregatedPuts}) — so Lambda and KCL consumers read the
 * same records, none twice.
 */
public final class Deaggregation {

    private static final Logger LOG = LoggerFactory.getLogger(Deaggregation.class);

    private Deaggregation() {}

    /** The inbound records of one Kinesis record. */
    public static List<InboundRecord> of(InboundRecord record) {
        return of(record, null);
    }

    /**
     * The inbound records of one Kinesis record read from a shard of this range (null: unknown, no
     * aggregate dropped).
     */
    public static List<InboundRecord> of(InboundRecord record, ShardMap.Range shard) {
        if (!KplFormat.hasMagic(record.data())) {
            return List.of(record);
        }
        List<UserRecord> users;
        try {
            users = KplAggregates.decode(record.data());
        } catch (MalformedAggregateException e) {
            LOG.warn(
                    "{} in {}: not de-aggregated, dead-lettered whole: {}",
                    record.position(),
                    record.stream(),
                    e.getMessage());
            return List.of(record);
        }
        if (shard != null) {
            for (UserRecord user : users) {
                if (!ShardMap.holds(shard, ShardMap.hashKey(user.partitionKey(), user.explicitHashKey()))) {
                    LOG.info(
                            "{} in {}: aggregate dropped whole, as the KCL drops it: user record with key {} lies"
                                    + " outside shard {}'s hash-key range (put after a reshard; its producer puts it"
                                    + " again)",
                            record.position(),
                            record.stream(),
                            user.partitionKey(),
                            shard.shardId());
                    return List.of();
                }
            }
        }
        Position position = record.position();
        List<InboundRecord> records = new ArrayList<>(users.size());
        for (int i = 0; i < users.size(); i++) {
            UserRecord user = users.get(i);
            records.add(new InboundRecord(
                    record.stream(),
                    new Position(position.shardId(), position.sequenceNumber(), i),
                    user.partitionKey(),
                    user.data(),
                    record.arrivedAt(),
                    user.explicitHashKey()));
        }
        return records;
    }

    /** The inbound records of a batch of Kinesis records, in order. */
    public static List<InboundRecord> of(List<InboundRecord> records) {
        return of(records, null);
    }

    /**
     * The inbound records of a batch of Kinesis records, in order, aggregates checked against the
     * range of the shard they were read from ({@code shards}, asked only when the batch holds an
     * aggregate; null: not checked).
     *
     * @throws RuntimeException whatever {@code shards} throws (the batch then fails whole and is
     *     delivered again: never partly processed)
     */
    public static List<InboundRecord> of(
            List<InboundRecord> records, BiFunction<String, String, ShardMap.Range> shards) {
        List<InboundRecord> out = null;
        for (int i = 0; i < records.size(); i++) {
            InboundRecord record = records.get(i);
            if (out == null && KplFormat.hasMagic(record.data())) {
                out = new ArrayList<>(records.subList(0, i));
            }
            if (out != null) {
                out.addAll(
                        shards == null || !KplFormat.hasMagic(record.data())
                                ? of(record)
                                : of(
                                        record,
                                        shards.apply(
                                                record.stream(),
                                                record.position().shardId())));
            }
        }
        return out == null ? records : out;
    }
}
