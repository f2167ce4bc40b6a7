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
     */
    record Gated(SinkReport report, Set<Position> resent) {

        public Gated {
            resent = Set.copyOf(resent);
        }
    }

    /** Writes like {@link #write}, reporting re-sends. */
    Gated writeAndGate(List<ProcessedEvent> events) throws SinkException;

    @Override
    default SinkReport write(List<ProcessedEvent> events) throws SinkException {
        return writeAndGate(events).report();
    }
}
