package dev.sluice.core.event;

import java.time.Instant;
import java.util.Objects;

/**
 * A record as read from a stream, before any step has looked at it: a Kinesis record, or one user
 * record taken out of a KPL-aggregated Kinesis record (its position then carries the sub-sequence).
 *
 * @param stream the stream's name
 * @param position shard, sequence number and sub-sequence
 * @param partitionKey the producer's partition key (a user record's own)
 * @param data the record's bytes
 * @param arrivedAt when the stream accepted it (approximate arrival timestamp)
 * @param explicitHashKey the user record's explicit hash key when its producer gave one, else
 *     {@code null}
 */
public record InboundRecord(
        String stream, Position position, String partitionKey, byte[] data, Instant arrivedAt, String explicitHashKey) {

    public InboundRecord {
        Objects.requireNonNull(stream, "stream");
        Objects.requireNonNull(position, "position");
        Objects.requireNonNull(data, "data");
    }

    /** A record without an explicit hash key. */
    public InboundRecord(String stream, Position position, String partitionKey, byte[] data, Instant arrivedAt) {
        this(stream, position, partitionKey, data, arrivedAt, null);
    }
}
