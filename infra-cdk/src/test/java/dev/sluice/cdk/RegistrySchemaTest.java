package dev.sluice.cdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awscdk.App;
import software.amazon.awscdk.assertions.Template;

/**
 * Every pipeline's synthesized template against CloudFormation's registry schemas ({@link RegistrySchemaCheck}):
 * what CloudFormation would refuse at deployment for a property's type, a missing required or an unknown property,
 * an enum, a pattern, a length or a bound fails here, offline.
 */
class RegistrySchemaTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    /** Settings the repository's pipelines do not use: an on-demand stream, unbounded retries, no lake. */
    private static final String VARIANTS = """
            pipeline: variants
            streams:
              raw:
                onDemand: true
                retentionHours: 48
                classification: internal
                schema: payments.transaction.v1
            tables:
              latest:
                key: key
            queues:
              variants-dlq:
                retentionDays: 14
            stages:
              keep:
                input: raw
                consumer: lambda
                handler: com.example.KeepHandler
                sinks:
                  - table: latest
                batching:
                  startingPosition: LATEST
                failure:
                  deadLetterQueue: variants-dlq
                  maxRetryAttempts: -1
            """;

    @TempDir
    static Path dir;

    /**
     * Stack name → template: every {@code pipelines/*.yaml} as {@code cdk deploy} would deploy it (KCL stages with an
     * image set), and {@link #VARIANTS}.
     */
    private static final Map<String, JsonNode> templates = new LinkedHashMap<>();

    private static RegistrySchemaCheck check;

    @BeforeAll
    static void synthesize() throws Exception {
        check = new RegistrySchemaCheck(RegistrySchemas.installed());
        for (PipelineStack stack : RepositoryPipelines.get().stacks()) {
            templates.put(
                    stack.getStackName(),
                    MAPPER.valueToTree(RepositoryPipelines.get().template(stack).toJSON()));
        }
        App app = TestApps.app(dir); // the variants in an app of their own
        PipelineStack variants = new PipelineStack(
                app,
                "sluice-variants",
                new PipelineStackProps(
                        TestApps.loader().parse("variants.yaml", VARIANTS), SluiceApp.lambdaArtifact(app), null));
        templates.put(
                variants.getStackName(),
                MAPPER.valueToTree(Template.fromStack(variants).toJSON()));
    }

    @Test
    void everyPipelineTemplateMatchesTheRegistrySchemas() {
        assertThat(templates).containsKeys("sluice-payments", "sluice-clickstream", "sluice-variants");
        templates.forEach((stack, template) -> assertThat(check.check(template))
                .as("%s against CloudFormation's registry schemas", stack)
                .isEmpty());
    }

    @Test
    void aRetentionBelowKinesisMinimumIsReportedAtItsProperty() {
        ObjectNode template = copyOf("sluice-payments");
        String stream = logicalIdOf(template, "AWS::Kinesis::Stream");
        properties(template, stream).put("RetentionPeriodHours", 12);

        assertThat(check.check(template)).singleElement().satisfies(v -> {
            assertThat(v.logicalId()).isEqualTo(stream);
            assertThat(v.pointer()).isEqualTo("/Resources/" + stream + "/Properties/RetentionPeriodHours");
            assertThat(v.message()).contains("24");
        });
    }

    @Test
    void anUnknownQueuePropertyIsReportedWithItsName() {
        ObjectNode template = copyOf("sluice-payments");
        String queue = logicalIdOf(template, "AWS::SQS::Queue");
        properties(template, queue).put("VisibilityTimeoutSecs", 30);

        assertThat(check.check(template)).singleElement().satisfies(v -> {
            assertThat(v.logicalId()).isEqualTo(queue);
            assertThat(v.type()).isEqualTo("AWS::SQS::Queue");
            assertThat(v.pointer()).isEqualTo("/Resources/" + queue + "/Properties/VisibilityTimeoutSecs");
        });
    }

    @Test
    void aTableWithoutKeySchemaIsReportedAtTheMissingProperty() {
        ObjectNode template = copyOf("sluice-payments");
        String table = logicalIdOf(template, "AWS::DynamoDB::Table");
        properties(template, table).remove("KeySchema");

        assertThat(check.check(template)).singleElement().satisfies(v -> {
            assertThat(v.logicalId()).isEqualTo(table);
            assertThat(v.pointer()).isEqualTo("/Resources/" + table + "/Properties/KeySchema");
            assertThat(v.message()).isEqualTo("required property 'KeySchema' not found");
        });
    }

    @Test
    void aValueOutsideAnEnumIsReportedAtTheNestedProperty() {
        ObjectNode template = copyOf("sluice-payments");
        String stream = logicalIdOf(template, "AWS::Kinesis::Stream");
        ((ObjectNode) properties(template, stream).get("StreamEncryption")).put("EncryptionType", "AES256");
        String logGroup = logicalIdOf(template, "AWS::Logs::LogGroup");
        properties(template, logGroup).put("RetentionInDays", 31);

        assertThat(check.check(template))
                .extracting(RegistrySchemaCheck.Violation::pointer)
                .containsExactlyInAnyOrder(
                        "/Resources/" + stream + "/Properties/StreamEncryption/EncryptionType",
                        "/Resources/" + logGroup + "/Properties/RetentionInDays");
    }

    @Test
    void aNameOutsideItsPatternIsReported() {
        ObjectNode template = copyOf("sluice-payments");
        String logGroup = logicalIdOf(template, "AWS::Logs::LogGroup");
        properties(template, logGroup).put("LogGroupName", "sluice payments");

        assertThat(check.check(template))
                .extracting(RegistrySchemaCheck.Violation::pointer, RegistrySchemaCheck.Violation::logicalId)
                .containsExactly(tuple("/Resources/" + logGroup + "/Properties/LogGroupName", logGroup));
    }

    @Test
    void aLiteralOfTheWrongTypeIsReportedButAnIntrinsicIsNot() throws Exception {
        ObjectNode template = copyOf("sluice-payments");
        String stream = logicalIdOf(template, "AWS::Kinesis::Stream");
        properties(template, stream).put("RetentionPeriodHours", "24 hours");
        assertThat(check.check(template))
                .extracting(RegistrySchemaCheck.Violation::pointer)
                .containsExactly("/Resources/" + stream + "/Properties/RetentionPeriodHours");

        for (String intrinsic : List.of(
                "{\"Ref\": \"RetentionParameter\"}",
                "{\"Fn::If\": [\"Long\", 168, 24]}",
                "{\"Fn::GetAtt\": [\"Somewhere\", \"Hours\"]}")) {
            properties(template, stream).set("RetentionPeriodHours", MAPPER.readTree(intrinsic));
            assertThat(check.check(template)).as(intrinsic).isEmpty();
        }
    }

    @Test
    void literalsBesideAnIntrinsicAreStillChecked() throws Exception {
        ObjectNode template = copyOf("sluice-payments");
        String stream = logicalIdOf(template, "AWS::Kinesis::Stream");
        ObjectNode encryption = (ObjectNode) properties(template, stream).get("StreamEncryption");
        encryption.set("KeyId", MAPPER.readTree("{\"Fn::Sub\": \"arn:${AWS::Partition}:kms:key/x\"}"));
        encryption.put("EncryptionType", "NONE");

        assertThat(check.check(template))
                .extracting(RegistrySchemaCheck.Violation::pointer)
                .containsExactly("/Resources/" + stream + "/Properties/StreamEncryption/EncryptionType");
    }

    @Test
    void aReadOnlyPropertyIsRefused() {
        ObjectNode template = copyOf("sluice-payments");
        String stream = logicalIdOf(template, "AWS::Kinesis::Stream");
        properties(template, stream).put("Arn", "arn:aws:kinesis:eu-west-1:123456789012:stream/x");

        assertThat(check.check(template))
                .extracting(RegistrySchemaCheck.Violation::pointer)
                .containsExactly("/Resources/" + stream + "/Properties/Arn");
    }

    @Test
    void aResourceTypeTheRegistryDoesNotKnowIsReported() {
        ObjectNode template = copyOf("sluice-payments");
        String queue = logicalIdOf(template, "AWS::SQS::Queue");
        ((ObjectNode) template.path("Resources").path(queue)).put("Type", "AWS::SQS::Queues");

        assertThat(check.check(template)).singleElement().satisfies(v -> {
            assertThat(v.pointer()).isEqualTo("/Resources/" + queue + "/Type");
            assertThat(v.message()).contains("AWS::SQS::Queues");
        });
    }

    @Test
    void aCustomResourceNeedsOnlyItsServiceToken() throws Exception {
        ObjectNode template = copyOf("sluice-payments");
        ObjectNode resources = (ObjectNode) template.get("Resources");
        resources.set(
                "Seeder",
                MAPPER.readTree("{\"Type\": \"Custom::Seeder\", \"Properties\": {\"ServiceToken\":"
                        + " {\"Fn::GetAtt\": [\"SeederFunction\", \"Arn\"]}, \"Rows\": 10}}"));
        assertThat(check.check(template)).isEmpty();

        ((ObjectNode) resources.get("Seeder").get("Properties")).remove("ServiceToken");
        assertThat(check.check(template))
                .extracting(RegistrySchemaCheck.Violation::pointer)
                .containsExactly("/Resources/Seeder/Properties/ServiceToken");
    }

    @Test
    void aTypeNewerThanTheSnapshotIsCheckedAgainstTheServiceSpec() throws Exception {
        ObjectNode template = copyOf("sluice-payments");
        String stream = logicalIdOf(template, "AWS::Kinesis::Stream");
        ObjectNode resources = (ObjectNode) template.get("Resources");
        resources.set(
                "StreamPolicy",
                MAPPER.readTree("{\"Type\": \"AWS::Kinesis::ResourcePolicy\", \"Properties\": {\"ResourceArn\":"
                        + " {\"Fn::GetAtt\": [\"" + stream + "\", \"Arn\"]},"
                        + " \"ResourcePolicy\": {\"Version\": \"2012-10-17\", \"Statement\": []}}}"));
        assertThat(check.check(template)).isEmpty();

        ObjectNode policy = (ObjectNode) resources.get("StreamPolicy").get("Properties");
        policy.remove("ResourcePolicy");
        policy.put("Policy", "{}");
        assertThat(check.check(template))
                .extracting(RegistrySchemaCheck.Violation::pointer)
                .containsExactly(
                        "/Resources/StreamPolicy/Properties/Policy",
                        "/Resources/StreamPolicy/Properties/ResourcePolicy");
    }

    private static ObjectNode properties(JsonNode template, String logicalId) {
        return (ObjectNode) template.path("Resources").path(logicalId).path("Properties");
    }

    private static ObjectNode copyOf(String stack) {
        return templates.get(stack).deepCopy();
    }

    private static String logicalIdOf(JsonNode template, String type) {
        List<String> ids = new ArrayList<>();
        template.path("Resources").fields().forEachRemaining(e -> {
            if (e.getValue().path("Type").asText().equals(type)) {
                ids.add(e.getKey());
            }
        });
        assertThat(ids).as("resources of type %s", type).isNotEmpty();
        return ids.get(0);
    }
}
