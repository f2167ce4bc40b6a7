package dev.sluice.core.definition;

/**
 * A prefix of the pipeline's S3 lake bucket. Objects below it are partitioned by event date and
 * hour.
 *
 * @param prefix key prefix, ending in {@code /}
 * @param retentionDays days before objects expire; {@code null} keeps them forever
 */
public record LakeDefinition(String prefix, Integer retentionDays) {}
