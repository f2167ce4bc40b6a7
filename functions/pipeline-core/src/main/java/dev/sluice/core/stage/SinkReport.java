package dev.sluice.core.stage;

import dev.sluice.core.event.ProcessedEvent;
import java.util.List;
import java.util.Objects;

/**
 * What a sink did with a batch.
 *
 * @param applied events that took effect now
 * @param absorbedDuplicates events that had already taken effect (replays), counted, not applied
 * @param rejected events the target refused for good (a validation error, e.g. an item over the
 *     size limit): fatal for the record, which goes to the dead-letter queue, never for the batch
 * @param refused records the target refused for good, known by their position only: the aggregate
 *     sink sees partial aggregates, not events, and names the records it left out of them; the
 *     batch processor dead-letters each such record like a {@link Rejected} event
 */
public record SinkReport(int applied, int absorbedDuplicates, List<Rejected> rejected, List<Refused> refused) {

    public static final SinkReport EMPTY = new SinkReport(0, 0);

    /** An event a target refused, and why. */
    public record Rejected(ProcessedEvent event, String reason) {}

    /**
     * A record a target refused, by position: every event of the batch read from this shard at this
     * sequence ({@link dev.sluice.core.event.Position#sequence()}: the sequence number, and the
     * sub-sequence of a user record of a KPL-aggregated record).
     *
     * @param reason the target's own message, e.g. DynamoDB's {@code ValidationException} text
     */
    public record Refused(String shardId, String sequenceNumber, String reason) {
        public Refused {
            Objects.requireNonNull(shardId, "shardId");
            Objects.requireNonNull(sequenceNumber, "sequenceNumber");
            Objects.requireNonNull(reason, "reason");
        }
    }

    public SinkReport {
        rejected = List.copyOf(rejected);
        refused = List.copyOf(refused);
    }

    public SinkReport(int applied, int absorbedDuplicates, List<Rejected> rejected) {
        this(applied, absorbedDuplicates, rejected, List.of());
    }

    public SinkReport(int applied, int absorbedDuplicates) {
        this(applied, absorbedDuplicates, List.of(), List.of());
    }
}
