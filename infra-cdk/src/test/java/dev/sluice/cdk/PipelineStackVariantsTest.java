package dev.sluice.cdk;

import static dev.sluice.cdk.TestApps.getAtt;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.definition.PipelineDefinition;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awscdk.App;
import software.amazon.awscdk.assertions.Match;
import software.amazon.awscdk.assertions.Template;

/**
 * Definitions other than the repository's: on-demand streams, no lake, KCL stages, defaults; and
 * enrich steps reading a table and a lake-bucket object, masks with their own secret names, and a
 * Lambda stage that aggregates.
 */
class PipelineStackVariantsTest {

    private static final String CLICKS = """
            pipeline: clicks
            streams:
              clicks-raw:
                onDemand: true
                retentionHours: 48
                classification: internal
                schema: payments.transaction.v1
              clicks-keyed:
                shards: 1
                schema: payments.transaction.v1
            tables:
              clicks-by-user:
                key: key
              sessions:
                key: key
            queues:
              clicks-dlq: {}
            stages:
              count:
                input: clicks-raw
                consumer: lambda
                handler: com.example.ClickHandler
                sinks:
                  - table: clicks-by-user
                batching:
                  startingPosition: LATEST
                failure:
                  deadLetterQueue: clicks-dlq
                  maxRetryAttempts: -1
              sessionize:
                input: clicks-keyed
                consumer: kcl
                sinks:
                  - table: sessions
                failure:
                  deadLetterQueue: clicks-dlq
            """;

    /** No lakes, but a reference object, so a bucket; enrich, mask and aggregate steps. */
    private static final String LOOKUPS = """
            pipeline: lookups
            streams:
              orders:
                shards: 1
                schema: payments.transaction.v1
            tables:
              customers:
                key: customerId
              enriched:
                key: eventId
              totals:
                key: pk
            references:
              customers:
                table: customers
                key: customerId
              countries:
                object: reference/countries.jsonl
            queues:
              dlq: {retentionDays: 4}
            stages:
              enricher:
                input: orders
                steps:
                  - enrich: {reference: customers, key: key, into: customer}
                  - enrich: {reference: countries, key: key, into: country}
                  - mask: {secret: pepper}
                sinks:
                  - table: enriched
                function: {memoryMb: 2048, timeoutSeconds: 120}
                failure:
                  deadLetterQueue: dlq
              totals:
                input: orders
                consumer: lambda
                steps:
                  - aggregate: {name: per-key, key: key, window: 1m, table: totals}
                failure:
                  deadLetterQueue: dlq
              later:
                input: orders
                consumer: kcl
                steps:
                  - mask
                sinks:
                  - table: enriched
                failure:
                  deadLetterQueue: dlq
            """;

    @TempDir
    static Path dir;

    private static PipelineStack stack;
    private static Template template;
    private static PipelineStack lookups;
    private static Template lookupsTemplate;

    @BeforeAll
    static void synthesize() throws Exception {
        App app = TestApps.app(dir);
        PipelineDefinition definition = TestApps.loader().parse("clicks.yaml", CLICKS);
        stack = new PipelineStack(
                app, "sluice-clicks", new PipelineStackProps(definition, SluiceApp.lambdaArtifact(app), null));
        lookups = new PipelineStack(
                app,
                "sluice-lookups",
                new PipelineStackProps(
                        TestApps.loader().parse("lookups.yaml", LOOKUPS), SluiceApp.lambdaArtifact(app), null));
        // every stack exists before the first synthesis
        template = Template.fromStack(stack);
        lookupsTemplate = Template.fromStack(lookups);
    }

    @Test
    void onDemandStreamHasNoShardCount() {
        template.hasResourceProperties(
                "AWS::Kinesis::Stream",
                Map.of(
                        "StreamModeDetails", Map.of("StreamMode", "ON_DEMAND"),
                        "RetentionPeriodHours", 48,
                        "ShardCount", Match.absent(),
                        "StreamEncryption", Map.of("KeyId", getAtt(stack.getKey(PipelineKeys.Use.STREAMS), "Arn"))));
    }

    @Test
    void pipelineWithoutLakesStillHasABucketForItsDeadLetterClaimChecks() {
        assertThat(stack.getLakeBucket()).isPresent();
        // the pipeline's bucket and its access-log bucket; no lake, so no commit ledger
        template.resourceCountIs("AWS::S3::Bucket", 2);
        assertThat(stack.getLedgerTable()).isEmpty();
    }

