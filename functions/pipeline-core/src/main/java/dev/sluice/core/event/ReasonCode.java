package dev.sluice.core.event;

/** Why a record went to the dead-letter queue. */
public enum ReasonCode {
    /** The bytes are not JSON, or not a JSON object. */
    MALFORMED_JSON,
    /**
     * The record is a KPL aggregate (it starts with the magic bytes {@code F3 89 9A C2}) that cannot
     * be de-aggregated: its MD5 digest does not match its protobuf bytes, or they do not decode. The
     * whole record is dead-lettered, its bytes as read.
     */
    MALFORMED_AGGREGATE,
    /** The record is larger than a stage accepts. */
    OVERSIZE,
    /** {@code occurredAt} is absent: every event must be timestamped. */
    MISSING_TIMESTAMP,
    /** {@code occurredAt} is not an RFC 3339 date-time with an offset. */
    INVALID_TIMESTAMP,
    /** {@code type} is absent or names no schema the stream carries. */
    UNKNOWN_TYPE,
    /** The event breaks its JSON Schema. */
    SCHEMA_INVALID,
    /** No reference data for the event's join key, and the stage's miss policy dead-letters it. */
    ENRICHMENT_MISS,
    /** The event arrived after its window closed (plus allowed lateness): a side output, not a loss. */
    LATE,
    /** A step failed on this record in a way no rule foresaw (a bug or data the steps cannot read). */
    STEP_FAILED,
    /**
     * A target refused the record for good (a validation error such as an item over DynamoDB's size
     * limit). Other targets of the stage may hold it; the detail names the one that refused.
     */
    SINK_REJECTED
}
