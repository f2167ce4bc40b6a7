package dev.sluice.core.testing;

import dev.sluice.core.event.InboundRecord;
import dev.sluice.core.event.Position;
import java.time.Instant;

/**
 * Records as a Kinesis consumer hands them to a stage: one stream and shard, then one record per
 * sequence number. Immutable; each setting returns a new template.
 *
 * <pre>{@code
 * Records raw = Records.on("payments-raw").arrivedAt(Instant.parse("2026-11-30T19:59:59Z"));
 * chain.process(List.of(raw.at("1", Events.payment().bytes()), raw.at("2", Events.fixture("payment-malformed.json"))));
 * }</pre>
 */
public final class Records {

    /** The shard of a template unless told otherwise. */
    public static final String SHARD = "shardId-000000000000";

    /** The partition key of a record whose template names none and whose data is not a built event. */
    public static final String PARTITION_KEY = "k";

    private final String stream;
    private final String shardId;
    private final String partitionKey;
    private final Instant arrivedAt;

    private Records(String stream, String shardId, String partitionKey, Instant arrivedAt) {
        this.stream = stream;
        this.shardId = shardId;
        this.partitionKey = partitionKey;
        this.arrivedAt = arrivedAt;
    }

    /**
     * Records of {@code stream}, shard {@link #SHARD}, arrival time unknown ({@code null}), partition
     * key the event's own {@code key} for a built event and {@link #PARTITION_KEY} for bytes.
     */
    public static Records on(String stream) {
        return new Records(stream, SHARD, null, null);
    }

    public Records shard(String shardId) {
        return new Records(stream, shardId, partitionKey, arrivedAt);
    }

    /** Every record with this partition key. */
    public Records partitionKey(String partitionKey) {
        return new Records(stream, shardId, partitionKey, arrivedAt);
    }

    /** When the stream accepted the records ({@code null}: unknown). */
    public Records arrivedAt(Instant arrivedAt) {
        return new Records(stream, shardId, partitionKey, arrivedAt);
    }

    /** The record at {@code sequence} holding {@code data}. */
    public InboundRecord at(String sequence, byte[] data) {
        return new InboundRecord(
                stream,
                Position.of(shardId, sequence),
                partitionKey != null ? partitionKey : PARTITION_KEY,
                data,
                arrivedAt);
    }

    public InboundRecord at(long sequence, byte[] data) {
        return at(Long.toString(sequence), data);
    }

    /** The record at {@code sequence} holding the built event, keyed by its {@code key} unless the template names one. */
    public InboundRecord at(String sequence, Events.Event<?> event) {
        return new InboundRecord(
                stream,
                Position.of(shardId, sequence),
                partitionKey != null ? partitionKey : event.key(),
                event.bytes(),
                arrivedAt);
    }

    public InboundRecord at(long sequence, Events.Event<?> event) {
        return at(Long.toString(sequence), event);
    }
}
