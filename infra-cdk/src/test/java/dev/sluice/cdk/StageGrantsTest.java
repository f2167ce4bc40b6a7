package dev.sluice.cdk;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.sluice.aws.StageAccess;
import dev.sluice.aws.access.Access;
import dev.sluice.aws.access.KclAccess;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awscdk.assertions.Match;
import software.amazon.awscdk.assertions.Template;
import software.amazon.awscdk.services.iam.IRole;

/**
 * Every stage role of both pipelines holds exactly the grants derived from its code's declarations
 * (sluice-aws {@code StageAccess}, plus {@code KclAccess} for KCL workers and the event-source mapping's
 * documented reads for Lambda stages), and its log group: no more, no less. And the findings that
 * motivated the derivation stay fixed (dedup GetItem, no managed policy, no wide S3 or unused fan-out
 * statements, KCL's legacy tables).
 */
class StageGrantsTest {

    private static final ObjectMapper JSON =
            new ObjectMapper().configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);

    static List<PipelineStack> stacks;
    static Map<String, Template> templates = new TreeMap<>();

    @BeforeAll
    static void synthesize() throws Exception {
        stacks = RepositoryPipelines.get().stacks();
        for (PipelineStack stack : stacks) {
            templates.put(
                    stack.getDefinition().pipeline(), RepositoryPipelines.get().template(stack));
        }
    }

    /** A statement as comparable text: actions sorted, single values as lists. */
    private static String canonical(Map<String, Object> statement) {
        Map<String, Object> out = new TreeMap<>();
        List<String> actions = new ArrayList<>(
                TemplateQueries.actions(statement).stream().map(String::valueOf).toList());
        actions.sort(null);
        out.put("Action", actions);
        out.put("Effect", statement.get("Effect"));
        out.put("Resource", TemplateQueries.resources(statement));
        if (statement.get("Condition") != null) {
            out.put("Condition", statement.get("Condition"));
        }
        try {
            return JSON.writeValueAsString(out);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @SuppressWarnings("unchecked")
    private static List<String> expected(PipelineStack stack, StageGrants grants, List<Access> accesses) {
        return accesses.stream()
                .map(access -> (Map<String, Object>)
                        stack.resolve(grants.statement(access).toStatementJson()))
                .map(StageGrantsTest::canonical)
                .sorted()
                .toList();
    }

    private static List<String> actual(PipelineStack stack, IRole role) {
        return TemplateQueries.statementsOf(templates.get(stack.getDefinition().pipeline()), role).stream()
                .map(StageGrantsTest::canonical)
                .sorted()
                .toList();
    }

    @Test
    void everyLambdaStageRoleHoldsExactlyItsDeclaredGrantsAndItsLogGroup() {
        int roles = 0;
        for (PipelineStack stack : stacks) {
            for (LambdaStage stage : stack.getLambdaStages().values()) {
                StageGrants grants = new StageGrants(stack, null, null);
                List<Access> declared = LambdaStage.access(stack.getDefinition(), stage.getStageName());
                List<String> expected = new ArrayList<>(expected(stack, grants, declared));
                // the documented extra: writing the function's own log group
                expected.add(canonical(Map.of(
                        "Effect", "Allow",
                        "Action", List.of("logs:CreateLogStream", "logs:PutLogEvents"),
                        "Resource", stack.resolve(stage.getLogGroup().getLogGroupArn()))));
                expected.sort(null);

                assertThat(actual(stack, stage.getRole()))
                        .as(stack.getDefinition().pipeline() + "/" + stage.getStageName())
                        .isEqualTo(expected);
                roles++;
            }
        }
        assertThat(roles).isEqualTo(2);
    }

    @Test
    void everyKclTaskRoleHoldsExactlyItsDeclaredGrantsAndKclsCalls() {
        int roles = 0;
        for (PipelineStack stack : stacks) {
            for (KclStage stage : stack.getKclStages().values()) {
                StageGrants grants = new StageGrants(stack, stage.getLeaseTable(), stage.getApplicationName());
                List<Access> declared = Access.merge(java.util.stream.Stream.concat(
                                StageAccess.of(stack.getDefinition(), stage.getStageName()).stream(),
                                KclAccess.of(
                                        stack.getDefinition()
                                                .stage(stage.getStageName())
                                                .input(),
                                        stage.getApplicationName())
                                        .stream())
                        .toList());

                assertThat(actual(stack, stage.getTaskDefinition().getTaskRole()))
                        .as(stack.getDefinition().pipeline() + "/" + stage.getStageName())
                        .isEqualTo(expected(stack, grants, declared));
                roles++;
            }
        }
        assertThat(roles).isEqualTo(1);
    }

    @Test
    void theDeduplicatingSinkMayReadTheItemItWasRefused() {
        PipelineStack payments = TestApps.stack(stacks, "payments");
        IRole validate = payments.getLambdaStage("validate").getRole();
        Object table = TestApps.getAtt(payments.getTable("payments-by-id"), "Arn");

        assertThat(TemplateQueries.allowing(
                        TemplateQueries.statementsOf(templates.get("payments"), validate), "dynamodb:GetItem"))
                .anySatisfy(s -> assertThat(TemplateQueries.resources(s)).containsExactly(table));
    }

    @Test
    void stageFunctionsHaveNoManagedPolicyAndWriteOnlyTheirOwnLogGroup() {
        for (PipelineStack stack : stacks) {
            Template template = templates.get(stack.getDefinition().pipeline());
            for (LambdaStage stage : stack.getLambdaStages().values()) {
                Map<String, Map<String, Object>> role =
                        template.findResources("AWS::IAM::Role", Match.objectLike(Map.of()));
                Object properties =
                        role.get(TestApps.logicalId(stage.getRole())).get("Properties");
                assertThat(TemplateQueries.keys(properties)).doesNotContain("ManagedPolicyArns");
                List<Map<String, Object>> logs = TemplateQueries.statementsOf(template, stage.getRole()).stream()
                        .filter(s -> TemplateQueries.actions(s).stream()
                                .anyMatch(a -> a.toString().startsWith("logs:")))
                        .toList();
                assertThat(logs)
                        .singleElement()
                        .satisfies(s -> assertThat(TemplateQueries.resources(s))
                                .containsExactly(TestApps.getAtt(stage.getLogGroup(), "Arn")));
            }
            // and the template holds no managed policy at all for the stage functions
            assertThat(TemplateQueries.strings(template.toJSON()))
                    .noneMatch(s -> s.contains("AWSLambdaBasicExecutionRole"));
        }
    }

    @Test
    void lakeWritersGetPutAndGetUnderTheirPrefixAndListingOnlyOfThatPrefix() {
        PipelineStack payments = TestApps.stack(stacks, "payments");
        List<Map<String, Object>> statements = TemplateQueries.statementsOf(
                templates.get("payments"), payments.getLambdaStage("validate").getRole());
        List<String> s3 = statements.stream()
                .flatMap(s -> TemplateQueries.actions(s).stream())
                .map(String::valueOf)
                .filter(a -> a.startsWith("s3:"))
                .distinct()
                .sorted()
                .toList();
        assertThat(s3).containsExactly("s3:GetObject", "s3:ListBucket", "s3:PutObject");
        assertThat(TemplateQueries.allowing(statements, "s3:ListBucket"))
                .singleElement()
                .satisfies(s -> assertThat(s.get("Condition"))
                        .isEqualTo(Map.of("StringLike", Map.of("s3:prefix", List.of("payments/*")))));
    }

    @Test
    void kclWorkersMayDescribeTheLegacyTablesKclChecksAndNothingOfFanOut() {
        PipelineStack clickstream = TestApps.stack(stacks, "clickstream");
        KclStage stage = clickstream.getKclStage("page-counts");
        List<Map<String, Object>> statements = TemplateQueries.statementsOf(
                templates.get("clickstream"), stage.getTaskDefinition().getTaskRole());
        List<String> describedTables = TemplateQueries.allowing(statements, "dynamodb:DescribeTable").stream()
                .flatMap(s -> TemplateQueries.strings(TemplateQueries.resources(s)).stream())
                .filter(s -> s.contains(":table/sluice-"))
                .toList();

        assertThat(describedTables)
                .anyMatch(s -> s.endsWith(":table/sluice-clickstream-page-counts-CoordinatorState"))
                .anyMatch(s -> s.endsWith(":table/sluice-clickstream-page-counts-WorkerMetricStats"));
        assertThat(statements.stream().flatMap(s -> TemplateQueries.actions(s).stream()))
                .doesNotContain(
                        "kinesis:SubscribeToShard", "kinesis:DescribeStreamConsumer", "kinesis:RegisterStreamConsumer");
    }
}
