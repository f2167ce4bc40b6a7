package dev.sluice.core.stage;

import dev.sluice.core.event.ProcessedEvent;
import java.util.List;

/**
 * A sink whose membership of an event is recorded on the event's item in the stage's deduplicate
 * table rather than in a ledger of its own (the lake, on a stage that deduplicates): the
 * {@link DeduplicatingSink} stores, with the event's first position, the key of the object the
 * event is written to, and only the events it <em>assigns</em> to this batch's objects are written.
 *
 * <p>Why that is exact, with any number of concurrent batches of one shard (a parallelization
 * factor above 1): an event is in the lake only in the object its deduplicate item names, because
 * (1) a batch's objects hold exactly the events whose items name them, (2) object keys carry a
 * fresh random token per batch write, so no two writes share a key, and are put with {@code
 * If-None-Match: *}, never rewritten; (3) an item is re-pointed from an object to another only after
 * the old object is proven absent forever: it is a tombstone, an empty object claimed under its key
 * with {@code If-None-Match: *}, which the late write it stands for can no longer replace. An
 * existing object is final, so an event whose item names one is in the lake and absorbed.
 */
public interface ClaimingSink extends EventSink {

    /** One batch write's objects: a fresh token and the object key each of its events goes to. */
    interface Plan {

        /** The key of the object this event goes to if it is assigned to this batch. */
        String keyOf(ProcessedEvent event);
    }

    /** Plans a batch write of these events (those routed to this sink), under a fresh token. */
    Plan plan(List<ProcessedEvent> events);

    /**
     * Whether the object under {@code key} holds its records for good.
     *
     * @return {@code true} if it exists and is not a tombstone (its events are in the target);
     *     {@code false} if it is a tombstone or was missing and has now been claimed with one: it
     *     will never hold records, and an event naming it may be re-pointed to another object
     * @throws SinkException if that cannot be told now (retryable)
     */
    boolean holdsRecords(String key) throws SinkException;

    /**
     * Writes the events the deduplicate sink assigned to the plan's objects (a subset of the planned
     * events, in batch order): per object, exactly those events.
     *
     * @param absorbed planned events already in the target under another object, for the report
     * @throws SinkException retryable if an object of the plan was claimed by another invocation (this
     *     one is stale; the batch's next delivery re-points its events)
     */
    SinkReport write(Plan plan, List<ProcessedEvent> assigned, int absorbed) throws SinkException;
}
