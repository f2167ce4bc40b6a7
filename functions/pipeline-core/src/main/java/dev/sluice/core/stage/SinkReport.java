package dev.sluice.core.stage;

import dev.sluice.core.event.ProcessedEvent;
import java.util.List;

/**
 * What a sink did with a batch.
 *
 * @param applied events that took effect now
 * @param absorbedDuplicates events that had already taken effect (replays), counted, not applied
 * @param rejected events the target refused for good (a validation error, e.g. an item over the
 *     size limit): fatal for the record, which goes to the dead-letter queue, never for the batch
 */
public record SinkReport(int applied, int absorbedDuplicates, List<Rejected> rejected) {

    public static final SinkReport EMPTY = new SinkReport(0, 0);

    /** An event a target refused, and why. */
    public record Rejected(ProcessedEvent event, String reason) {}

    public SinkReport {
        rejected = List.copyOf(rejected);
    }

    public SinkReport(int applied, int absorbedDuplicates) {
        this(applied, absorbedDuplicates, List.of());
    }
}
