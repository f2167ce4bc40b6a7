package dev.sluice.core.stage;

import dev.sluice.core.event.Position;
import dev.sluice.core.event.ProcessedEvent;
import java.util.List;
import java.util.Set;

/**
 * A sink that also recognises producer re-sends: the same {@code eventId} arriving again at
 * another position (a producer retried a put whose answer it never got). The first position of
 * an event wins; a re-send is absorbed here, and the stage keeps it out of every other sink.
 * Written before the stage's other sinks.
 */
public interface DeduplicatingSink extends EventSink {

    /**
     * What the write did, and which of the events are re-sends.
     *
     * @param report applied and absorbed events (re-sends are absorbed)
     * @param resent positions of events whose {@code eventId} was first seen at another position
     * @param inLake with a {@link ClaimingSink}: positions of planned events that are already in it,
     *     in an object of an earlier write their item names (not written again); every other planned
     *     event that is not a re-send is assigned to the plan's object
     */
    record Gated(SinkReport report, Set<Position> resent, Set<Position> inLake) {

        public Gated {
            resent = Set.copyOf(resent);
            inLake = Set.copyOf(inLake);
        }

        public Gated(SinkReport report, Set<Position> resent) {
            this(report, resent, Set.of());
        }
    }

    /** Writes like {@link #write}, reporting re-sends. */
    Gated writeAndGate(List<ProcessedEvent> events) throws SinkException;

    /**
     * Writes like {@link #writeAndGate(List)}, and also claims the events {@code plan} names for
     * {@code claims}: a new event's item stores its object key (it is assigned to it); a replayed
     * event whose item names another object is in the lake already if that object holds records, and
     * is otherwise re-pointed to the plan's object (assigned). See {@link ClaimingSink} for why.
     */
    default Gated writeAndGate(List<ProcessedEvent> events, ClaimingSink claims, ClaimingSink.Plan plan)
            throws SinkException {
        throw new SinkException(name() + " cannot record the claims of " + claims.name(), false, null);
    }

    @Override
    default SinkReport write(List<ProcessedEvent> events) throws SinkException {
        return writeAndGate(events).report();
    }
}
