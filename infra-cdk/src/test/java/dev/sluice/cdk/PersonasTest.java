package dev.sluice.cdk;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.definition.Persona;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awscdk.App;
import software.amazon.awscdk.assertions.Template;
import software.constructs.IConstruct;

/**
 * The persona matrix: for each persona of both pipelines and each resource, what its role's
 * policies allow, read from the synthesized template.
 */
class PersonasTest {

    @TempDir
    static Path dir;

    static PipelineStack payments;
    static PipelineStack clickstream;
    static PipelineStack wide;
    static Template paymentsTemplate;
    static Template clickstreamTemplate;
    static Template wideTemplate;

    static final List<String> READ = List.of(
            "kinesis:GetRecords",
            "dynamodb:GetItem",
            "dynamodb:Query",
            "dynamodb:Scan",
            "s3:GetObject",
            "sqs:ReceiveMessage",
            "secretsmanager:GetSecretValue");
    static final List<String> WRITE = List.of(
            "kinesis:PutRecord",
            "kinesis:PutRecords",
            "dynamodb:PutItem",
            "dynamodb:UpdateItem",
            "dynamodb:DeleteItem",
            "s3:PutObject",
            "s3:DeleteObject",
            "sqs:SendMessage");

    @BeforeAll
    static void synthesize() throws Exception {
        RepositoryPipelines pipelines = RepositoryPipelines.get();
        payments = pipelines.stack("payments");
        clickstream = pipelines.stack("clickstream");
        paymentsTemplate = pipelines.template(payments);
        clickstreamTemplate = pipelines.template(clickstream);
        // payments, with access asking for restricted data and resources the personas cannot use, in an app of its own
        App app = TestApps.app(dir);
        String yaml = Files.readString(SluiceRoot.locate().resolve("pipelines/payments.yaml"))
                .replace("analyst: [payments-lake,", "analyst: [payments-raw, payments-dlq, payments-lake,")
                .replace(
                        "pipeline-developer: [payments-lake,",
                        "pipeline-developer: [payments-raw, payments-dlq, payments-lake,")
                .replace("source-operator: [payments-raw]", "source-operator: [payments-raw, payments-by-id]");
        wide = new PipelineStack(
                app,
                "sluice-payments-wide",
                new PipelineStackProps(
                        TestApps.loader().parse("payments.yaml", yaml), SluiceApp.lambdaArtifact(app), null));
        wideTemplate = Template.fromStack(wide);
    }

    /** Whether the persona's role allows any of these actions on the resource (or on {@code *}). */
    static boolean allows(Template template, PipelineStack stack, Persona persona, List<String> actions, IConstruct r) {
        String id = TestApps.logicalId(r);
        return TemplateQueries.statementsOf(template, stack.getPersonas().getRole(persona)).stream()
                .filter(s -> "Allow".equals(s.get("Effect")))
                .filter(s -> TemplateQueries.actions(s).stream()
                        .map(String::valueOf)
                        .anyMatch(granted -> actions.stream().anyMatch(a -> matches(granted, a))))
                .anyMatch(s -> TemplateQueries.strings(TemplateQueries.resources(s)).stream()
                        .anyMatch(text -> text.equals("*") || text.equals(id)));
    }

    static boolean reads(Template template, PipelineStack stack, Persona persona, IConstruct resource) {
        return allows(template, stack, persona, READ, resource);
    }

    static boolean writes(Template template, PipelineStack stack, Persona persona, IConstruct resource) {
        return allows(template, stack, persona, WRITE, resource);
    }

    private static boolean matches(String granted, String action) {
        String regex = Pattern.quote(granted).replace("*", "\\E.*\\Q");
        return action.matches(regex);
    }

