package dev.sluice.cdk;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awscdk.assertions.Template;

/** Every cdk-nag suppression names one resource, one rule and its reason, and nothing else is suppressed. */
class NagSuppressionsForSluiceTest {

    static List<PipelineStack> stacks;

    @BeforeAll
    static void synthesize() throws Exception {
        stacks = RepositoryPipelines.get().stacks();
    }

    @Test
    void everySuppressionIsSpecificAndReasoned() {
        for (PipelineStack stack : stacks) {
            List<NagSuppressionsForSluice.Suppression> suppressions = NagSuppressionsForSluice.of(stack);
            assertThat(suppressions).isNotEmpty();
            for (NagSuppressionsForSluice.Suppression s : suppressions) {
                String at = s.path() + " " + s.ruleId();
                assertThat(s.reason()).as(at).isNotBlank();
                assertThat(s.path()).as(at).startsWith(stack.getStackName() + "/");
                assertThat(s.ruleId()).as(at).matches("AwsSolutions-[A-Z0-9]+|Serverless-[A-Za-z]+");
                if (s.ruleId().startsWith("AwsSolutions-IAM")) {
                    assertThat(s.appliesTo()).as(at).isNotEmpty();
                }
                if (s.appliesTo().contains("Resource::*")) {
                    // the viewer's (and admin's) CloudWatch reads; a KCL task role's PutMetricData
                    // (namespace condition) and a KCL execution role's ecr:GetAuthorizationToken
                    assertThat(s.path())
                            .as(at)
                            .matches(
                                    ".*/Personas/(Viewer|Admin)/DefaultPolicy|.*/TaskDefinition/(TaskRole|ExecutionRole)/DefaultPolicy");
                }
            }
        }
    }

    /** The template's suppression metadata is exactly the listed suppressions: none added elsewhere. */
    @Test
    @SuppressWarnings("unchecked")
    void theTemplateHoldsExactlyTheListedSuppressions() {
        for (PipelineStack stack : stacks) {
            Template template = RepositoryPipelines.get().template(stack);
            int inTemplate = 0;
            for (Map<String, Object> resource : template.toJSON().entrySet().stream()
                    .filter(e -> e.getKey().equals("Resources"))
                    .flatMap(e -> ((Map<String, Map<String, Object>>) e.getValue()).values().stream())
                    .toList()) {
                Map<String, Object> metadata = (Map<String, Object>) resource.get("Metadata");
                Map<String, Object> nag = metadata == null ? null : (Map<String, Object>) metadata.get("cdk_nag");
                if (nag == null) {
                    continue;
                }
                for (Map<String, Object> rule : (List<Map<String, Object>>) nag.get("rules_to_suppress")) {
                    assertThat((String) rule.get("reason")).isNotBlank();
                    inTemplate++;
                }
            }
            assertThat(inTemplate)
                    .as(stack.getStackName())
                    .isEqualTo(NagSuppressionsForSluice.of(stack).size());
        }
    }
}
