package dev.sluice.core.stage;

import dev.sluice.core.event.Position;
import java.util.Map;
import java.util.Optional;

/**
 * The result of one batch through a stage and its sinks.
 *
 * @param received records in the batch
 * @param accepted records that passed the chain
 * @param deadLettered records sent to the dead-letter queue
 * @param sinks what each sink did, by sink name
 * @param failedFrom the first position that must be delivered again (everything from it on), or
 *     empty when the whole batch is done
 * @param failure why, when {@code failedFrom} is present
 */
public record BatchResult(
        int received,
        int accepted,
        int deadLettered,
        Map<String, SinkReport> sinks,
        Optional<Position> failedFrom,
        Optional<SinkException> failure) {

    public BatchResult {
        sinks = Map.copyOf(sinks);
    }

    /** Whether every record of the batch is done. */
    public boolean complete() {
        return failedFrom.isEmpty();
    }
}