    @Test
    void paymentsMatrix() {
        Template t = paymentsTemplate;
        PipelineStack s = payments;
        IConstruct raw = s.getStream("payments-raw");
        IConstruct dlq = s.getQueue("payments-dlq");
        IConstruct secret = s.getSecret("tokenization-key");
        IConstruct lake = s.getLakeBucket().orElseThrow();
        IConstruct byId = s.getTable("payments-by-id");
        IConstruct spend = s.getTable("spend-per-currency-hourly");
        for (IConstruct r : List.of(raw, dlq, lake, byId, spend)) {
            assertThat(reads(t, s, Persona.ADMIN, r)).as("admin reads " + r).isTrue();
        }
        // not even admin reads the tokenization key (docs/operations.md#access)
        assertThat(reads(t, s, Persona.ADMIN, secret))
                .as("admin reads " + secret)
                .isFalse();
        for (IConstruct r : List.of(raw, dlq, lake, byId, spend)) {
            assertThat(writes(t, s, Persona.ADMIN, r)).as("admin writes " + r).isTrue();
        }
        for (Persona reader : List.of(Persona.PIPELINE_DEVELOPER, Persona.ANALYST)) {
            for (IConstruct r : List.of(lake, byId, spend)) {
                assertThat(reads(t, s, reader, r)).as(reader + " reads " + r).isTrue();
                assertThat(writes(t, s, reader, r)).as(reader + " writes " + r).isFalse();
            }
        }
        for (Persona persona :
                List.of(Persona.PIPELINE_DEVELOPER, Persona.ANALYST, Persona.SOURCE_OPERATOR, Persona.VIEWER)) {
            for (IConstruct r : List.of(raw, dlq, secret)) {
                assertThat(reads(t, s, persona, r))
                        .as(persona + " reads restricted " + r)
                        .isFalse();
            }
        }
        assertThat(writes(t, s, Persona.SOURCE_OPERATOR, raw)).isTrue();
        for (IConstruct r : List.of(lake, byId, spend, dlq, secret)) {
            assertThat(reads(t, s, Persona.SOURCE_OPERATOR, r) || writes(t, s, Persona.SOURCE_OPERATOR, r))
                    .as("source-operator touches " + r)
                    .isFalse();
            assertThat(reads(t, s, Persona.VIEWER, r) || writes(t, s, Persona.VIEWER, r))
                    .as("viewer touches " + r)
                    .isFalse();
        }
    }

    @Test
    void clickstreamMatrix() {
        Template t = clickstreamTemplate;
        PipelineStack s = clickstream;
        IConstruct raw = s.getStream("clicks-raw");
        IConstruct byPage = s.getStream("clicks-by-page");
        IConstruct dlq = s.getQueue("clicks-dlq");
        IConstruct secret = s.getSecret("tokenization-key");
        IConstruct lake = s.getLakeBucket().orElseThrow();
        IConstruct views = s.getTable("page-views-per-minute");
        IConstruct catalogue = s.getTable("page-catalogue");
        assertThat(reads(t, s, Persona.PIPELINE_DEVELOPER, byPage)).isTrue();
        assertThat(reads(t, s, Persona.PIPELINE_DEVELOPER, lake)).isTrue();
        assertThat(reads(t, s, Persona.PIPELINE_DEVELOPER, views)).isFalse(); // not listed for it
        assertThat(reads(t, s, Persona.ANALYST, lake)).isTrue();
        assertThat(reads(t, s, Persona.ANALYST, views)).isTrue();
        assertThat(reads(t, s, Persona.ANALYST, byPage)).isFalse(); // not listed for it
        assertThat(reads(t, s, Persona.ANALYST, catalogue)).isFalse();
        assertThat(writes(t, s, Persona.SOURCE_OPERATOR, raw)).isTrue();
        assertThat(writes(t, s, Persona.SOURCE_OPERATOR, byPage)).isFalse();
        for (Persona persona :
                List.of(Persona.PIPELINE_DEVELOPER, Persona.ANALYST, Persona.SOURCE_OPERATOR, Persona.VIEWER)) {
            for (IConstruct r : List.of(raw, dlq, secret)) {
                assertThat(reads(t, s, persona, r))
                        .as(persona + " reads restricted " + r)
                        .isFalse();
            }
        }
        for (IConstruct r : List.of(raw, byPage, dlq, lake, views, catalogue)) {
            assertThat(reads(t, s, Persona.ADMIN, r)).as("admin reads " + r).isTrue();
        }
        assertThat(reads(t, s, Persona.ADMIN, secret))
                .as("admin reads " + secret)
                .isFalse();
    }

