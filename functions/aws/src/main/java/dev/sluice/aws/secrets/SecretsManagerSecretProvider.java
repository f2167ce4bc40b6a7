package dev.sluice.aws.secrets;

import dev.sluice.aws.access.Access;
import dev.sluice.core.pii.SecretProvider;
import dev.sluice.core.pii.SecretUnavailableException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;
import software.amazon.awssdk.services.secretsmanager.model.DecryptionFailureException;
import software.amazon.awssdk.services.secretsmanager.model.GetSecretValueRequest;
import software.amazon.awssdk.services.secretsmanager.model.GetSecretValueResponse;
import software.amazon.awssdk.services.secretsmanager.model.InternalServiceErrorException;
import software.amazon.awssdk.services.secretsmanager.model.InvalidParameterException;
import software.amazon.awssdk.services.secretsmanager.model.InvalidRequestException;
import software.amazon.awssdk.services.secretsmanager.model.ResourceNotFoundException;

/**
 * Secrets from AWS Secrets Manager ({@code GetSecretValue}, current version): a binary secret
 * ({@code SecretBinary}) is used as its bytes, a string secret ({@code SecretString}) as its UTF-8
 * bytes, exactly as stored (no JSON parsing, no base64 decoding). Every call asks Secrets Manager:
 * wrap this provider in a {@link dev.sluice.core.pii.CachingSecretProvider}.
 *
 * <p>A secret's name is mapped to the secret id (name or ARN) to fetch by a function, e.g. one that
 * reads the id infra-cdk put into an environment variable; the identity by default.
 *
 * <p>Failures are {@link SecretUnavailableException}s that name the secret and the error code, never
 * a value: not found, invalid request, no permission and KMS decryption failures are fatal
 * (configuration); throttling, service errors and network errors are retryable.
 */
public final class SecretsManagerSecretProvider implements SecretProvider {

    /** What the provider calls: {@code GetSecretValue} of {@code secret}, decrypted with the secrets key. */
    public static List<Access> access(String secret) {
        return List.of(
                Access.secret(secret, "secretsmanager:GetSecretValue"), Access.key("secretsmanager", "kms:Decrypt"));
    }

    private final SecretsManagerClient client;
    private final Function<String, String> secretIds;

    /** Secrets whose names are their Secrets Manager ids (names or ARNs). */
    public SecretsManagerSecretProvider(SecretsManagerClient client) {
        this(client, Function.identity());
    }

    /**
     * Secrets whose ids (names or ARNs) a function gives.
     *
     * @param client the Secrets Manager client; not closed by this provider
     * @param secretIds maps a secret's name to the secret id to fetch; may throw if there is none
     */
    public SecretsManagerSecretProvider(SecretsManagerClient client, Function<String, String> secretIds) {
        this.client = Objects.requireNonNull(client, "client");
        this.secretIds = Objects.requireNonNull(secretIds, "secretIds");
    }

    @Override
    public byte[] secret(String name) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("a secret name must not be null or blank");
        }
        String secretId = secretId(name);
        GetSecretValueResponse response;
        try {
            response = client.getSecretValue(
                    GetSecretValueRequest.builder().secretId(secretId).build());
        } catch (SdkException e) {
            throw unavailable(name, secretId, e);
        }
        SdkBytes binary = response.secretBinary();
        byte[] value;
        if (binary != null) {
            value = binary.asByteArray();
        } else if (response.secretString() != null) {
            value = response.secretString().getBytes(StandardCharsets.UTF_8);
        } else {
            value = new byte[0];
        }
        if (value.length == 0) {
            throw new SecretUnavailableException(name, "Secrets Manager secret " + secretId + " has no value");
        }
        return value;
    }

    private String secretId(String name) {
        String secretId;
        try {
            secretId = secretIds.apply(name);
        } catch (RuntimeException e) {
            throw new SecretUnavailableException(name, "no Secrets Manager id: " + e.getMessage(), false, e);
        }
        if (secretId == null || secretId.isBlank()) {
            throw new SecretUnavailableException(name, "no Secrets Manager id");
        }
        return secretId;
    }

    private static SecretUnavailableException unavailable(String name, String secretId, SdkException e) {
        if (e instanceof ResourceNotFoundException) {
            return new SecretUnavailableException(name, "Secrets Manager has no secret " + secretId, false, e);
        }
        if (e instanceof DecryptionFailureException) {
            return new SecretUnavailableException(
                    name, "Secrets Manager cannot decrypt " + secretId + " with its KMS key", false, e);
        }
        if (e instanceof InvalidRequestException || e instanceof InvalidParameterException) {
            return new SecretUnavailableException(
                    name, "Secrets Manager rejected the request for " + secretId + " (" + code(e) + ")", false, e);
        }
        if (e instanceof AwsServiceException service) {
            boolean retryable = e instanceof InternalServiceErrorException
                    || service.isThrottlingException()
                    || service.statusCode() >= 500
                    || e.retryable();
            if (service.statusCode() == 403 || errorCode(service).equals("AccessDeniedException")) {
                return new SecretUnavailableException(
                        name, "access to " + secretId + " is denied (" + code(e) + ")", false, e);
            }
            return new SecretUnavailableException(
                    name, "Secrets Manager failed for " + secretId + " (" + code(e) + ")", retryable, e);
        }
        if (e instanceof SdkClientException) {
            return new SecretUnavailableException(
                    name,
                    "cannot reach Secrets Manager for " + secretId + " ("
                            + e.getClass().getSimpleName() + ")",
                    true,
                    e);
        }
        return new SecretUnavailableException(
                name,
                "Secrets Manager failed for " + secretId + " (" + e.getClass().getSimpleName() + ")",
                e.retryable(),
                e);
    }

    private static String code(SdkException e) {
        if (e instanceof AwsServiceException service && !errorCode(service).isEmpty()) {
            return errorCode(service) + ", HTTP " + service.statusCode();
        }
        return e.getClass().getSimpleName();
    }

    private static String errorCode(AwsServiceException e) {
        return e.awsErrorDetails() == null || e.awsErrorDetails().errorCode() == null
                ? ""
                : e.awsErrorDetails().errorCode();
    }

    @Override
    public String toString() {
        return "SecretsManagerSecretProvider";
    }
}
