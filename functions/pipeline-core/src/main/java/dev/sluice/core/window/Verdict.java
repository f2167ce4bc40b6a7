package dev.sluice.core.window;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * What {@link TumblingWindows.Batch#add} did with one event: {@link #ACCEPTED} into its (key,
 * window), {@link Late} (the chain sends the record to a side output with reason {@code LATE}), or
 * {@link Invalid} (the event cannot be aggregated; the chain sends the record to the dead-letter
 * queue). Late and invalid events are not part of any {@link PartialAggregate}.
 */
public sealed interface Verdict permits Verdict.Accepted, Verdict.Late, Verdict.Invalid {

    /** The event was added to its (key, window). */
    Verdict ACCEPTED = Accepted.INSTANCE;

    /** The three outcomes, for a {@code switch}. */
    enum Kind {
        /** Added to its (key, window). */
        ACCEPTED,
        /** Arrived after its window closed and the allowed lateness ran out. */
        LATE,
        /** Cannot be aggregated, e.g. no value where SUM, MIN or MAX need one. */
        INVALID
    }

    /** Which outcome this is. */
    Kind kind();

    /** Whether the event was added to its (key, window). */
    default boolean accepted() {
        return kind() == Kind.ACCEPTED;
    }

    /** The reason as people read it; empty for {@link #ACCEPTED}. */
    String detail();

    /** The one accepted verdict; no allocation per accepted event. */
    enum Accepted implements Verdict {
        INSTANCE;

        @Override
        public Kind kind() {
            return Kind.ACCEPTED;
        }

        @Override
        public String detail() {
            return "";
        }
    }

    /**
     * The event arrived after {@code windowEnd + allowedLateness}; it is excluded from the
     * aggregate.
     *
     * @param aggregate the aggregate's name
     * @param windowStart start of the event's window, inclusive
     * @param windowEnd end of the event's window, exclusive: when the window closed
     * @param allowedLateness how long after the close events are still accepted
     * @param arrivedAt the record's arrival time in the stream, or the clock's time when the record
     *     had none
     * @param arrivalFromClock whether {@code arrivedAt} was read from the clock (then a redelivery
     *     may judge the record differently)
     */
    record Late(
            String aggregate,
            Instant windowStart,
            Instant windowEnd,
            Duration allowedLateness,
            Instant arrivedAt,
            boolean arrivalFromClock)
            implements Verdict {

        public Late {
            Objects.requireNonNull(aggregate, "aggregate");
            Objects.requireNonNull(windowStart, "windowStart");
            Objects.requireNonNull(windowEnd, "windowEnd");
            Objects.requireNonNull(allowedLateness, "allowedLateness");
            Objects.requireNonNull(arrivedAt, "arrivedAt");
        }

        @Override
        public Kind kind() {
            return Kind.LATE;
        }

        /** The last instant at which an event of this window was still on time. */
        public Instant limit() {
            return windowEnd.plus(allowedLateness);
        }

        /** By how much the event missed {@link #limit()}; always positive. */
        public Duration lateBy() {
            return Duration.between(limit(), arrivedAt);
        }

        /**
         * For example {@code aggregate 'spend-per-minute': window 2026-11-30T10:00:00Z/PT1M closed at
         * 2026-11-30T10:01:00Z + PT30S lateness; record arrived 2026-11-30T10:02:13Z, PT43S late}.
         */
        @Override
        public String detail() {
            return "aggregate '" + aggregate + "': window " + windowStart + "/"
                    + Duration.between(windowStart, windowEnd)
                    + " closed at " + windowEnd + " + " + allowedLateness + " lateness; record "
                    + (arrivalFromClock ? "had no arrival time and was processed at " : "arrived ") + arrivedAt
                    + ", " + lateBy() + " late";
        }
    }

    /**
     * The event cannot be aggregated; it is excluded from the aggregate.
     *
     * @param detail what is wrong, e.g. {@code aggregate 'spend-per-minute' computes SUM, MAX and
     *     needs a value; the event has none}
     */
    record Invalid(String detail) implements Verdict {

        public Invalid {
            Objects.requireNonNull(detail, "detail");
        }

        @Override
        public Kind kind() {
            return Kind.INVALID;
        }
    }
}
