package dev.sluice.local.secrets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code SecretId} resolves as Secrets Manager documents it: full ARN, partial ARN or name. */
class SecretIdTest {

    private static final String PAYMENTS =
            "arn:aws:secretsmanager:us-east-1:000000000000:secret:sluice-payments-tokenization-key-Ab12Cd";
    private static final String CLICKSTREAM =
            "arn:aws:secretsmanager:us-east-1:000000000000:secret:sluice-clickstream-tokenization-key-Zz9Yx8";
    private static final List<String> ARNS = List.of(PAYMENTS, CLICKSTREAM);

    @Test
    void aFullArnNamesItsSecret() {
        assertThat(SecretsManagerFront.arnOf(ARNS, CLICKSTREAM)).isEqualTo(CLICKSTREAM);
    }

    @Test
    void aPartialArnWithoutTheSixCharacterSuffixNamesItsSecret() {
        assertThat(SecretsManagerFront.arnOf(
                        ARNS, "arn:aws:secretsmanager:us-east-1:000000000000:secret:sluice-payments-tokenization-key"))
                .isEqualTo(PAYMENTS);
    }

    @Test
    void theNameAloneNamesItsSecret() {
        assertThat(SecretsManagerFront.arnOf(ARNS, "sluice-clickstream-tokenization-key"))
                .isEqualTo(CLICKSTREAM);
    }

    @Test
    void anotherStacksNameOrAPrefixOfANameFindsNothing() {
        assertThat(SecretsManagerFront.arnOf(ARNS, "tokenization-key")).isNull();
        assertThat(SecretsManagerFront.arnOf(ARNS, "sluice-payments-tokenization"))
                .isNull();
        assertThat(SecretsManagerFront.arnOf(ARNS, PAYMENTS + "x")).isNull();
    }

    @Test
    void theNameIsTheArnWithoutItsSuffix() {
        assertThat(SecretsManagerFront.nameOf(PAYMENTS)).isEqualTo("sluice-payments-tokenization-key");
        assertThat(SecretsManagerFront.fileName(PAYMENTS)).isEqualTo("sluice-payments-tokenization-key-Ab12Cd");
        assertThatThrownBy(() -> SecretsManagerFront.fileName("arn:aws:s3:::bucket"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
