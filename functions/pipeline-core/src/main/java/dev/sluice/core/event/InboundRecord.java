package dev.sluice.core.event;

import java.time.Instant;
import java.util.Objects;

/**
 * A record as read from a stream, before any step has looked at it.
 *
 * @param stream the stream's name
 * @param position shard and sequence number
 * @param partitionKey the producer's partition key
 * @param data the record's bytes
 * @param arrivedAt when the stream accepted it (approximate arrival timestamp)
 */
public record InboundRecord(String stream, Position position, String partitionKey, byte[] data, Instant arrivedAt) {

    public InboundRecord {
        Objects.requireNonNull(stream, "stream");
        Objects.requireNonNull(position, "position");
        Objects.requireNonNull(data, "data");
    }
}
