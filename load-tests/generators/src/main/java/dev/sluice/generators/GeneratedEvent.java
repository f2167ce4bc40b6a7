package dev.sluice.generators;

import java.util.Objects;

/**
 * One synthetic record with what the producer expects to become of it — the producer-side ledger
 * entry that reconciliation checks the targets against.
 *
 * @param eventId the event's id (for malformed records, the id the producer meant to send)
 * @param partitionKey the Kinesis partition key
 * @param data the record's bytes
 * @param expectedReason {@code null} if the event is valid, else the reason code it must be dead
 *     lettered with
 */
public record GeneratedEvent(String eventId, String partitionKey, byte[] data, String expectedReason) {

    public GeneratedEvent {
        Objects.requireNonNull(eventId, "eventId");
        Objects.requireNonNull(partitionKey, "partitionKey");
        Objects.requireNonNull(data, "data");
    }

    /** Whether the pipeline must accept this event. */
    public boolean valid() {
        return expectedReason == null;
    }
}
