package dev.sluice.core.testing;

import dev.sluice.core.event.ProcessedEvent;
import dev.sluice.core.stage.EventSink;
import dev.sluice.core.stage.SinkException;
import dev.sluice.core.stage.SinkReport;
import java.util.ArrayList;
import java.util.List;

/**
 * An event sink in memory: keeps what it was given, in order, and fails with a retryable {@link
 * SinkException} (as a throttled store does) as often as told.
 */
public final class MemorySink implements EventSink {

    private final String name;
    private final List<ProcessedEvent> written = new ArrayList<>();
    private int failures;

    /** A sink named {@code memory}. */
    public MemorySink() {
        this("memory");
    }

    public MemorySink(String name) {
        this.name = name;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public synchronized SinkReport write(List<ProcessedEvent> events) throws SinkException {
        if (failures > 0) {
            failures--;
            throw new SinkException("ProvisionedThroughputExceededException", true, null);
        }
        written.addAll(events);
        return new SinkReport(events.size(), 0);
    }

    /** The next {@code times} writes fail (retryably); {@link Integer#MAX_VALUE} for every one. */
    public synchronized MemorySink failNext(int times) {
        failures = times;
        return this;
    }

    /** Every event written so far, in order. */
    public synchronized List<ProcessedEvent> written() {
        return List.copyOf(written);
    }
}
