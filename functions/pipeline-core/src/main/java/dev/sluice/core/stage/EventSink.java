package dev.sluice.core.stage;

import dev.sluice.core.event.ProcessedEvent;
import java.util.List;

/**
 * A target of a stage (lake, table, stream). Implementations live at the edge (AWS adapters) and
 * must be idempotent: writing the same events again, or any part of them, takes no second effect.
 */
public interface EventSink {

    /** A name for logs and metrics, e.g. {@code table:payments-by-id}. */
    String name();

    /**
     * Writes the accepted events of a batch, in batch order, and returns only when they are durable.
     *
     * @throws SinkException if they may not all be durable; the batch is then delivered again
     */
    SinkReport write(List<ProcessedEvent> events) throws SinkException;
}
