package dev.sluice.aws.kpl;

import dev.sluice.core.event.InboundRecord;
import dev.sluice.core.event.KplFormat;
import dev.sluice.core.event.Position;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns the Kinesis records a consumer read into the stage's inbound records: a KPL aggregate
 * becomes its user records, in order, each with {@code Position(shard, sequence, i)}, its own
 * partition key and explicit hash key; any other record stays as it is. An aggregate that cannot be
 * read (bad digest, undecodable protobuf) stays whole: the chain dead-letters it as {@code
 * MALFORMED_AGGREGATE} with its bytes, and the shard moves on.
 */
public final class Deaggregation {

    private static final Logger LOG = LoggerFactory.getLogger(Deaggregation.class);

    private Deaggregation() {}

    /** The inbound records of one Kinesis record. */
    public static List<InboundRecord> of(InboundRecord record) {
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
        List<InboundRecord> out = null;
        for (int i = 0; i < records.size(); i++) {
            InboundRecord record = records.get(i);
            if (out == null && KplFormat.hasMagic(record.data())) {
                out = new ArrayList<>(records.subList(0, i));
            }
            if (out != null) {
                out.addAll(of(record));
            }
        }
        return out == null ? records : out;
    }
}
