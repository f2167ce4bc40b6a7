package dev.sluice.core.pii;

/**
 * Where a Sluice function gets its secrets (the PII tokenisation key, target credentials). In AWS
 * the adapter in the Lambda module reads AWS Secrets Manager; locally {@link FileSecretProvider} or
 * {@link EnvironmentSecretProvider} stand in. Wrap a remote provider in a {@link
 * CachingSecretProvider} so that a function does not call its secret store for every batch.
 *
 * <p>Contract for implementations:
 *
 * <ul>
 *   <li>{@link #secret(String)} returns a new array on every call: the caller owns it and may clear
 *       it once it has built its key from it;
 *   <li>a secret's value never appears in {@code toString()}, log lines or exception messages;
 *   <li>a secret that cannot be produced (missing, empty, access denied, store unreachable) is a
 *       {@link SecretUnavailableException}, which says whether retrying may help;
 *   <li>implementations are thread-safe.
 * </ul>
 */
public interface SecretProvider {

    /**
     * The current value of a secret.
     *
     * @param name the secret's name: a file name, a variable suffix or a Secrets Manager id or ARN,
     *     depending on the implementation
     * @return the secret's bytes, never empty; a fresh array the caller owns
     * @throws SecretUnavailableException if the secret does not exist, is empty or cannot be read
     * @throws IllegalArgumentException if the name is null or blank
     */
    byte[] secret(String name);
}
