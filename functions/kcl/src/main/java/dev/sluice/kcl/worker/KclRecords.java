package dev.sluice.kcl.worker;

import dev.sluice.core.event.InboundRecord;
import dev.sluice.core.event.Position;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import software.amazon.kinesis.retrieval.KinesisClientRecord;

/**
 * KCL's records as the stage's inbound records. The position is what Lambda's event gives the
 * Lambda path — shard id and sequence number — plus the sub-sequence of a record KCL took out of
 * an aggregated (KPL) record, so the idempotent sinks key and order KCL records exactly like
 * Lambda's.
 */
public final class KclRecords {

    private KclRecords() {}

    public static List<InboundRecord> toInbound(String stream, String shardId, List<KinesisClientRecord> records) {
        List<InboundRecord> inbound = new ArrayList<>(records.size());
        for (KinesisClientRecord record : records) {
            inbound.add(toInbound(stream, shardId, record));
        }
        return inbound;
    }

    public static InboundRecord toInbound(String stream, String shardId, KinesisClientRecord record) {
        return new InboundRecord(
                stream,
                position(shardId, record),
                record.partitionKey(),
                bytes(record.data()),
                record.approximateArrivalTimestamp());
    }

    /** Shard id and sequence number, and the sub-sequence for a de-aggregated record (0 otherwise). */
    public static Position position(String shardId, KinesisClientRecord record) {
        return new Position(shardId, record.sequenceNumber(), record.aggregated() ? record.subSequenceNumber() : 0);
    }

    private static byte[] bytes(ByteBuffer data) {
        if (data == null) {
            return new byte[0];
        }
        ByteBuffer copy = data.duplicate();
        byte[] bytes = new byte[copy.remaining()];
        copy.get(bytes);
        return bytes;
    }
}
