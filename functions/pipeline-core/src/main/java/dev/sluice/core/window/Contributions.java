package dev.sluice.core.window;

import java.math.BigDecimal;
import java.util.Arrays;
import java.util.Objects;

/**
 * What each record contributed to one {@link PartialAggregate}: its sequence number and, when SUM,
 * MIN or MAX is computed, its value. Kept so that a partial can be restricted to the records after
 * a watermark ({@link PartialAggregate#after}) when a redelivered batch straddles what the sink has
 * already counted. The user records of one KPL-aggregated Kinesis record share its sequence number
 * and differ by sub-sequence ({@link SequenceNumbers}): each user record is a unit of restriction,
 * so a redelivered aggregate of which only some records were counted adds only the others.
 *
 * <p>Immutable once built; {@link TumblingWindows.Batch} hands over its arrays without copying them
 * when the batch finishes. Equality is by content.
 */
public final class Contributions {

    private final String[] sequenceNumbers;
    private final BigDecimal[] values;
    private final int size;

    /**
     * Takes ownership of the arrays: the caller must not change them afterwards.
     *
     * @param sequenceNumbers the records' sequence numbers, at least {@code size} of them
     * @param values the records' values, at least {@code size} of them, or {@code null} when only
     *     COUNT is computed
     * @param size how many of the arrays' first entries are contributions
     */
    Contributions(String[] sequenceNumbers, BigDecimal[] values, int size) {
        if (size < 0 || size > sequenceNumbers.length || (values != null && size > values.length)) {
            throw new IllegalArgumentException("bad contribution count " + size);
        }
        this.sequenceNumbers = sequenceNumbers;
        this.values = values;
        this.size = size;
    }

    /**
     * Contributions from parallel lists (tests, tools); copies them.
     *
     * @param values {@code null} when only COUNT is computed, else one value per sequence number
     */
    public static Contributions of(java.util.List<String> sequenceNumbers, java.util.List<BigDecimal> values) {
        String[] sequences = sequenceNumbers.toArray(String[]::new);
        for (String s : sequences) {
            SequenceNumbers.requireValid(s, "sequenceNumber");
        }
        BigDecimal[] amounts = null;
        if (values != null) {
            if (values.size() != sequences.length) {
                throw new IllegalArgumentException(
                        values.size() + " values for " + sequences.length + " sequence numbers");
            }
            amounts = values.toArray(BigDecimal[]::new);
            for (BigDecimal v : amounts) {
                Objects.requireNonNull(v, "value");
            }
        }
        return new Contributions(sequences, amounts, sequences.length);
    }

    /** How many records contributed. */
    public int size() {
        return size;
    }

    /** Whether values are kept (SUM, MIN or MAX is computed). */
    public boolean hasValues() {
        return values != null;
    }

    /** The {@code i}-th record's sequence number. */
    public String sequenceNumber(int i) {
        Objects.checkIndex(i, size);
        return sequenceNumbers[i];
    }

    /** The {@code i}-th record's value, or {@code null} when values are not kept. */
    public BigDecimal value(int i) {
        Objects.checkIndex(i, size);
        return values == null ? null : values[i];
    }

    /** These contributions followed by {@code other}'s. */
    Contributions concat(Contributions other) {
        if ((values == null) != (other.values == null)) {
            throw new IllegalArgumentException("cannot concatenate contributions with values and ones without");
        }
        String[] sequences = Arrays.copyOf(sequenceNumbers, size + other.size);
        System.arraycopy(other.sequenceNumbers, 0, sequences, size, other.size);
        BigDecimal[] amounts = null;
        if (values != null) {
            amounts = Arrays.copyOf(values, size + other.size);
            System.arraycopy(other.values, 0, amounts, size, other.size);
        }
        return new Contributions(sequences, amounts, size + other.size);
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof Contributions other) || size != other.size || (values == null) != (other.values == null)) {
            return false;
        }
        for (int i = 0; i < size; i++) {
            if (!sequenceNumbers[i].equals(other.sequenceNumbers[i])
                    || (values != null && !values[i].equals(other.values[i]))) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int hashCode() {
        int h = size;
        for (int i = 0; i < size; i++) {
            h = 31 * h + sequenceNumbers[i].hashCode();
            if (values != null) {
                h = 31 * h + values[i].hashCode();
            }
        }
        return h;
    }

    @Override
    public String toString() {
        return "Contributions[" + size + (values == null ? "" : " with values") + "]";
    }
}
