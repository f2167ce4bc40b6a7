package dev.sluice.cdk;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SecretLookingValuesTest {

    @Test
    void resourceNamesAndJvmFlagsAreNotSecrets() {
        assertThat(SecretLookingValues.in(Map.of(
                        "SLUICE_PIPELINE",
                        "payments",
                        "SLUICE_STAGE",
                        "validate",
                        "SLUICE_TABLE_PAYMENTS_BY_ID",
                        Map.of("Ref", "TablePaymentsById324042E1"),
                        "SLUICE_QUEUE_URL_PAYMENTS_DLQ",
                        Map.of("Ref", "QueuePaymentsDlqFA2550AC"),
                        "JAVA_TOOL_OPTIONS",
                        StageEnvironment.JVM_FLAGS)))
                .isEmpty();
    }

    @Test
    void secretSoundingNameIsFound() {
        assertThat(SecretLookingValues.in(Map.of("SLUICE_HMAC_KEY", "x"))).hasSize(1);
        assertThat(SecretLookingValues.in(Map.of("DB_PASSWORD", Map.of("Ref", "Something"))))
                .hasSize(1);
    }

    @Test
    void keyShapedLiteralIsFound() {
        assertThat(SecretLookingValues.in(Map.of("SLUICE_X", "AKIAIOSFODNN7EXAMPLE")))
                .anyMatch(finding -> finding.contains("AWS access key id"));
        assertThat(SecretLookingValues.in(Map.of("SLUICE_X", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")))
                .anyMatch(finding -> finding.contains("key-shaped"));
    }

    @Test
    void dynamicSecretReferenceInsideAnIntrinsicIsFound() {
        Object joined = Map.of("Fn::Join", List.of("", List.of("{{resolve:secretsmanager:", Map.of("Ref", "S"), "}}")));
        assertThat(SecretLookingValues.in(Map.of("SLUICE_X", joined)))
                .anyMatch(finding -> finding.contains("secretsmanager"));
    }

    @Test
    void secretIdVariableReferencingASecretResourceIsNotAFinding() {
        Map<String, Object> environment =
                Map.of("SLUICE_SECRET_ID_TOKENIZATION_KEY", Map.of("Ref", "SecretTokenizationKey44C1999F"));
        assertThat(SecretLookingValues.in(environment, Set.of("SecretTokenizationKey44C1999F")))
                .isEmpty();
        // without knowing the template's secrets, the name alone is suspect
        assertThat(SecretLookingValues.in(environment)).hasSize(1);
    }

    @Test
    void secretIdVariableHoldingAnythingButASecretReferenceIsAFinding() {
        Set<String> secrets = Set.of("SecretTokenizationKey44C1999F");
        assertThat(SecretLookingValues.in(Map.of("SLUICE_SECRET_ID_TOKENIZATION_KEY", "a-literal-value"), secrets))
                .hasSize(1);
        assertThat(SecretLookingValues.in(
                        Map.of("SLUICE_SECRET_ID_TOKENIZATION_KEY", Map.of("Ref", "TablePaymentsById324042E1")),
                        secrets))
                .hasSize(1);
        Object resolved = Map.of(
                "Fn::Join",
                List.of(
                        "",
                        List.of("{{resolve:secretsmanager:", Map.of("Ref", "SecretTokenizationKey44C1999F"), "}}")));
        assertThat(SecretLookingValues.in(Map.of("SLUICE_SECRET_ID_TOKENIZATION_KEY", resolved), secrets))
                .anyMatch(finding -> finding.contains("secretsmanager"));
        assertThat(SecretLookingValues.in(
                        Map.of("SLUICE_HMAC_KEY", Map.of("Ref", "SecretTokenizationKey44C1999F")), secrets))
                .hasSize(1);
    }
}
