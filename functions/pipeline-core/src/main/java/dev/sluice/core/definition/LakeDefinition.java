package dev.sluice.core.definition;

/**
 * A prefix of the pipeline's S3 lake bucket. Objects below it are partitioned by event date and
 * hour.
 *
 * @param prefix key prefix, ending in {@code /}
 * @param retentionDays days before objects expire; {@code null} keeps them forever
 */
public record LakeDefinition(String prefix, Integer retentionDays) {

    /**
     * The attribute of the lake's commit ledger items holding when DynamoDB may delete them (epoch
     * seconds, the table's time-to-live attribute): each write sets it to the write time plus the
     * input stream's retention and a day, after which no record the item guards can be delivered
     * again.
     */
    public static final String LEDGER_EXPIRES_AT = "expiresAt";
}