    @Test
    void sourceOperatorAndViewerHaveExactlyTheirActions() {
        for (PipelineStack s : List.of(payments, clickstream)) {
            Template t = s == payments ? paymentsTemplate : clickstreamTemplate;
            List<Object> operator =
                    TemplateQueries.statementsOf(t, s.getPersonas().getRole(Persona.SOURCE_OPERATOR)).stream()
                            .flatMap(st -> TemplateQueries.actions(st).stream())
                            .distinct()
                            .toList();
            assertThat(operator)
                    .containsExactlyInAnyOrder(
                            "kinesis:ListShards", "kinesis:PutRecord", "kinesis:PutRecords", "kms:GenerateDataKey");
            List<Map<String, Object>> viewer =
                    TemplateQueries.statementsOf(t, s.getPersonas().getRole(Persona.VIEWER));
            assertThat(viewer).hasSize(3);
            assertThat(viewer.stream().flatMap(st -> TemplateQueries.actions(st).stream()))
                    .allMatch(a -> a.toString().startsWith("cloudwatch:"));
            // * only for the actions without a resource type (RestrictedDataTest checks the others' ARNs)
            assertThat(viewer.stream()
                            .filter(st -> TemplateQueries.resources(st).contains("*")))
                    .singleElement()
                    .satisfies(st -> assertThat(TemplateQueries.actions(st))
                            .containsExactlyInAnyOrderElementsOf(Personas.VIEWER_UNSCOPED_ACTIONS));
        }
    }

    @Test
    void onlyTheViewerAndAdminHaveAStarResourceAndOnlyForCloudWatchReadsWithoutAResourceType() {
        for (PipelineStack s : List.of(payments, clickstream)) {
            Template t = s == payments ? paymentsTemplate : clickstreamTemplate;
            for (Persona persona : Persona.values()) {
                List<Map<String, Object>> starred =
                        TemplateQueries.statementsOf(t, s.getPersonas().getRole(persona)).stream()
                                .filter(st -> TemplateQueries.resources(st).contains("*"))
                                .toList();
                if (persona != Persona.VIEWER && persona != Persona.ADMIN) {
                    assertThat(starred).as(persona.yamlName()).isEmpty();
                    continue;
                }
                assertThat(starred).as(persona.yamlName()).hasSize(1);
                assertThat(TemplateQueries.actions(starred.get(0)))
                        .as(persona.yamlName())
                        .containsExactlyInAnyOrderElementsOf(Personas.VIEWER_UNSCOPED_ACTIONS);
            }
        }
    }

    @Test
    void adminReadsTheStagesLogGroupsAndNoOtherPersonaReadsLogs() {
        for (PipelineStack s : List.of(payments, clickstream)) {
            Template t = s == payments ? paymentsTemplate : clickstreamTemplate;
            for (Persona persona : Persona.values()) {
                List<Map<String, Object>> logReads =
                        TemplateQueries.statementsOf(t, s.getPersonas().getRole(persona)).stream()
                                .filter(st -> TemplateQueries.actions(st).stream()
                                        .anyMatch(a -> a.toString().startsWith("logs:")))
                                .toList();
                if (persona != Persona.ADMIN) {
                    assertThat(logReads).as(persona.yamlName()).isEmpty();
                    continue;
                }
                assertThat(logReads).hasSize(1);
                assertThat(TemplateQueries.actions(logReads.get(0)))
                        .containsExactlyInAnyOrderElementsOf(Personas.ADMIN_LOG_ACTIONS);
                // one resource per stage: its log group
                assertThat(TemplateQueries.resources(logReads.get(0)))
                        .hasSize(s.getDefinition().stages().size());
            }
        }
    }

    @Test
    void analystListsTheLakeOnlyUnderItsPrefix() {
        List<Map<String, Object>> list = TemplateQueries.allowing(
                TemplateQueries.statementsOf(
                        paymentsTemplate, payments.getPersonas().getRole(Persona.ANALYST)),
                "s3:ListBucket");
        assertThat(list).hasSize(1);
        assertThat(list.get(0).get("Condition"))
                .isEqualTo(Map.of("StringLike", Map.of("s3:prefix", List.of("payments/*"))));
    }

    @Test
    void withoutTrustConfigurationEveryRoleIsAssumableByTheAccountOnly() {
        Map<String, Map<String, Object>> roles = paymentsTemplate.findResources("AWS::IAM::Role");
        for (Persona persona : Persona.values()) {
            Map<String, Object> role =
                    roles.get(TestApps.logicalId(payments.getPersonas().getRole(persona)));
            List<String> strings =
                    TemplateQueries.strings(((Map<?, ?>) role.get("Properties")).get("AssumeRolePolicyDocument"));
            assertThat(strings).as(persona.yamlName()).contains("sts:AssumeRole", ":root");
            assertThat(String.join(" ", strings)).doesNotContain("amazonaws.com");
        }
    }

