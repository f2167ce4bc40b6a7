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

    /** The reason as shown to people: {@code SCHEMA_INVALID: $.payload.amount: ...}. */
    public String reason() {
        return detail.isEmpty() ? code.name() : code.name() + ": " + detail;
    }
}