    @Test
    void onlyLambdaStagesGetAFunction() {
        assertThat(stack.getLambdaStages()).containsOnlyKeys("count");
        template.resourceCountIs("AWS::Lambda::Function", 1);
        template.resourceCountIs("AWS::Lambda::EventSourceMapping", 1);
    }

    @Test
    void functionGetsOnlyTheTablesItSinksTo() {
        template.hasResourceProperties(
                "AWS::Lambda::Function",
                Match.objectLike(Map.of(
                        "Handler",
                        "com.example.ClickHandler::handleRequest",
                        "Environment",
                        Map.of(
                                "Variables",
                                Match.objectEquals(Map.of(
                                        "SLUICE_PIPELINE",
                                        "clicks",
                                        "SLUICE_STAGE",
                                        "count",
                                        "SLUICE_TABLE_CLICKS_BY_USER",
                                        TestApps.ref(stack.getTable("clicks-by-user")),
                                        "SLUICE_QUEUE_URL_CLICKS_DLQ",
                                        TestApps.ref(stack.getQueue("clicks-dlq")),
                                        "SLUICE_LAKE_BUCKET",
                                        TestApps.ref(stack.getLakeBucket().orElseThrow()),
                                        "JAVA_TOOL_OPTIONS",
                                        StageEnvironment.JVM_FLAGS))))));
    }

    @Test
    void unboundedRetriesAndRecordAgeAreLeftToLambdasDefaults() {
        template.hasResourceProperties(
                "AWS::Lambda::EventSourceMapping",
                Map.of(
                        "StartingPosition", "LATEST",
                        "BatchSize", 100,
                        "MaximumRetryAttempts", Match.absent(),
                        "MaximumRecordAgeInSeconds", Match.absent(),
                        "FunctionResponseTypes", List.of("ReportBatchItemFailures")));
    }

    @Test
    void queueWithoutSettingsKeepsMessagesFourteenDays() {
        template.hasResourceProperties("AWS::SQS::Queue", Map.of("MessageRetentionPeriod", 14 * 24 * 3600));
    }

    @Test
    void queueKeepsMessagesForItsRetentionDays() {
        lookupsTemplate.hasResourceProperties("AWS::SQS::Queue", Map.of("MessageRetentionPeriod", 4 * 24 * 3600));
    }

    @Test
    void functionTakesTheStagesFunctionSettingsOrTheDefaults() {
        Map<String, Map<String, Object>> functions = lookupsTemplate.findResources("AWS::Lambda::Function");
        Map<String, Object> enricher =
                properties(functions, lookups.getLambdaStage("enricher").getFunction());
        assertThat(enricher)
                .containsEntry("MemorySize", 2048)
                .containsEntry("Timeout", 120)
                .doesNotContainKey("ReservedConcurrentExecutions");
        Map<String, Object> totals =
                properties(functions, lookups.getLambdaStage("totals").getFunction());
        assertThat(totals)
                .containsEntry("MemorySize", 1024)
                .containsEntry("Timeout", 60)
                .doesNotContainKey("ReservedConcurrentExecutions");
    }

