package dev.sluice.cdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.definition.Persona;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awscdk.App;
import software.amazon.awscdk.AppProps;
import software.amazon.awscdk.assertions.Annotations;
import software.amazon.awscdk.assertions.Match;
import software.amazon.awscdk.assertions.Template;
import software.amazon.awscdk.services.iam.IRole;
import software.constructs.IConstruct;

/**
 * Restricted data protected on the resource side (explicit denies in resource and key policies), the
 * messaging and dead-letters keys, the viewer's scope, source-operator's ListShards and persona
 * trust from configuration.
 */
class RestrictedDataTest {

    @TempDir
    static Path dir;

    static PipelineStack payments;
    static PipelineStack clickstream;
    static Template paymentsTemplate;
    static Template clickstreamTemplate;
    static PipelineStack configured;
    static Template configuredTemplate;

    static final String ADMIN_SSO =
            "arn:aws:iam::111122223333:role/aws-reserved/sso.amazonaws.com/eu-west-1/AWSReservedSSO_Admin_0123";
    static final String ANALYST_SSO_1 = "arn:aws:iam::111122223333:role/analysts-a";
    static final String ANALYST_SSO_2 = "arn:aws:iam::111122223333:role/analysts-b";

    @BeforeAll
    static void synthesize() throws Exception {
        RepositoryPipelines pipelines = RepositoryPipelines.get();
        payments = pipelines.stack("payments");
        clickstream = pipelines.stack("clickstream");
        paymentsTemplate = pipelines.template(payments);
        clickstreamTemplate = pipelines.template(clickstream);

        App withTrust = new App(AppProps.builder()
                .outdir(dir.resolve("configured").toString())
                .context(Map.of(
                        SluiceApp.LAMBDA_ARTIFACT_CONTEXT,
                        TestApps.lambdaZip(dir).toString(),
                        KclStage.IMAGE_CONTEXT,
                        TestApps.KCL_IMAGE,
                        PersonaTrust.CONTEXT,
                        "{\"admin\": [\"" + ADMIN_SSO + "\"], \"analyst\": [\"" + ANALYST_SSO_1 + "\", \""
                                + ANALYST_SSO_2 + "\"], \"pipeline-developer\": \"" + ANALYST_SSO_1
                                + "\", \"source-operator\": [\"" + ANALYST_SSO_2 + "\"], \"viewer\": [\""
                                + ANALYST_SSO_2 + "\"]}",
                        PersonaTrust.ADMIN_SESSION_TAG_CONTEXT,
                        "sluice-admin=yes"))
                .build());
        configured = TestApps.stack(SluiceApp.addPipelines(withTrust, SluiceRoot.locate()), "payments");
        configuredTemplate = Template.fromStack(configured);
    }

