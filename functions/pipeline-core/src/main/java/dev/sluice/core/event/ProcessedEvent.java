package dev.sluice.core.event;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.Objects;

/**
 * An event that went through a stage's chain and is ready for its sinks.
 *
 * @param source the record it came from (its position keys every effect)
 * @param eventId the producer's idempotency key
 * @param key the event's partition key
 * @param occurredAt event time
 * @param event the event as the sinks write it, including {@code ingestedAt}
 */
public record ProcessedEvent(InboundRecord source, String eventId, String key, Instant occurredAt, ObjectNode event) {

    public ProcessedEvent {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(eventId, "eventId");
        Objects.requireNonNull(occurredAt, "occurredAt");
        Objects.requireNonNull(event, "event");
    }

    public Position position() {
        return source.position();
    }
}
