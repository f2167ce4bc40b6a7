package dev.sluice.core.stage;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.core.event.DeadLetter;
import dev.sluice.core.event.InboundRecord;
import dev.sluice.core.json.JsonEdits;
import dev.sluice.core.schema.EventSchema;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * One event on its way through a stage's chain: the record it came from, the parsed event that
 * steps read and change in place, and what the steps decided — dropped by a filter, routed to some
 * sinks only, or reported on a side output (late for a window) while it carries on.
 *
 * <p>The event is either the record's whole tree or, when the chain read the record in one pass over
 * its tokens, a sparse tree holding only the fields the steps said they read ({@link Step#reads()}).
 */
public final class EventContext {

    private final InboundRecord record;
    private final ObjectNode event;
    private Instant occurredAt;
    private boolean dropped;
    private List<String> routes;
    private List<DeadLetter> sideOutputs;
    private final JsonEdits edits = new JsonEdits();
    private final EventSchema validatedAgainst;
    private final int rootSize;
    private final boolean oneLine;

    /** An event read into its whole tree. */
    EventContext(InboundRecord record, ObjectNode event) {
        this(record, event, null, -1, false);
    }

    /**
     * An event read in one pass over its tokens.
     *
     * @param fields the sparse tree of the fields the steps read
     * @param validatedAgainst the schema the pass found the event valid against
     * @param rootSize how many members the event's root object has
     * @param oneLine whether the record is known to hold no line break
     */
    EventContext(InboundRecord record, ObjectNode fields, EventSchema validatedAgainst, int rootSize, boolean oneLine) {
        this.record = record;
        this.event = fields;
        this.validatedAgainst = validatedAgainst;
        this.rootSize = rootSize;
        this.oneLine = oneLine;
    }

    /** Whether the record is known to hold no line feed and no carriage return. */
    boolean oneLine() {
        return oneLine;
    }

    /** The schema the chain's token pass found the event valid against, or {@code null}. */
    EventSchema validatedAgainst() {
        return validatedAgainst;
    }

    /** Whether {@link #event()} holds only the fields the steps read. */
    boolean sparse() {
        return rootSize >= 0;
    }

    /** How many members the record's root object has, before any step changed it. */
    int rootSize() {
        return rootSize >= 0 ? rootSize : event.size();
    }

    /** The record as read from the stream. */
    public InboundRecord record() {
        return record;
    }

    /** The event; steps change it in place. */
    public ObjectNode event() {
        return event;
    }

    /**
     * The event time, parsed once from {@code occurredAt} (RFC 3339); {@code null} if absent or
     * not a date-time.
     */
    public Instant occurredAt() {
        if (occurredAt == null) {
            JsonNode text = event.get(Envelope.OCCURRED_AT);
            if (text != null && text.isTextual()) {
                occurredAt = Timestamps.parse(text.textValue());
            }
        }
        return occurredAt;
    }

    /**
     * The changes made to the event so far, as edits of the record's bytes; steps that change the
     * tree record them here (or the chain marks them not intact).
     */
    public JsonEdits edits() {
        return edits;
    }

    /** Ends the event's way through the chain without an error (a filter said no). */
    public void drop() {
        dropped = true;
    }

    public boolean dropped() {
        return dropped;
    }

    /**
     * Sends the event only to these sinks (logical target names); without a call it goes to every
     * sink of the stage.
     */
    public void routeTo(List<String> targets) {
        routes = List.copyOf(targets);
    }

    /** The sinks chosen by a route step, or {@code null} for all. */
    public List<String> routes() {
        return routes;
    }

    /** Reports the event on a side output (e.g. {@code LATE}); the event itself carries on. */
    public void sideOutput(DeadLetter report) {
        if (sideOutputs == null) {
            sideOutputs = new ArrayList<>(1);
        }
        sideOutputs.add(report);
    }

    List<DeadLetter> sideOutputs() {
        return sideOutputs == null ? List.of() : sideOutputs;
    }
}
