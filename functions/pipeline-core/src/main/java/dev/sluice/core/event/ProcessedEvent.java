package dev.sluice.core.event;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * An event that went through a stage's chain and is ready for its sinks.
 *
 * @param source the record it came from (its position keys every effect)
 * @param eventId the producer's idempotency key
 * @param key the event's partition key
 * @param occurredAt event time
 * @param event the event as the sinks write it, including {@code ingestedAt}
 * @param routes the sinks (logical target names) it goes to, or {@code null} for every sink
 */
public record ProcessedEvent(
        InboundRecord source, String eventId, String key, Instant occurredAt, ObjectNode event, List<String> routes) {

    public ProcessedEvent {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(eventId, "eventId");
        Objects.requireNonNull(occurredAt, "occurredAt");
        Objects.requireNonNull(event, "event");
        routes = routes == null ? null : List.copyOf(routes);
    }

    /** An event for every sink of its stage. */
    public ProcessedEvent(InboundRecord source, String eventId, String key, Instant occurredAt, ObjectNode event) {
        this(source, eventId, key, occurredAt, event, null);
    }

    /** Whether the sink for this logical target takes the event. */
    public boolean routedTo(String target) {
        return routes == null || routes.contains(target);
    }

    public Position position() {
        return source.position();
    }
}
