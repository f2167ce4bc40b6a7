package dev.sluice.core.event;

/** Why a record went to the dead-letter queue. */
public enum ReasonCode {
    /** The bytes are not JSON, or not a JSON object. */
    MALFORMED_JSON,
    /** The record is larger than a stage accepts. */
    OVERSIZE,
    /** {@code occurredAt} is absent: every event must be timestamped. */
    MISSING_TIMESTAMP,
    /** {@code occurredAt} is not an RFC 3339 date-time with an offset. */
    INVALID_TIMESTAMP,
    /** {@code type} is absent or names no schema the stream carries. */
    UNKNOWN_TYPE,
    /** The event breaks its JSON Schema. */
    SCHEMA_INVALID
}