    @Test
    void everyTableReferenceAggregateAndLeaseIncludedHasDeletionProtection() {
        Map<String, Map<String, Object>> tables = lookupsTemplate.findResources("AWS::DynamoDB::Table");
        assertThat(tables).hasSize(4);
        assertThat(tables.values())
                .allSatisfy(table -> assertThat(((Map<?, ?>) table.get("Properties")).get("DeletionProtectionEnabled"))
                        .isEqualTo(true));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> properties(
            Map<String, Map<String, Object>> resources, software.constructs.IConstruct construct) {
        return (Map<String, Object>)
                resources.get(TestApps.logicalId(construct)).get("Properties");
    }

    @Test
    void pipelineWithoutMaskStepsHasNoSecret() {
        assertThat(stack.getSecrets()).isEmpty();
        template.resourceCountIs("AWS::SecretsManager::Secret", 0);
    }

    @Test
    void kclStageGetsAKclServiceAndNothingIsSkipped() {
        assertThat(stack.getKclStages()).containsOnlyKeys("sessionize");
        assertThat(stack.getSkippedStages()).isEmpty();
    }

    @Test
    void enrichingStageNamesItsReferenceTableBucketAndSecret() {
        LambdaStage enricher = lookups.getLambdaStage("enricher");
        assertThat(TemplateQueries.environment(lookupsTemplate, enricher.getFunction()))
                .containsOnlyKeys(
                        "SLUICE_PIPELINE",
                        "SLUICE_STAGE",
                        "SLUICE_TABLE_ENRICHED",
                        "SLUICE_TABLE_CUSTOMERS",
                        "SLUICE_LAKE_BUCKET",
                        "SLUICE_SECRET_ID_PEPPER",
                        "SLUICE_QUEUE_URL_DLQ",
                        "JAVA_TOOL_OPTIONS")
                .containsEntry("SLUICE_TABLE_CUSTOMERS", TestApps.ref(lookups.getTable("customers")))
                .containsEntry(
                        "SLUICE_LAKE_BUCKET",
                        TestApps.ref(lookups.getLakeBucket().orElseThrow()))
                .containsEntry("SLUICE_SECRET_ID_PEPPER", TestApps.ref(lookups.getSecret("pepper")));
    }

    @Test
    void referenceObjectGetsABucketEvenWithoutLakes() {
        assertThat(lookups.getDefinition().lakes()).isEmpty();
        assertThat(lookups.getLakeBucket()).isPresent();
        lookupsTemplate.resourceCountIs("AWS::S3::Bucket", 2); // the lake bucket and its access logs
    }

    @Test
    void pipelineWithoutLakesHasNoLedgerTable() {
        assertThat(lookups.getDefinition().lakes()).isEmpty();
        assertThat(lookups.getLedgerTable()).isEmpty();
        // the declared tables and the KCL stage's lease table
        lookupsTemplate.resourceCountIs(
                "AWS::DynamoDB::Table",
                lookups.getDefinition().tables().size() + lookups.getKclStages().size());
    }

    @Test
    void referenceTableIsReadNotWritten() {
        LambdaStage enricher = lookups.getLambdaStage("enricher");
        List<Map<String, Object>> statements = TemplateQueries.statementsOf(
                lookupsTemplate, enricher.getFunction().getRole());
        Object customers = getAtt(lookups.getTable("customers"), "Arn");
        assertThat(TemplateQueries.allowing(statements, "dynamodb:Scan"))
                .singleElement()
                .satisfies(statement ->
                        assertThat(TemplateQueries.resources(statement)).contains(customers));
        assertThat(TemplateQueries.allowing(statements, "dynamodb:PutItem"))
                .isNotEmpty()
                .allSatisfy(statement ->
                        assertThat(TemplateQueries.resources(statement)).doesNotContain(customers));
    }

    @Test
    void referenceObjectIsReadByItsExactKeyOnly() {
        LambdaStage enricher = lookups.getLambdaStage("enricher");
        List<Map<String, Object>> s3 =
                TemplateQueries.statementsOf(
                                lookupsTemplate, enricher.getFunction().getRole())
                        .stream()
                        .filter(statement -> TemplateQueries.actions(statement).stream()
                                .anyMatch(action -> action.toString().startsWith("s3:")))
                        // the put on its dead-letter claim checks is ClaimCheckGrantsTest's
                        .filter(statement -> !TemplateQueries.actions(statement).equals(List.of("s3:PutObject")))
                        .toList();
        Object objectArn = Map.of(
                "Fn::Join",
                List.of(
                        "",
                        List.of(getAtt(lookups.getLakeBucket().orElseThrow(), "Arn"), "/reference/countries.jsonl")));
        assertThat(s3).singleElement().satisfies(statement -> {
            assertThat(TemplateQueries.actions(statement)).containsExactly("s3:GetObject");
            assertThat(TemplateQueries.resources(statement)).containsExactly(objectArn);
        });
    }

    @Test
    void everyMaskSecretIsCreatedAndEachFunctionReadsOnlyItsOwn() {
        assertThat(lookups.getSecrets()).containsOnlyKeys("pepper", "tokenization-key");
        lookupsTemplate.resourceCountIs("AWS::SecretsManager::Secret", 2);
        List<Map<String, Object>> reading =
                TemplateQueries.allowing(TemplateQueries.statements(lookupsTemplate), "secretsmanager:GetSecretValue");
        assertThat(reading).hasSize(2);
        assertThat(TemplateQueries.allowing(
                        TemplateQueries.statementsOf(
                                lookupsTemplate,
                                lookups.getLambdaStage("enricher").getFunction().getRole()),
                        "secretsmanager:GetSecretValue"))
                .singleElement()
                .satisfies(statement -> assertThat(TemplateQueries.resources(statement))
                        .containsExactly(TestApps.ref(lookups.getSecret("pepper"))));
        // the KCL stage's mask step uses the default secret
        assertThat(TemplateQueries.allowing(
                        TemplateQueries.statementsOf(
                                lookupsTemplate,
                                lookups.getKclStage("later").getTaskDefinition().getTaskRole()),
                        "secretsmanager:GetSecretValue"))
                .singleElement()
                .satisfies(statement -> assertThat(TemplateQueries.resources(statement))
                        .containsExactly(TestApps.ref(lookups.getSecret("tokenization-key"))));
    }

    @Test
    void aggregatingLambdaStageGetsAFunctionAndTheKclStageAService() {
        assertThat(lookups.getLambdaStages()).containsOnlyKeys("enricher", "totals");
        assertThat(lookups.getKclStages()).containsOnlyKeys("later");
        assertThat(lookups.getSkippedStages()).isEmpty();
        lookupsTemplate.resourceCountIs("AWS::Lambda::Function", 2);
        lookupsTemplate.resourceCountIs("AWS::Lambda::EventSourceMapping", 2);
        Map<String, Object> environment = TemplateQueries.environment(
                lookupsTemplate, lookups.getLambdaStage("totals").getFunction());
        assertThat(environment).containsEntry("SLUICE_TABLE_TOTALS", TestApps.ref(lookups.getTable("totals")));
    }

    @Test
    void aggregatingFunctionMayGetAndUpdateItemsOfItsAggregateTableOnly() {
        List<Map<String, Object>> statements = TemplateQueries.statementsOf(
                lookupsTemplate, lookups.getLambdaStage("totals").getFunction().getRole());
        Object totals = getAtt(lookups.getTable("totals"), "Arn");
        List<Map<String, Object>> onTotals = statements.stream()
                .filter(statement -> TemplateQueries.resources(statement).contains(totals))
                .toList();

        assertThat(onTotals).singleElement().satisfies(statement -> {
            assertThat(TemplateQueries.actions(statement))
                    .containsExactlyInAnyOrder("dynamodb:GetItem", "dynamodb:UpdateItem");
            assertThat(TemplateQueries.resources(statement)).containsExactly(totals);
        });
        List<Object> dynamoDbActions = new java.util.ArrayList<>();
        statements.stream()
                .flatMap(statement -> TemplateQueries.actions(statement).stream())
                .filter(action -> action.toString().startsWith("dynamodb:"))
                .forEach(dynamoDbActions::add);
        assertThat(dynamoDbActions).containsExactlyInAnyOrder("dynamodb:GetItem", "dynamodb:UpdateItem");
        // the function encrypts with the tables key (through DynamoDB only), with no other key (its dead
        // letters need only GenerateDataKey and Decrypt of the dead-letters key)
        List<Object> encrypting = TemplateQueries.allowing(statements, "kms:Encrypt").stream()
                .flatMap(statement -> TemplateQueries.resources(statement).stream())
                .toList();
        assertThat(encrypting).containsExactly(getAtt(lookups.getKey(PipelineKeys.Use.TABLES), "Arn"));
        assertThat(TemplateQueries.allowing(statements, "kms:Encrypt"))
                .filteredOn(statement -> TemplateQueries.resources(statement)
                        .contains(getAtt(lookups.getKey(PipelineKeys.Use.TABLES), "Arn")))
                .singleElement()
                .satisfies(statement -> assertThat(statement.get("Condition"))
                        .isEqualTo(Map.of(
                                "StringEquals",
                                Map.of(
                                        "kms:ViaService",
                                        Map.of(
                                                "Fn::Join",
                                                List.of(
                                                        "",
                                                        List.of(
                                                                "dynamodb.",
                                                                Map.of("Ref", "AWS::Region"),
                                                                ".amazonaws.com")))))));
    }

    @Test
    void referenceObjectKeyWithIamWildcardsIsRefused() throws Exception {
        // an app of its own: this one is already synthesized
        App other = TestApps.app(Files.createDirectories(dir.resolve("wildcards")));
        String wildcard =
                LOOKUPS.replace("lookups", "wildcards").replace("reference/countries.jsonl", "reference/*.jsonl");
        PipelineDefinition definition = TestApps.loader().parse("wildcards.yaml", wildcard);
        assertThatThrownBy(() -> new PipelineStack(
                        other,
                        "sluice-wildcards",
                        new PipelineStackProps(definition, SluiceApp.lambdaArtifact(other), null)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("reference/*.jsonl")
                .hasMessageContaining("*, ? or $");
    }
}
