package dev.sluice.aws.secrets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.pii.CachingSecretProvider;
import dev.sluice.core.pii.SecretUnavailableException;
import dev.sluice.core.pii.Tokenizer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;
import software.amazon.awssdk.services.secretsmanager.model.DecryptionFailureException;
import software.amazon.awssdk.services.secretsmanager.model.GetSecretValueRequest;
import software.amazon.awssdk.services.secretsmanager.model.GetSecretValueResponse;
import software.amazon.awssdk.services.secretsmanager.model.InternalServiceErrorException;
import software.amazon.awssdk.services.secretsmanager.model.ResourceNotFoundException;
import software.amazon.awssdk.services.secretsmanager.model.SecretsManagerException;

class SecretsManagerSecretProviderTest {

    static final String ARN =
            "arn:aws:secretsmanager:eu-west-1:123456789012:secret:sluice/payments/tokenization-key-AbCdEf";
    static final String VALUE = "k3y-material-that-must-never-leak-0123456789";

    /** Secrets Manager in memory: answers GetSecretValue from a map, or throws a scripted failure. */
    static final class FakeSecretsManager implements SecretsManagerClient {
        final Map<String, GetSecretValueResponse> secrets = new HashMap<>();
        final List<String> requested = new ArrayList<>();
        RuntimeException failure;

        @Override
        public GetSecretValueResponse getSecretValue(GetSecretValueRequest request) {
            requested.add(request.secretId());
            if (failure != null) {
                throw failure;
            }
            GetSecretValueResponse response = secrets.get(request.secretId());
            if (response == null) {
                throw ResourceNotFoundException.builder()
                        .message("Secrets Manager can't find the specified secret.")
                        .statusCode(400)
                        .awsErrorDetails(AwsErrorDetails.builder()
                                .errorCode("ResourceNotFoundException")
                                .build())
                        .build();
            }
            return response;
        }

        @Override
        public String serviceName() {
            return SERVICE_NAME;
        }

        @Override
        public void close() {}
    }

    final FakeSecretsManager secretsManager = new FakeSecretsManager();
    final SecretsManagerSecretProvider provider = new SecretsManagerSecretProvider(secretsManager);

    @Test
    void stringSecretIsItsUtf8Bytes() {
        secretsManager.secrets.put(
                ARN,
                GetSecretValueResponse.builder().arn(ARN).secretString(VALUE).build());

        assertThat(provider.secret(ARN)).isEqualTo(VALUE.getBytes(StandardCharsets.UTF_8));
        assertThat(secretsManager.requested).containsExactly(ARN);
    }

    @Test
    void binarySecretIsItsBytes() {
        byte[] key = {0, 1, 2, (byte) 0xff};
        secretsManager.secrets.put(
                "bin",
                GetSecretValueResponse.builder()
                        .secretBinary(SdkBytes.fromByteArray(key))
                        .build());

        assertThat(provider.secret("bin")).isEqualTo(new byte[] {0, 1, 2, (byte) 0xff});
    }

    @Test
    void namesAreMappedToSecretIds() {
        secretsManager.secrets.put(
                ARN, GetSecretValueResponse.builder().secretString(VALUE).build());
        Map<String, String> env = Map.of("SLUICE_SECRET_ID_TOKENIZATION_KEY", ARN);
        SecretsManagerSecretProvider mapped = new SecretsManagerSecretProvider(
                secretsManager,
                name -> env.get("SLUICE_SECRET_ID_" + name.toUpperCase().replace('-', '_')));

        assertThat(mapped.secret("tokenization-key")).isEqualTo(VALUE.getBytes(StandardCharsets.UTF_8));
        assertThatThrownBy(() -> mapped.secret("other"))
                .isInstanceOf(SecretUnavailableException.class)
                .hasMessageContaining("'other'")
                .hasMessageContaining("no Secrets Manager id");
    }

    @Test
    void mappingFailureIsAnUnavailableSecret() {
        SecretsManagerSecretProvider mapped = new SecretsManagerSecretProvider(secretsManager, name -> {
            throw new IllegalStateException("environment variable SLUICE_SECRET_ID_X is not set");
        });

        assertThatThrownBy(() -> mapped.secret("x"))
                .isInstanceOf(SecretUnavailableException.class)
                .hasMessageContaining("SLUICE_SECRET_ID_X is not set");
    }