    private static Object arn(IConstruct role) {
        return TestApps.getAtt(role, "Arn");
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> statements(Template template, String type, String documentProperty) {
        return template.findResources(type).values().stream()
                .map(r -> (Map<String, Object>) r.get("Properties"))
                .map(p -> (Map<String, Object>) p.get(documentProperty))
                .flatMap(doc -> ((List<Map<String, Object>>) doc.get("Statement")).stream())
                .toList();
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> keyStatements(Template template, IConstruct key) {
        Map<String, Object> resource = template.findResources("AWS::KMS::Key").get(TestApps.logicalId(key));
        Map<String, Object> policy =
                (Map<String, Object>) ((Map<String, Object>) resource.get("Properties")).get("KeyPolicy");
        return (List<Map<String, Object>>) policy.get("Statement");
    }

    private static List<Map<String, Object>> denies(List<Map<String, Object>> statements, String action) {
        return statements.stream()
                .filter(s -> "Deny".equals(s.get("Effect")))
                .filter(s -> TemplateQueries.actions(s).contains(action))
                .filter(s -> RestrictedData.SID.equals(s.get("Sid")))
                .toList();
    }

    @SuppressWarnings("unchecked")
    private static List<Object> exempt(Map<String, Object> statement) {
        Map<String, Object> condition = (Map<String, Object>) statement.get("Condition");
        assertThat(condition)
                .as("CloudWatch's statement on the messaging key has conditions")
                .isNotNull();
        Object arns = ((Map<String, Object>) condition.get("ArnNotEquals")).get("aws:PrincipalArn");
        return arns instanceof List<?> list ? (List<Object>) list : List.of(arns);
    }

    @Test
    void aRestrictedStreamIsReadableOnlyByAdminAndTheStageReadingIt() {
        for (PipelineStack stack : List.of(payments, clickstream)) {
            Template template = stack == payments ? paymentsTemplate : clickstreamTemplate;
            String raw = stack == payments ? "payments-raw" : "clicks-raw";
            String reader = stack == payments ? "validate" : "mask-and-rekey";
            List<Map<String, Object>> denied = denies(
                    statements(template, "AWS::Kinesis::ResourcePolicy", "ResourcePolicy"), "kinesis:GetRecords");

            assertThat(denied).singleElement().satisfies(s -> {
                assertThat(TemplateQueries.actions(s))
                        .containsExactlyInAnyOrder("kinesis:GetRecords", "kinesis:GetShardIterator");
                assertThat(TemplateQueries.resources(s)).containsExactly(TestApps.getAtt(stack.getStream(raw), "Arn"));
                assertThat(exempt(s))
                        .containsExactlyInAnyOrder(
                                arn(stack.getPersonas().getRole(Persona.ADMIN)),
                                arn(stack.getLambdaStage(reader).getRole()));
            });
            // and the streams key refuses to decrypt that stream's records for anyone else
            assertThat(denies(keyStatements(template, stack.getKey(PipelineKeys.Use.STREAMS)), "kms:Decrypt"))
                    .singleElement()
                    .satisfies(s -> assertThat(TemplateQueries.strings(s.get("Condition")))
                            .anyMatch(v -> v.endsWith(
                                    ":stream/sluice-" + stack.getDefinition().pipeline() + "-" + raw)));
        }
    }

    @Test
    void deadLettersAreReceivedOnlyByAdminAndUseAKeyCloudWatchCannotTouch() {
        List<Map<String, Object>> denied =
                denies(statements(paymentsTemplate, "AWS::SQS::QueuePolicy", "PolicyDocument"), "sqs:ReceiveMessage");
        assertThat(denied)
                .singleElement()
                .satisfies(s -> assertThat(exempt(s))
                        .containsExactly(arn(payments.getPersonas().getRole(Persona.ADMIN))));
        paymentsTemplate.hasResourceProperties(
                "AWS::SQS::Queue",
                Map.of("KmsMasterKeyId", TestApps.getAtt(payments.getKey(PipelineKeys.Use.DEAD_LETTERS), "Arn")));
        assertThat(TemplateQueries.strings(
                        keyStatements(paymentsTemplate, payments.getKey(PipelineKeys.Use.DEAD_LETTERS))))
                .doesNotContain("cloudwatch.amazonaws.com");
        assertThat(denies(
                        keyStatements(paymentsTemplate, payments.getKey(PipelineKeys.Use.DEAD_LETTERS)), "kms:Decrypt"))
                .singleElement()
                .satisfies(s -> assertThat(exempt(s))
                        .contains(
                                arn(payments.getPersonas().getRole(Persona.ADMIN)),
                                arn(payments.getLambdaStage("validate").getRole())));
    }

    @Test
    @SuppressWarnings("unchecked")
    void cloudWatchMayUseTheMessagingKeyOnlyForThisPipelinesAlarms() {
        Map<String, Object> statement =
                keyStatements(paymentsTemplate, payments.getKey(PipelineKeys.Use.MESSAGING)).stream()
                        .filter(s -> Observability.ALARMS_KEY_STATEMENT_SID.equals(s.get("Sid")))
                        .findFirst()
                        .orElseThrow();
        Map<String, Object> condition = (Map<String, Object>) statement.get("Condition");
        assertThat(condition)
                .as("CloudWatch's statement on the messaging key has conditions")
                .isNotNull();

        assertThat(((Map<String, Object>) statement.get("Principal")).get("Service"))
                .isEqualTo("cloudwatch.amazonaws.com");
        assertThat(((Map<String, Object>) condition.get("StringEquals")))
                .containsEntry("aws:SourceAccount", Map.of("Ref", "AWS::AccountId"));
        assertThat(TemplateQueries.strings(condition.get("ArnLike")))
                .anyMatch(s -> s.endsWith(":alarm:sluice-payments-*"));
        // no other statement of the key names CloudWatch
        assertThat(keyStatements(paymentsTemplate, payments.getKey(PipelineKeys.Use.MESSAGING)).stream()
                        .filter(s -> TemplateQueries.strings(s.get("Principal")).contains("cloudwatch.amazonaws.com")))
                .hasSize(1);
    }

    @Test
    void theTokenizationSecretIsReadOnlyByTheStagesThatMaskNotByAdmin() {
        List<Map<String, Object>> denied = denies(
                statements(paymentsTemplate, "AWS::SecretsManager::ResourcePolicy", "ResourcePolicy"),
                "secretsmanager:GetSecretValue");
        assertThat(denied)
                .singleElement()
                .satisfies(s -> assertThat(exempt(s))
                        .containsExactly(arn(payments.getLambdaStage("validate").getRole())));
        assertThat(
                        TemplateQueries.statementsOf(
                                        paymentsTemplate, payments.getPersonas().getRole(Persona.ADMIN))
                                .stream()
                                .flatMap(s -> TemplateQueries.actions(s).stream()))
                .noneMatch(a -> a.toString().startsWith("secretsmanager:"));
        assertThat(denies(keyStatements(paymentsTemplate, payments.getKey(PipelineKeys.Use.SECRETS)), "kms:Decrypt"))
                .singleElement()
                .satisfies(s -> assertThat(exempt(s))
                        .containsExactly(arn(payments.getLambdaStage("validate").getRole())));
    }

    @Test
    void theViewerSeesOnlyThisPipelinesDashboardAndAlarms() {
        IRole viewer = payments.getPersonas().getRole(Persona.VIEWER);
        List<Map<String, Object>> statements = TemplateQueries.statementsOf(paymentsTemplate, viewer);

        assertThat(TemplateQueries.allowing(statements, "cloudwatch:GetDashboard"))
                .singleElement()
                .satisfies(s -> assertThat(TemplateQueries.resources(s))
                        .containsExactly(payments.resolve(
                                payments.getObservability().getDashboard().getDashboardArn())));
        assertThat(TemplateQueries.allowing(statements, "cloudwatch:DescribeAlarms"))
                .singleElement()
                .satisfies(s -> assertThat(TemplateQueries.resources(s))
                        .containsExactlyInAnyOrderElementsOf(payments.getObservability().getAlarms().values().stream()
                                .map(a -> TestApps.getAtt(a, "Arn"))
                                .toList()));
        assertThat(statements.stream().filter(s -> TemplateQueries.resources(s).contains("*")))
                .singleElement()
                .satisfies(s -> assertThat(TemplateQueries.actions(s))
                        .containsExactlyInAnyOrderElementsOf(Personas.VIEWER_UNSCOPED_ACTIONS));
    }

    @Test
    void theSourceOperatorMayListTheShardsOfItsStream() {
        List<Map<String, Object>> statements = TemplateQueries.statementsOf(
                paymentsTemplate, payments.getPersonas().getRole(Persona.SOURCE_OPERATOR));
        assertThat(TemplateQueries.allowing(statements, "kinesis:ListShards"))
                .singleElement()
                .satisfies(s -> assertThat(TemplateQueries.resources(s))
                        .containsExactly(TestApps.getAtt(payments.getStream("payments-raw"), "Arn")));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> trust(Template template, IRole role) {
        Map<String, Object> resource = template.findResources("AWS::IAM::Role").get(TestApps.logicalId(role));
        Map<String, Object> document = (Map<String, Object>)
                ((Map<String, Object>) resource.get("Properties")).get("AssumeRolePolicyDocument");
        return ((List<Map<String, Object>>) document.get("Statement")).get(0);
    }

    @SuppressWarnings("unchecked")
    private static Object trustDocument(Template template, IRole role) {
        Map<String, Object> resource = template.findResources("AWS::IAM::Role").get(TestApps.logicalId(role));
        return ((Map<String, Object>) resource.get("Properties")).get("AssumeRolePolicyDocument");
    }

    @Test
    void withoutConfigurationPersonasTrustTheAccountRootWithAWarningAndAdminNeedsMfa() {
        assertThat(TemplateQueries.strings(
                        trust(paymentsTemplate, payments.getPersonas().getRole(Persona.ANALYST))))
                .anyMatch(s -> s.endsWith(":root"));
        assertThat(trust(paymentsTemplate, payments.getPersonas().getRole(Persona.ADMIN))
                        .get("Condition"))
                .isEqualTo(Map.of("Bool", Map.of("aws:MultiFactorAuthPresent", "true")));
        Annotations.fromStack(payments)
                .hasWarning("*", Match.stringLikeRegexp(".*trust the account root.*" + PersonaTrust.CONTEXT + ".*"));
    }

    @Test
    void configuredPrincipalsAreTheOnlyOnesTrustedAndAdminNeedsTheSessionTag() {
        Map<String, Object> admin =
                trust(configuredTemplate, configured.getPersonas().getRole(Persona.ADMIN));
        assertThat(admin.get("Principal")).isEqualTo(Map.of("AWS", ADMIN_SSO));
        assertThat(admin.get("Condition"))
                .isEqualTo(Map.of("StringEquals", Map.of("aws:PrincipalTag/sluice-admin", "yes")));
        assertThat(
                        TemplateQueries.strings(trustDocument(
                                        configuredTemplate,
                                        configured.getPersonas().getRole(Persona.ANALYST)))
                                .stream()
                                .filter(v -> v.startsWith("arn:"))
                                .toList())
                .containsExactlyInAnyOrder(ANALYST_SSO_1, ANALYST_SSO_2);
        assertThat(Annotations.fromStack(configured)
                        .findWarning("*", Match.stringLikeRegexp(".*trust the account root.*")))
                .isEmpty();
    }

    @Test
    void aTrustValueThatNamesNoPrincipalOrAnUnknownPersonaIsRefusedInOneLine() {
        assertThatThrownBy(() -> PersonaTrust.parse("{\"auditor\": [\"" + ADMIN_SSO + "\"]}"))
                .hasMessage(PersonaTrust.CONTEXT + ": unknown persona 'auditor'");
        assertThatThrownBy(() -> PersonaTrust.parse("{\"analyst\": [\"arn:aws:iam::111122223333:role/*\"]}"))
                .hasMessageContaining("not an IAM principal ARN without wildcards");
        assertThatThrownBy(() -> PersonaTrust.parse("[1]")).hasMessageContaining("must be a JSON object");
        assertThatThrownBy(() -> new PersonaTrust(Map.of(), "no-equals-sign"))
                .hasMessage(PersonaTrust.ADMIN_SESSION_TAG_CONTEXT + " must be key=value, not 'no-equals-sign'");
    }
}
