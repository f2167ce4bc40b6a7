package dev.sluice.emulators.iam;

/**
 * What the service does with the KMS key of an encrypted resource on the caller's behalf when it
 * serves the request (AWS evaluates that KMS call as the caller, with {@code kms:ViaService}).
 */
public enum KeyUse {
    /** No KMS call (metadata, control plane). */
    NONE,
    /** Writes data: {@code kms:GenerateDataKey}. */
    ENCRYPT,
    /** Reads data: {@code kms:Decrypt}. */
    DECRYPT;

    /** The KMS action, or null for {@link #NONE}. */
    public String kmsAction() {
        return switch (this) {
            case NONE -> null;
            case ENCRYPT -> "kms:GenerateDataKey";
            case DECRYPT -> "kms:Decrypt";
        };
    }
}
