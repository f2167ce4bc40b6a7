package dev.sluice.core.event;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * An event that went through a stage's chain and is ready for its sinks: its identity (the record it
 * came from, {@code eventId}, key, event time, routes), and the event itself, as a tree, as UTF-8
 * JSON bytes, or both.
 *
 * <p>When the chain streamed the record's own bytes through (its edits spliced in), the tree is
 * built from those bytes only if a sink asks for it ({@link #event()}); a sink that writes the
 * event's bytes never pays for a tree.
 *
 * <p>Equality and the hash code are those of the source, {@code eventId}, key, event time, event
 * (as a tree) and routes: the bytes are a form of the event, not part of its identity. Thread-safe:
 * a tree built on demand by two sinks at once is built twice, equal, and one of them is kept.
 */
public final class ProcessedEvent {

    private final InboundRecord source;
    private final String eventId;
    private final String key;
    private final Instant occurredAt;
    private final List<String> routes;
    private final byte[] json;
    private final Function<byte[], ObjectNode> reader;
    private final String ingestedAt;
    private volatile ObjectNode event;

    /**
     * @param source the record it came from (its position keys every effect)
     * @param eventId the producer's idempotency key
     * @param key the event's partition key
     * @param occurredAt event time
     * @param event the event as the sinks write it, including {@code ingestedAt}
     * @param routes the sinks (logical target names) it goes to, or {@code null} for every sink
     * @param json the event as UTF-8 JSON on one line, as the chain left it (the record's own bytes
     *     with the chain's edits spliced in), or {@code null}: {@link #json()} then serialises {@code
     *     event}
     */
    public ProcessedEvent(
            InboundRecord source,
            String eventId,
            String key,
            Instant occurredAt,
            ObjectNode event,
            List<String> routes,
            byte[] json) {
        this(source, eventId, key, occurredAt, Objects.requireNonNull(event, "event"), routes, json, null, null);
    }

    private ProcessedEvent(
            InboundRecord source,
            String eventId,
            String key,
            Instant occurredAt,
            ObjectNode event,
            List<String> routes,
            byte[] json,
            Function<byte[], ObjectNode> reader,
            String ingestedAt) {
        this.source = Objects.requireNonNull(source, "source");
        this.eventId = Objects.requireNonNull(eventId, "eventId");
        this.key = key;
        this.occurredAt = Objects.requireNonNull(occurredAt, "occurredAt");
        this.event = event;
        this.routes = routes == null ? null : List.copyOf(routes);
        this.json = json;
        this.reader = reader;
        this.ingestedAt = ingestedAt;
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
     * An event known by its bytes only; its tree is read from them by {@code reader} when a sink
     * first asks for it.
     *
     * @param json the event as UTF-8 JSON on one line
     * @param reader reads {@code json} into the tree the chain's mapper would build
     * @param ingestedAt the event's {@code ingestedAt}, as {@code json} holds it
     */
    public static ProcessedEvent ofJson(
            InboundRecord source,
            String eventId,
            String key,
            Instant occurredAt,
            List<String> routes,
            byte[] json,
            Function<byte[], ObjectNode> reader,
            String ingestedAt) {
        return new ProcessedEvent(
                source,
                eventId,
                key,
                occurredAt,
                null,
                routes,
                Objects.requireNonNull(json, "json"),
                Objects.requireNonNull(reader, "reader"),
                Objects.requireNonNull(ingestedAt, "ingestedAt"));
    }

    public InboundRecord source() {
        return source;
    }

    public String eventId() {
        return eventId;
    }

    public String key() {
        return key;
    }

    public Instant occurredAt() {
        return occurredAt;
    }

    /**
     * The event's {@code ingestedAt} as text (the time its stage took it in), without building the
     * tree when the chain gave it; empty if the event has none.
     */
    public String ingestedAt() {
        return ingestedAt != null ? ingestedAt : event().path("ingestedAt").asText();
    }

    /** The sinks (logical target names) it goes to, or {@code null} for every sink. */
    public List<String> routes() {
        return routes;
    }

    /**
     * The event as the sinks write it, including {@code ingestedAt}: read from {@link #json()} the
     * first time it is asked for when the chain handed over bytes only. Shared, not copied: callers
     * must not modify it.
     */
    public ObjectNode event() {
        ObjectNode tree = event;
        if (tree == null) {
            tree = reader.apply(json);
            event = tree;
        }
        return tree;
    }

    /**
     * The event as UTF-8 JSON on one line, equal as JSON to {@link #event()}: the chain's spliced
     * bytes when it had them (no second serialisation), else {@code event().toString()}. The array
     * is shared: callers must not modify it.
     */
    public byte[] json() {
        return json != null ? json : event().toString().getBytes(StandardCharsets.UTF_8);
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
                && event().equals(other.event())
                && Objects.equals(routes, other.routes);
    }

    @Override
    public int hashCode() {
        return Objects.hash(source, eventId, key, occurredAt, event(), routes);
    }

    @Override
    public String toString() {
        return "ProcessedEvent[source=" + source + ", eventId=" + eventId + ", key=" + key + ", occurredAt="
                + occurredAt + ", event=" + event() + ", routes=" + routes + "]";
    }
}