    @Test
    void restrictedAccessEntriesAreSkippedAndRecorded() {
        Map<Persona, Map<String, String>> skipped = wide.getPersonas().getSkippedGrants();
        assertThat(skipped.get(Persona.ANALYST))
                .containsEntry("payments-raw", Personas.RESTRICTED_STREAM)
                .containsEntry("payments-dlq", Personas.DEAD_LETTER_QUEUE);
        assertThat(skipped.get(Persona.PIPELINE_DEVELOPER))
                .containsEntry("payments-raw", Personas.RESTRICTED_STREAM)
                .containsEntry("payments-dlq", Personas.DEAD_LETTER_QUEUE);
        assertThat(skipped.get(Persona.SOURCE_OPERATOR)).containsOnlyKeys("payments-by-id");
        assertThat(payments.getPersonas().getSkippedGrants()).isEmpty();
        assertThat(clickstream.getPersonas().getSkippedGrants()).isEmpty();
        for (Persona persona : List.of(Persona.PIPELINE_DEVELOPER, Persona.ANALYST, Persona.SOURCE_OPERATOR)) {
            for (IConstruct r : List.of(wide.getStream("payments-raw"), wide.getQueue("payments-dlq"))) {
                assertThat(reads(wideTemplate, wide, persona, r))
                        .as(persona + " reads " + r)
                        .isFalse();
            }
            assertThat(writes(wideTemplate, wide, Persona.SOURCE_OPERATOR, wide.getTable("payments-by-id")))
                    .isFalse();
        }
    }

    @Test
    void personasUseTheKeyOnlyThroughTheServicesOfWhatTheyWereGranted() {
        assertKeyUse(paymentsTemplate, payments, Persona.ANALYST, "kms:Decrypt", "dynamodb", "s3");
        assertKeyUse(paymentsTemplate, payments, Persona.PIPELINE_DEVELOPER, "kms:Decrypt", "dynamodb", "s3");
        assertKeyUse(paymentsTemplate, payments, Persona.SOURCE_OPERATOR, "kms:GenerateDataKey", "kinesis");
        // clicks-by-page is an internal stream: read through Kinesis
        assertKeyUse(clickstreamTemplate, clickstream, Persona.PIPELINE_DEVELOPER, "kms:Decrypt", "kinesis", "s3");
        assertKeyUse(clickstreamTemplate, clickstream, Persona.ANALYST, "kms:Decrypt", "dynamodb", "s3");
        assertKeyUse(clickstreamTemplate, clickstream, Persona.SOURCE_OPERATOR, "kms:GenerateDataKey", "kinesis");
        for (PipelineStack s : List.of(payments, clickstream)) {
            Template t = s == payments ? paymentsTemplate : clickstreamTemplate;
            assertThat(keyStatements(t, s, Persona.VIEWER)).isEmpty();
        }
    }

    /**
     * The persona's statements on keys: one per service, each allowing exactly {@code action} on that
     * service's key, only through that service.
     */
    private static void assertKeyUse(
            Template template, PipelineStack stack, Persona persona, String action, String... services) {
        Map<String, PipelineKeys.Use> keyOf = Map.of(
                "kinesis", PipelineKeys.Use.STREAMS, "dynamodb", PipelineKeys.Use.TABLES, "s3", PipelineKeys.Use.LAKE);
        List<Map<String, Object>> statements = keyStatements(template, stack, persona);
        assertThat(statements)
                .as(stack.getDefinition().pipeline() + " " + persona.yamlName())
                .hasSize(services.length);
        for (String service : services) {
            Object key = TestApps.getAtt(stack.getKey(keyOf.get(service)), "Arn");
            Object via = Map.of(
                    "Fn::Join", List.of("", List.of(service + ".", Map.of("Ref", "AWS::Region"), ".amazonaws.com")));
            assertThat(statements)
                    .as(stack.getDefinition().pipeline() + " " + persona.yamlName() + " via " + service)
                    .filteredOn(
                            statement -> TemplateQueries.resources(statement).contains(key))
                    .singleElement()
                    .satisfies(statement -> {
                        assertThat(TemplateQueries.actions(statement)).containsExactly(action);
                        assertThat(TemplateQueries.resources(statement)).containsExactly(key);
                        assertThat(statement.get("Condition"))
                                .isEqualTo(Map.of("StringEquals", Map.of("kms:ViaService", List.of(via))));
                    });
        }
    }

    private static List<Map<String, Object>> keyStatements(Template template, PipelineStack stack, Persona persona) {
        return TemplateQueries.statementsOf(template, stack.getPersonas().getRole(persona)).stream()
                .filter(statement -> TemplateQueries.actions(statement).stream()
                        .anyMatch(a -> a.toString().startsWith("kms:")))
                .toList();
    }
}
