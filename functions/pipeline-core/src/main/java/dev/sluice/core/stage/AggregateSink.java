package dev.sluice.core.stage;

import dev.sluice.core.window.PartialAggregate;
import java.util.List;

/**
 * Applies a batch's partial aggregates, one write per (aggregate, key, window), guarded so that a
 * redelivered batch adds nothing.
 */
public interface AggregateSink {

    /** A name for logs and metrics. */
    String name();

    /** Applies the partials and returns only when they are durable. */
    SinkReport write(List<PartialAggregate> partials) throws SinkException;
}
