package dev.sluice.cdk;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awscdk.assertions.Template;

/**
 * Every stage function of every pipeline runs from a published version with SnapStart, behind the
 * alias {@value LambdaStage#ALIAS} that its Kinesis event-source mapping invokes (SnapStart applies
 * to published versions only: a mapping on the unqualified function would run {@code $LATEST}
 * without a snapshot). Its alarms still see every invocation: they use the function's {@code
 * FunctionName} dimension alone, which CloudWatch aggregates over all versions and aliases.
 */
class SnapStartTest {

    private static List<PipelineStack> stacks;

    @BeforeAll
    static void synthesize() throws Exception {
        stacks = RepositoryPipelines.get().stacks();
        assertThat(stacks).isNotEmpty();
    }

    @Test
    void everyStageFunctionHasSnapStartOnPublishedVersions() {
        for (PipelineStack stack : stacks) {
            Template template = RepositoryPipelines.get().template(stack);
            assertThat(stack.getLambdaStages()).isNotEmpty();
            stack.getLambdaStages()
                    .forEach((stage, lambda) -> assertThat(properties(
                                            template, "AWS::Lambda::Function", TestApps.logicalId(lambda.getFunction()))
                                    .get("SnapStart"))
                            .as("%s/%s SnapStart", stack.getStackName(), stage)
                            .isEqualTo(Map.of("ApplyOn", "PublishedVersions")));
        }
    }

    @Test
    void everyStageFunctionPublishesAVersionBehindTheLiveAlias() {
        for (PipelineStack stack : stacks) {
            Template template = RepositoryPipelines.get().template(stack);
            template.resourceCountIs(
                    "AWS::Lambda::Version", stack.getLambdaStages().size());
            template.resourceCountIs(
                    "AWS::Lambda::Alias", stack.getLambdaStages().size());
            stack.getLambdaStages().forEach((stage, lambda) -> {
                Map<String, Object> function = TestApps.ref(lambda.getFunction());
                Map<String, Map<String, Object>> versions = template.findResources("AWS::Lambda::Version");
                String version = versions.entrySet().stream()
                        .filter(v -> function.equals(properties(v.getValue()).get("FunctionName")))
                        .map(Map.Entry::getKey)
                        .findFirst()
                        .orElseThrow(() -> new AssertionError(stack.getStackName() + "/" + stage
                                + ": no AWS::Lambda::Version of the function " + function));
                Map<String, Object> alias =
                        properties(template, "AWS::Lambda::Alias", TestApps.logicalId(lambda.getAlias()));
                assertThat(alias)
                        .as("%s/%s alias", stack.getStackName(), stage)
                        .containsEntry("Name", LambdaStage.ALIAS)
                        .containsEntry("FunctionName", function)
                        .containsEntry("FunctionVersion", Map.of("Fn::GetAtt", List.of(version, "Version")));
            });
        }
    }

    @Test
    void everyEventSourceMappingInvokesTheAlias() {
        for (PipelineStack stack : stacks) {
            Template template = RepositoryPipelines.get().template(stack);
            stack.getLambdaStages().forEach((stage, lambda) -> {
                Object target = properties(
                                template,
                                "AWS::Lambda::EventSourceMapping",
                                TestApps.logicalId(lambda.getEventSource()))
                        .get("FunctionName");
                assertThat(target)
                        .as("%s/%s event-source mapping's FunctionName", stack.getStackName(), stage)
                        .isEqualTo(TestApps.ref(lambda.getAlias()));
            });
        }
    }

    @Test
    void alarmsOnLambdaMetricsCountEveryVersionAndAlias() {
        for (PipelineStack stack : stacks) {
            Template template = RepositoryPipelines.get().template(stack);
            List<Object> functions = stack.getLambdaStages().values().stream()
                    .map(l -> (Object) TestApps.ref(l.getFunction()))
                    .toList();
            int lambdaAlarms = 0;
            for (Map<String, Object> alarm :
                    template.findResources("AWS::CloudWatch::Alarm").values()) {
                Map<String, Object> properties = properties(alarm);
                if (!"AWS/Lambda".equals(properties.get("Namespace"))) {
                    continue;
                }
                lambdaAlarms++;
                // FunctionName alone: CloudWatch's aggregate over $LATEST, every version and alias;
                // a Resource dimension would narrow it to one of them
                assertThat(properties.get("Dimensions"))
                        .as("%s alarm %s", stack.getStackName(), properties.get("AlarmName"))
                        .asList()
                        .hasSize(1)
                        .first()
                        .satisfies(d -> assertThat(functions).contains(((Map<?, ?>) d).get("Value")))
                        .satisfies(d -> assertThat(((Map<?, ?>) d).get("Name")).isEqualTo("FunctionName"));
            }
            assertThat(lambdaAlarms)
                    .as("%s Lambda alarms", stack.getStackName())
                    .isPositive();
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> properties(Map<String, Object> resource) {
        return (Map<String, Object>) resource.get("Properties");
    }

    private static Map<String, Object> properties(Template template, String type, String logicalId) {
        Map<String, Object> resource = template.findResources(type).get(logicalId);
        assertThat(resource).as("%s %s", type, logicalId).isNotNull();
        return properties(resource);
    }
}
