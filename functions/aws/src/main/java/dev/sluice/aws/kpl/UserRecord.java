package dev.sluice.aws.kpl;

import java.util.Objects;

/**
 * One user record of a KPL-aggregated Kinesis record.
 *
 * @param partitionKey its own partition key
 * @param explicitHashKey its explicit hash key (a decimal 128-bit number), or {@code null}
 * @param data its bytes
 */
public record UserRecord(String partitionKey, String explicitHashKey, byte[] data) {

    public UserRecord {
        Objects.requireNonNull(partitionKey, "partitionKey");
        Objects.requireNonNull(data, "data");
    }

    /** A user record without an explicit hash key. */
    public UserRecord(String partitionKey, byte[] data) {
        this(partitionKey, null, data);
    }
}
