package dev.sluice.cdk;

import static dev.sluice.cdk.TestApps.getAtt;
import static dev.sluice.cdk.TestApps.ref;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awscdk.App;
import software.amazon.awscdk.services.iam.IRole;

/**
 * A {@code consumer: kcl} stage with a lake sink: its workers get the lake bucket and the commit
 * ledger, and its task role exactly what the lake sink calls (sluice-aws's {@code S3LakeSink.access}):
 * the ledger's consistent read and conditional updates, put and head of the objects under its prefix,
 * the listing of that prefix, the lake key through S3 — and cdk-nag stays clean.
 */
class KclLakeStageTest {

    private static final String VIEWS = """
            pipeline: views
            streams:
              views:
                shards: 2
                classification: internal
                schema: clickstream.pageview.v1
                partitionKey: payload.pageId
            lakes:
              views-lake:
                prefix: views/
            tables:
              views-by-id:
                key: eventId
            queues:
              views-dlq: {}
            stages:
              store:
                input: views
                consumer: kcl
                steps:
                  - validate
                sinks:
                  - lake: views-lake
                  - table: views-by-id
                failure:
                  deadLetterQueue: views-dlq
            access:
              analyst: [views-lake, views-by-id]
            """;

    @TempDir
    static Path dir;

    private static PipelineStack stack;
    private static KclStage stage;
    private static software.amazon.awscdk.assertions.Template template;

    @BeforeAll
    static void synthesize() throws Exception {
        App app = TestApps.app(dir);
        stack = new PipelineStack(
                app,
                "sluice-views",
                new PipelineStackProps(
                        TestApps.loader().parse("views.yaml", VIEWS), SluiceApp.lambdaArtifact(app), null));
        NagSuppressionsForSluice.apply(stack);
        NagChecks.apply(app);
        stage = stack.getKclStage("store");
        template = software.amazon.awscdk.assertions.Template.fromStack(stack);
    }

    @Test
    @SuppressWarnings("unchecked")
    void workersGetTheLakeBucketAndItsCommitLedger() {
        Map<String, Object> taskDefinition =
                template.findResources("AWS::ECS::TaskDefinition").get(TestApps.logicalId(stage.getTaskDefinition()));
        Map<String, Object> container = ((List<Map<String, Object>>)
                        ((Map<String, Object>) taskDefinition.get("Properties")).get("ContainerDefinitions"))
                .get(0);
        Map<String, Object> environment = new TreeMap<>();
        for (Map<String, Object> variable : (List<Map<String, Object>>) container.get("Environment")) {
            environment.put((String) variable.get("Name"), variable.get("Value"));
        }
        assertThat(environment)
                .containsEntry("SLUICE_LAKE_BUCKET", ref(stack.getLakeBucket().orElseThrow()))
                .containsEntry("SLUICE_LEDGER_TABLE", ref(stack.getLedgerTable().orElseThrow()))
                .containsEntry("SLUICE_TABLE_VIEWS_BY_ID", ref(stack.getTable("views-by-id")));
    }

    @Test
    void taskRoleMayWriteTheLakePrefixAndItsLedgerOnly() {
        Map<Object, TreeSet<String>> actions =
                actionsByResource(stage.getTaskDefinition().getTaskRole());
        Object bucket = getAtt(stack.getLakeBucket().orElseThrow(), "Arn");
        Object objects = Map.of("Fn::Join", List.of("", List.of(bucket, "/views/*")));
        assertThat(actions.get(getAtt(stack.getLedgerTable().orElseThrow(), "Arn")))
                .containsExactly("dynamodb:GetItem", "dynamodb:UpdateItem");
        assertThat(actions.get(objects)).containsExactly("s3:GetObject", "s3:PutObject");
        assertThat(actions.get(bucket)).containsExactly("s3:ListBucket");
        assertThat(TemplateQueries.allowing(
                        TemplateQueries.statementsOf(
                                template, stage.getTaskDefinition().getTaskRole()),
                        "s3:ListBucket"))
                .singleElement()
                .satisfies(statement -> assertThat(statement.get("Condition"))
                        .isEqualTo(Map.of("StringLike", Map.of("s3:prefix", List.of("views/*")))));
        assertThat(actions.get(getAtt(stack.getKey(PipelineKeys.Use.LAKE), "Arn")))
                .containsExactly("kms:GenerateDataKey");
        // nothing on the bucket's objects beyond the lake prefix and the dead-letter claim checks
        assertThat(actions.keySet())
                .filteredOn(resource -> resource.toString().contains(bucket.toString()) && !resource.equals(bucket))
                .containsExactlyInAnyOrder(
                        objects, Map.of("Fn::Join", List.of("", List.of(bucket, "/sluice-dead-letters/views-dlq/*"))));
    }

    @Test
    void nagPacksStayCleanWithALakeOnAKclStage() {
        assertThat(NagChecks.errors(stack))
                .as(describe(NagChecks.errors(stack)))
                .isEmpty();
        assertThat(NagChecks.warnings(stack))
                .as(describe(NagChecks.warnings(stack)))
                .isEmpty();
    }

    private static String describe(List<software.amazon.awscdk.cxapi.SynthesisMessage> messages) {
        return messages.stream()
                .map(m -> m.getId() + " " + m.getEntry().getData())
                .collect(java.util.stream.Collectors.joining("\n"));
    }

    /** Every resource the role's identity policies name, with the union of the actions allowed on it. */
    private static Map<Object, TreeSet<String>> actionsByResource(IRole role) {
        Map<Object, TreeSet<String>> out = new java.util.LinkedHashMap<>();
        for (Map<String, Object> statement : TemplateQueries.statementsOf(template, role)) {
            List<String> actions = new ArrayList<>();
            TemplateQueries.actions(statement).forEach(a -> actions.add((String) a));
            for (Object resource : TemplateQueries.resources(statement)) {
                out.computeIfAbsent(resource, r -> new TreeSet<>()).addAll(actions);
            }
        }
        return out;
    }
}
