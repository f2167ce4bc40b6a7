package dev.sluice.core.definition;

/**
 * One sink of a stage; exactly one field is set, naming the target by its logical name.
 *
 * @param lake an S3 lake prefix
 * @param table a DynamoDB serving table
 */
public record SinkDefinition(String lake, String table) {

    /** The kind of target. */
    public enum Kind {
        LAKE,
        TABLE
    }

    /** Which kind of sink this is. */
    public Kind kind() {
        return lake != null ? Kind.LAKE : Kind.TABLE;
    }

    /** The logical name of the target. */
    public String target() {
        return lake != null ? lake : table;
    }
}
