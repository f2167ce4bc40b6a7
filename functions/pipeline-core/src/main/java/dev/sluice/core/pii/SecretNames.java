package dev.sluice.core.pii;

/** Checks shared by the secret providers. */
final class SecretNames {

    private SecretNames() {}

    /** The name, if it is a usable secret name. */
    static String require(String name) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("a secret name must not be null or blank");
        }
        return name;
    }
}
