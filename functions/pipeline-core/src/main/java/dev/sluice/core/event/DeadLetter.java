package dev.sluice.core.event;

import java.util.Objects;

/**
 * A record that cannot be processed, on its way to the dead-letter queue.
 *
 * @param source the record as read, with its payload and position
 * @param code why, as a stable code for metrics and alarms
 * @param detail the precise problem, e.g. {@code $.payload.amount: must have an exclusive minimum
 *     value of 0 (exclusiveMinimum)}
 */
public record DeadLetter(InboundRecord source, ReasonCode code, String detail) {

    public DeadLetter {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(code, "code");
        detail = detail == null ? "" : detail;
    }

    /**
     * Where the dead-letter claim checks of a queue live in the pipeline's bucket: {@code
     * sluice-dead-letters/<queue>/}. Outside every lake prefix, so no persona but {@code admin}
     * reads them; the stages that dead-letter to the queue may only put objects here.
     */
    public static String claimCheckPrefix(String queue) {
        return CLAIM_CHECK_ROOT + queue + "/";
    }

    /** The folder of the pipeline's bucket that holds every claim check. */
    public static final String CLAIM_CHECK_ROOT = "sluice-dead-letters/";

    /**
     * The claim check's key for this record: deterministic (queue, stage, stream, shard, sequence
     * and sub-sequence), so a redelivered batch writes the same key again.
     */
    public String claimCheckKey(String queue, String stage) {
        Position position = source.position();
        return claimCheckPrefix(queue) + stage + "/" + source.stream() + "/" + position.shardId() + "/"
                + position.sequenceNumber() + (position.subSequence() == 0 ? "" : "-" + position.subSequence());
    }

    /** The reason as shown to people: {@code SCHEMA_INVALID: $.payload.amount: ...}. */
    public String reason() {
        return detail.isEmpty() ? code.name() : code.name() + ": " + detail;
    }
}
