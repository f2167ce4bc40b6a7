package dev.sluice.core.testing;

import dev.sluice.core.stage.AggregateSink;
import dev.sluice.core.stage.SinkException;
import dev.sluice.core.stage.SinkReport;
import dev.sluice.core.window.PartialAggregate;
import java.util.ArrayList;
import java.util.List;

/**
 * An aggregate sink in memory: keeps the partials it was given and reports every record they count
 * as applied; it can be told to fail (retryably, as a lost optimistic-lock race does) its next
 * writes.
 */
public final class MemoryAggregates implements AggregateSink {

    private final List<PartialAggregate> written = new ArrayList<>();
    private int failures;

    @Override
    public String name() {
        return "memory-aggregates";
    }

    @Override
    public synchronized SinkReport write(List<PartialAggregate> partials) throws SinkException {
        if (failures > 0) {
            failures--;
            throw new SinkException("condition contention", true, null);
        }
        written.addAll(partials);
        return new SinkReport(
                (int) partials.stream().mapToLong(PartialAggregate::count).sum(), 0);
    }

    /** The next {@code times} writes fail (retryably). */
    public synchronized MemoryAggregates failNext(int times) {
        failures = times;
        return this;
    }

    /** Every partial written so far, in order. */
    public synchronized List<PartialAggregate> written() {
        return List.copyOf(written);
    }
}