    @Test
    void missingSecretIsFatalAndNamesIt() {
        assertThatThrownBy(() -> provider.secret(ARN))
                .isInstanceOf(SecretUnavailableException.class)
                .hasMessageContaining(ARN)
                .hasMessageContaining("no secret")
                .satisfies(e -> assertThat(((SecretUnavailableException) e).isRetryable())
                        .isFalse());
    }

    @Test
    void secretWithoutValueIsAnError() {
        secretsManager.secrets.put("empty", GetSecretValueResponse.builder().build());
        secretsManager.secrets.put(
                "blank", GetSecretValueResponse.builder().secretString("").build());

        assertThatThrownBy(() -> provider.secret("empty"))
                .isInstanceOf(SecretUnavailableException.class)
                .hasMessageContaining("has no value");
        assertThatThrownBy(() -> provider.secret("blank"))
                .isInstanceOf(SecretUnavailableException.class)
                .hasMessageContaining("has no value");
    }

    @Test
    void accessDeniedAndDecryptionFailuresAreFatal() {
        secretsManager.failure = SecretsManagerException.builder()
                .message("User is not authorized to perform: secretsmanager:GetSecretValue")
                .statusCode(400)
                .awsErrorDetails(AwsErrorDetails.builder()
                        .errorCode("AccessDeniedException")
                        .build())
                .build();
        assertThatThrownBy(() -> provider.secret(ARN))
                .isInstanceOf(SecretUnavailableException.class)
                .hasMessageContaining("denied")
                .hasMessageContaining("AccessDeniedException")
                .satisfies(e -> assertThat(((SecretUnavailableException) e).isRetryable())
                        .isFalse());

        secretsManager.failure = DecryptionFailureException.builder()
                .message("KMS denied")
                .statusCode(400)
                .build();
        assertThatThrownBy(() -> provider.secret(ARN))
                .isInstanceOf(SecretUnavailableException.class)
                .hasMessageContaining("decrypt")
                .satisfies(e -> assertThat(((SecretUnavailableException) e).isRetryable())
                        .isFalse());
    }

    @Test
    void throttlingServiceAndNetworkErrorsAreRetryable() {
        secretsManager.failure = AwsServiceException.builder()
                .statusCode(400)
                .awsErrorDetails(AwsErrorDetails.builder()
                        .errorCode("ThrottlingException")
                        .build())
                .build();
        assertRetryable();

        secretsManager.failure = InternalServiceErrorException.builder()
                .statusCode(500)
                .message("internal")
                .build();
        assertRetryable();

        secretsManager.failure = SdkClientException.create("Unable to execute HTTP request: connect timed out");
        assertRetryable();
    }

    private void assertRetryable() {
        assertThatThrownBy(() -> provider.secret(ARN))
                .isInstanceOf(SecretUnavailableException.class)
                .hasMessageContaining(ARN)
                .satisfies(e -> assertThat(((SecretUnavailableException) e).isRetryable())
                        .isTrue());
    }

    @Test
    void valueNeverAppearsInMessagesOrToString() {
        secretsManager.secrets.put(
                ARN, GetSecretValueResponse.builder().secretString(VALUE).build());
        provider.secret(ARN);
        secretsManager.failure =
                InternalServiceErrorException.builder().statusCode(500).build();

        assertThatThrownBy(() -> provider.secret(ARN)).hasMessageNotContaining(VALUE);
        assertThat(provider.toString()).doesNotContain(VALUE);
    }

    @Test
    void cachedProviderAsksSecretsManagerOncePerTtlAndKeysATokenizer() {
        secretsManager.secrets.put(
                ARN, GetSecretValueResponse.builder().secretString(VALUE).build());
        CachingSecretProvider cached = new CachingSecretProvider(provider, Duration.ofMinutes(5), Clock.systemUTC());

        Tokenizer first = Tokenizer.fromSecret(cached, ARN, null);
        Tokenizer second = Tokenizer.fromSecret(cached, ARN, null);

        assertThat(first.token("a@example.com")).isEqualTo(second.token("a@example.com"));
        assertThat(secretsManager.requested).hasSize(1);
    }

    @Test
    void blankNamesAreRefused() {
        assertThatThrownBy(() -> provider.secret(" ")).isInstanceOf(IllegalArgumentException.class);
    }
}
