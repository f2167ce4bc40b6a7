package dev.sluice.core.event;

import java.util.Comparator;
import java.util.Objects;

/**
 * Where a record sits in a stream: shard and sequence number (plus the sub-sequence of a record
 * taken out of an aggregated one). Positions order the records of one shard.
 *
 * @param shardId the shard, e.g. {@code shardId-000000000001}
 * @param sequenceNumber Kinesis sequence number, decimal digits
 * @param subSequence index inside an aggregated record, 0 otherwise
 */
public record Position(String shardId, String sequenceNumber, long subSequence) implements Comparable<Position> {

    /**
     * Width of the sequence number in {@link #sortable()}: the Kinesis API allows up to 129 decimal
     * digits ({@code 0|([1-9]\d{0,128})}); today's numbers have 56.
     */
    public static final int SEQUENCE_WIDTH = 129;

    private static final Comparator<Position> ORDER =
            Comparator.comparing(Position::shardId).thenComparing(Position::sortable);

    public Position {
        Objects.requireNonNull(shardId, "shardId");
        Objects.requireNonNull(sequenceNumber, "sequenceNumber");
        if (sequenceNumber.isEmpty() || sequenceNumber.length() > SEQUENCE_WIDTH || !digits(sequenceNumber)) {
            throw new IllegalArgumentException("not a Kinesis sequence number: '" + sequenceNumber + "'");
        }
        if (subSequence < 0 || subSequence > 99_999) {
            throw new IllegalArgumentException("sub-sequence out of range: " + subSequence);
        }
    }

    public static Position of(String shardId, String sequenceNumber) {
        return new Position(shardId, sequenceNumber, 0);
    }

    /**
     * The sequence number as a fixed-width string that compares like the number itself, followed by
     * the sub-sequence: sequence numbers are compared as strings, never as doubles.
     */
    public String sortable() {
        StringBuilder s = new StringBuilder(SEQUENCE_WIDTH + 6);
        s.append("0".repeat(SEQUENCE_WIDTH - sequenceNumber.length())).append(sequenceNumber);
        String sub = Long.toString(subSequence);
        s.append('.').append("0".repeat(5 - sub.length())).append(sub);
        return s.toString();
    }

    /**
     * The sequence of this user record as the aggregate windows and sink count it: the sequence
     * number alone when the sub-sequence is 0 (every record that was not aggregated), else {@code
     * sequenceNumber.subSequence} (see {@code dev.sluice.core.window.SequenceNumbers}).
     */
    public String sequence() {
        return subSequence == 0 ? sequenceNumber : sequenceNumber + "." + subSequence;
    }

    @Override
    public int compareTo(Position other) {
        return ORDER.compare(this, other);
    }

    @Override
    public String toString() {
        return shardId + "/" + sequenceNumber + (subSequence == 0 ? "" : "." + subSequence);
    }

    private static boolean digits(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }
}
