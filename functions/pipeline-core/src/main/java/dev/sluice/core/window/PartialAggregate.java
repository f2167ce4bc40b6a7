package dev.sluice.core.window;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * The aggregate of the events of one batch that fall in one (key, window), as one shard delivered
 * them. A batch yields at most one partial per (key, window); the DynamoDB aggregate sink applies
 * it with one conditional update guarded by the shard's watermark: a partial whose sequence range
 * the item has already seen is a replay and adds nothing.
 *
 * <p>Partials are a pure function of the records of their batch, so adding up (with
 * {@link #merge}) the partials of any split of a shard's records into consecutive batches gives the
 * partial of the whole.
 *
 * <p>A redelivered batch may be longer than the one the sink applied (the first delivery's records
 * again, plus newer ones), so a partial may straddle the shard's watermark: {@link #after} restricts
 * it to the records after the watermark, re-aggregated from its {@link Contributions}.
 *
 * @param aggregate the aggregate's name (a stage may compute several)
 * @param key the grouping key
 * @param windowStart first instant of the window, inclusive
 * @param windowEnd end of the window, exclusive
 * @param count number of events, at least 1
 * @param sum exact sum of the values, or {@code null} when {@link AggregateFunction#SUM} is not
 *     computed
 * @param min smallest value, or {@code null} when {@link AggregateFunction#MIN} is not computed
 * @param max largest value, or {@code null} when {@link AggregateFunction#MAX} is not computed
 * @param shardId the shard the events were read from
 * @param firstSequenceNumber the smallest sequence number among the events
 * @param lastSequenceNumber the greatest sequence number among the events
 * @param contributions each event's sequence number (and value), or {@code null} when unknown
 *     (then the partial can be applied whole or recognised as a duplicate, not restricted)
 */
public record PartialAggregate(
        String aggregate,
        String key,
        Instant windowStart,
        Instant windowEnd,
        long count,
        BigDecimal sum,
        BigDecimal min,
        BigDecimal max,
        String shardId,
        String firstSequenceNumber,
        String lastSequenceNumber,
        Contributions contributions) {

    public PartialAggregate {
        Objects.requireNonNull(aggregate, "aggregate");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(windowStart, "windowStart");
        Objects.requireNonNull(windowEnd, "windowEnd");
        Objects.requireNonNull(shardId, "shardId");
        SequenceNumbers.requireValid(firstSequenceNumber, "firstSequenceNumber");
        // a partial of one event (the commonest) has one sequence number for both ends
        boolean oneSequence = lastSequenceNumber == firstSequenceNumber;
        if (!oneSequence) {
            SequenceNumbers.requireValid(lastSequenceNumber, "lastSequenceNumber");
        }
        if (!windowStart.isBefore(windowEnd)) {
            throw new IllegalArgumentException("window end " + windowEnd + " is not after its start " + windowStart);
        }
        if (count < 1) {
            throw new IllegalArgumentException("a partial aggregate holds at least one event, not " + count);
        }
        if (!oneSequence && SequenceNumbers.compare(firstSequenceNumber, lastSequenceNumber) > 0) {
            throw new IllegalArgumentException(
                    "first sequence number " + firstSequenceNumber + " is after the last " + lastSequenceNumber);
        }
        if (min != null && max != null && min.compareTo(max) > 0) {
            throw new IllegalArgumentException("min " + min + " is greater than max " + max);
        }
        if (contributions != null && contributions.size() != count) {
            throw new IllegalArgumentException(
                    contributions.size() + " contributions for a partial aggregate of " + count + " events");
        }
    }

    /** A partial whose contributions are not known: it cannot be {@linkplain #after restricted}. */
    public PartialAggregate(
            String aggregate,
            String key,
            Instant windowStart,
            Instant windowEnd,
            long count,
            BigDecimal sum,
            BigDecimal min,
            BigDecimal max,
            String shardId,
            String firstSequenceNumber,
            String lastSequenceNumber) {
        this(
                aggregate,
                key,
                windowStart,
                windowEnd,
                count,
                sum,
                min,
                max,
                shardId,
                firstSequenceNumber,
                lastSequenceNumber,
                null);
    }

    /**
     * The part of this partial that a sink whose shard watermark is {@code watermark} has not
     * counted yet: the events whose sequence number is after it.
     *
     * <ul>
     *   <li>no watermark, or every event after it: this partial, whole;
     *   <li>every event at or before it: empty (an absorbed duplicate);
     *   <li>the partial straddles it: a new partial re-aggregated from only the events after it
     *       (count, sum, min, max and sequence range), with those events' contributions.
     * </ul>
     *
     * @param watermark the sequence number (canonical, no leading zeros; see {@link
     *     SequenceNumbers#fromFixedWidth}) of the shard's last event already counted, or {@code null}
     *     when none is
     * @throws IllegalStateException if the partial straddles the watermark but its contributions
     *     are unknown
     */
    public Optional<PartialAggregate> after(String watermark) {
        if (watermark == null) {
            return Optional.of(this);
        }
        SequenceNumbers.requireValid(watermark, "watermark");
        if (SequenceNumbers.compare(firstSequenceNumber, watermark) > 0) {
            return Optional.of(this);
        }
        if (SequenceNumbers.compare(lastSequenceNumber, watermark) <= 0) {
            return Optional.empty();
        }
        if (contributions == null) {
            throw new IllegalStateException("partial aggregate " + aggregate + "/" + key + "/" + window()
                    + " straddles watermark " + watermark + " but its contributions are unknown");
        }
        return only(sequence -> SequenceNumbers.compare(sequence, watermark) > 0);
    }

    /**
     * The part of this partial made of the records whose sequence number {@code keep} accepts,
     * re-aggregated from its {@link Contributions} (count, sum, min, max and sequence range); empty
     * when it accepts none. A sink uses it to leave out records the store refuses.
     *
     * @throws IllegalStateException if the contributions are unknown
     */
    public Optional<PartialAggregate> only(java.util.function.Predicate<String> keep) {
        if (contributions == null) {
            throw new IllegalStateException("partial aggregate " + aggregate + "/" + key + "/" + window()
                    + " cannot be restricted: its contributions are unknown");
        }
        int n = contributions.size();
        String[] sequences = new String[n];
        BigDecimal[] values = contributions.hasValues() ? new BigDecimal[n] : null;
        int kept = 0;
        BigDecimal newSum = sum == null ? null : BigDecimal.ZERO;
        BigDecimal newMin = null;
        BigDecimal newMax = null;
        String first = null;
        String last = null;
        for (int i = 0; i < n; i++) {
            String sequence = contributions.sequenceNumber(i);
            if (!keep.test(sequence)) {
                continue;
            }
            sequences[kept] = sequence;
            BigDecimal value = contributions.value(i);
            if (values != null) {
                values[kept] = value;
            }
            kept++;
            if (first == null || SequenceNumbers.compare(sequence, first) < 0) {
                first = sequence;
            }
            if (last == null || SequenceNumbers.compare(sequence, last) > 0) {
                last = sequence;
            }
            if (newSum != null) {
                newSum = newSum.add(value);
            }
            if (min != null && (newMin == null || value.compareTo(newMin) < 0)) {
                newMin = value;
            }
            if (max != null && (newMax == null || value.compareTo(newMax) > 0)) {
                newMax = value;
            }
        }
        if (kept == 0) {
            return Optional.empty();
        }
        return Optional.of(new PartialAggregate(
                aggregate,
                key,
                windowStart,
                windowEnd,
                kept,
                newSum,
                newMin,
                newMax,
                shardId,
                first,
                last,
                new Contributions(sequences, values, kept)));
    }

    /**
     * Adds another partial of the same aggregate, key, window and shard: counts and sums add up, the
     * smaller min and greater max are kept (the earlier operand's on a tie), the sequence range
     * widens to cover both, and the contributions are this one's followed by the other's (unknown if
     * either's are).
     *
     * @throws IllegalArgumentException if the two are not of the same aggregate, key, window and
     *     shard, or do not carry the same functions
     */
    public PartialAggregate merge(PartialAggregate other) {
        requireSame("aggregate", aggregate, other.aggregate);
        requireSame("key", key, other.key);
        requireSame("window start", windowStart, other.windowStart);
        requireSame("window end", windowEnd, other.windowEnd);
        requireSame("shard", shardId, other.shardId);
        return new PartialAggregate(
                aggregate,
                key,
                windowStart,
                windowEnd,
                Math.addExact(count, other.count),
                combine("sum", sum, other.sum, 0),
                combine("min", min, other.min, -1),
                combine("max", max, other.max, 1),
                shardId,
                SequenceNumbers.compare(other.firstSequenceNumber, firstSequenceNumber) < 0
                        ? other.firstSequenceNumber
                        : firstSequenceNumber,
                SequenceNumbers.compare(other.lastSequenceNumber, lastSequenceNumber) > 0
                        ? other.lastSequenceNumber
                        : lastSequenceNumber,
                contributions == null || other.contributions == null
                        ? null
                        : contributions.concat(other.contributions));
    }

    /** The window as people read it, e.g. {@code 2026-11-30T10:00:00Z/PT1M}. */
    public String window() {
        return windowStart + "/" + Duration.between(windowStart, windowEnd);
    }

    private static void requireSame(String what, Object mine, Object theirs) {
        if (!mine.equals(theirs)) {
            throw new IllegalArgumentException(
                    "cannot merge partial aggregates of different " + what + ": " + mine + " and " + theirs);
        }
    }

    /** Sum when {@code keep == 0}, otherwise the smaller ({@code -1}) or greater ({@code 1}). */
    private static BigDecimal combine(String what, BigDecimal mine, BigDecimal theirs, int keep) {
        if (mine == null || theirs == null) {
            if (mine != theirs) {
                throw new IllegalArgumentException(
                        "cannot merge a partial aggregate with a " + what + " and one without");
            }
            return null;
        }
        if (keep == 0) {
            return mine.add(theirs);
        }
        return Integer.signum(theirs.compareTo(mine)) == keep ? theirs : mine;
    }
}
