package dev.sluice.core.event;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * An event that went through a stage's chain and is ready for its sinks.
 *
 * <p>Equality and the hash code are those of the first six components: {@code json} is a form of
 * {@code event}, not part of the event's identity.
 *
 * @param source the record it came from (its position keys every effect)
 * @param eventId the producer's idempotency key
 * @param key the event's partition key
 * @param occurredAt event time
 * @param event the event as the sinks write it, including {@code ingestedAt}
 * @param routes the sinks (logical target names) it goes to, or {@code null} for every sink
 * @param json the event as UTF-8 JSON on one line, as the chain left it (the record's own bytes with
 *     the chain's edits spliced in), or {@code null}: {@link #json()} then serialises {@code event}
 */
public record ProcessedEvent(
        InboundRecord source,
        String eventId,
        String key,
        Instant occurredAt,
        ObjectNode event,
        List<String> routes,
        byte[] json) {

    public ProcessedEvent {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(eventId, "eventId");
        Objects.requireNonNull(occurredAt, "occurredAt");
        Objects.requireNonNull(event, "event");
        routes = routes == null ? null : List.copyOf(routes);
    }

    /** An event without its bytes: {@link #json()} serialises the tree. */
    public ProcessedEvent(
            InboundRecord source,
            String eventId,
            String key,
            Instant occurredAt,
            ObjectNode event,
            List<String> routes) {
        this(source, eventId, key, occurredAt, event, routes, null);
    }

    /** An event for every sink of its stage. */
    public ProcessedEvent(InboundRecord source, String eventId, String key, Instant occurredAt, ObjectNode event) {
        this(source, eventId, key, occurredAt, event, null, null);
    }

    /**
     * The event as UTF-8 JSON on one line, equal as JSON to {@link #event()} as the chain left it:
     * the chain's spliced bytes when it had them (no second serialisation), else {@code
     * event().toString()}. The array is shared: callers must not modify it.
     */
    @Override
    public byte[] json() {
        return json != null ? json : event.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** Whether the sink for this logical target takes the event. */
    public boolean routedTo(String target) {
        return routes == null || routes.contains(target);
    }

    public Position position() {
        return source.position();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ProcessedEvent other
                && source.equals(other.source)
                && eventId.equals(other.eventId)
                && Objects.equals(key, other.key)
                && occurredAt.equals(other.occurredAt)
                && event.equals(other.event)
                && Objects.equals(routes, other.routes);
    }

    @Override
    public int hashCode() {
        return Objects.hash(source, eventId, key, occurredAt, event, routes);
    }

    @Override
    public String toString() {
        return "ProcessedEvent[source=" + source + ", eventId=" + eventId + ", key=" + key + ", occurredAt="
                + occurredAt + ", event=" + event + ", routes=" + routes + "]";
    }
}
