package dev.sluice.local.provision;

/**
 * A Kinesis stream's settings from the template ({@code AWS::Kinesis::Stream}).
 *
 * @param name the local stream name
 * @param onDemand {@code StreamModeDetails.StreamMode} is {@code ON_DEMAND}
 * @param shards {@code ShardCount} of a provisioned stream (0 when on demand)
 * @param retentionHours {@code RetentionPeriodHours} (24 when absent)
 * @param encryption {@code StreamEncryption.EncryptionType} ({@code KMS}) or {@code NONE}; recorded
 *     only: kinesis-mock does not enforce it and there is no local KMS
 */
public record StreamSettings(String name, boolean onDemand, int shards, int retentionHours, String encryption) {}
