package dev.sluice.core.definition;

/**
 * One sink of a stage; exactly one field is set, naming the target by its logical name.
 *
 * @param lake an S3 lake prefix
 * @param table a DynamoDB serving table
 * @param stream another stream: a re-key hop, each record partitioned by that stream's
 *     {@code partitionKey}
 * @param aggregate for a stream sink: pack the records into KPL aggregates (off when {@code null})
 */
public record SinkDefinition(String lake, String table, String stream, Boolean aggregate) {

    /** A sink that does not aggregate. */
    public SinkDefinition(String lake, String table, String stream) {
        this(lake, table, stream, null);
    }

    /** Whether a stream sink packs its records into KPL aggregates. */
    public boolean aggregates() {
        return Boolean.TRUE.equals(aggregate);
    }

    /** The kind of target. */
    public enum Kind {
        LAKE,
        TABLE,
        STREAM
    }

    /** How many targets are named (a valid sink names exactly one). */
    public int targets() {
        return (lake == null ? 0 : 1) + (table == null ? 0 : 1) + (stream == null ? 0 : 1);
    }

    /** Which kind of sink this is. */
    public Kind kind() {
        return lake != null ? Kind.LAKE : table != null ? Kind.TABLE : Kind.STREAM;
    }

    /** The logical name of the target. */
    public String target() {
        return lake != null ? lake : table != null ? table : stream;
    }
}
