package dev.sluice.cdk;

import static dev.sluice.cdk.TestApps.getAtt;
import static dev.sluice.cdk.TestApps.ref;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.definition.ConsumerType;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.definition.SinkDefinition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awscdk.assertions.Match;
import software.amazon.awscdk.assertions.Template;

/**
 * The stack synthesized from {@code pipelines/clickstream.yaml}: a Lambda stage that masks and
 * re-keys into a second stream, and a KCL stage ({@link KclStageTest} covers its service).
 */
class ClickstreamPipelineStackTest {

    private static PipelineStack stack;
    private static PipelineDefinition definition;
    private static Template template;

    @BeforeAll
    static void synthesize() throws Exception {
        RepositoryPipelines pipelines = RepositoryPipelines.get();
        stack = pipelines.stack("clickstream");
        definition = stack.getDefinition();
        template = pipelines.template(stack);
    }

    @Test
    void stackIsNamedAfterThePipelineAndKeepsEveryDeclaredResource() {
        assertThat(stack.getStackName()).isEqualTo("sluice-clickstream");
        assertThat(definition.streams()).containsOnlyKeys("clicks-raw", "clicks-by-page");
        assertThat(definition.tables()).containsOnlyKeys("clicks-by-id", "page-catalogue", "page-views-per-minute");
        template.resourceCountIs("AWS::Kinesis::Stream", 2);
        // the three declared tables, the lake's commit ledger and page-counts' KCL lease table
        template.resourceCountIs("AWS::DynamoDB::Table", 5);
        assertThat(stack.getLedgerTable()).isPresent();
        template.resourceCountIs("AWS::SQS::Queue", 1);
        template.resourceCountIs("AWS::S3::Bucket", 2); // the lake bucket and its access logs
        template.resourceCountIs("AWS::SecretsManager::Secret", 1);
        template.hasResourceProperties(
                "AWS::Kinesis::Stream",
                Map.of(
                        "ShardCount",
                        2,
                        "StreamEncryption",
                        Map.of(
                                "EncryptionType",
                                "KMS",
                                "KeyId",
                                getAtt(stack.getKey(PipelineKeys.Use.STREAMS), "Arn"))));
    }

    @Test
    void rekeyStageFunctionNamesItsTargetStreamAndSecretAmongResourceNamesOnly() {
        assertThat(definition.stage("mask-and-rekey").sinks())
                .contains(new SinkDefinition(null, null, "clicks-by-page", true));
        LambdaStage stage = stack.getLambdaStage("mask-and-rekey");
        assertThat(TemplateQueries.environment(template, stage.getFunction()))
                .containsOnlyKeys(
                        "SLUICE_PIPELINE",
                        "SLUICE_STAGE",
                        "SLUICE_LAKE_BUCKET",
                        "SLUICE_LEDGER_TABLE",
                        "SLUICE_STREAM_CLICKS_BY_PAGE",
                        "SLUICE_QUEUE_URL_CLICKS_DLQ",
                        "SLUICE_SECRET_ID_TOKENIZATION_KEY",
                        "JAVA_TOOL_OPTIONS")
                .containsEntry("SLUICE_PIPELINE", "clickstream")
                .containsEntry("SLUICE_STAGE", "mask-and-rekey")
                // Ref of a stream is its physical name
                .containsEntry("SLUICE_STREAM_CLICKS_BY_PAGE", ref(stack.getStream("clicks-by-page")))
                .containsEntry("SLUICE_LAKE_BUCKET", ref(stack.getLakeBucket().orElseThrow()))
                .containsEntry("SLUICE_SECRET_ID_TOKENIZATION_KEY", ref(stack.getSecret("tokenization-key")));
    }

    @Test
    void rekeyStageMayPutRecordsIntoClicksByPageOnly() {
        LambdaStage stage = stack.getLambdaStage("mask-and-rekey");
        List<Map<String, Object>> all = TemplateQueries.statements(template);
        List<Map<String, Object>> putting = TemplateQueries.allowing(all, "kinesis:PutRecords");
        assertThat(putting).hasSize(1);
        assertThat(TemplateQueries.resources(putting.get(0)))
                .containsExactly(getAtt(stack.getStream("clicks-by-page"), "Arn"));
        assertThat(TemplateQueries.statementsOf(template, stage.getFunction().getRole()))
                .contains(putting.get(0));
        // no identity policy lets anything write to another stream, or use a wildcard resource
        assertThat(all)
                .filteredOn(statement -> TemplateQueries.actions(statement).stream()
                        .anyMatch(action -> action.toString().startsWith("kinesis:Put")))
                .allSatisfy(statement -> assertThat(TemplateQueries.resources(statement))
                        .containsExactly(getAtt(stack.getStream("clicks-by-page"), "Arn")));
        List<Object> resources = new ArrayList<>();
        all.forEach(statement -> resources.addAll(TemplateQueries.resources(statement)));
        assertThat(resources).isNotEmpty();
        // the * resources: KCL's cloudwatch:PutMetricData, limited to its namespace by condition, and the
        // task execution role's ecr:GetAuthorizationToken, which takes no resource (the worker image is in ECR)
        List<Map<String, Object>> wildcards = all.stream()
                .filter(statement -> TemplateQueries.resources(statement).contains("*"))
                .toList();
        assertThat(wildcards)
                .hasSize(2)
                .anySatisfy(statement -> {
                    assertThat(TemplateQueries.actions(statement)).containsExactly("cloudwatch:PutMetricData");
                    assertThat(statement.get("Condition"))
                            .isEqualTo(Map.of(
                                    "StringEquals", Map.of("cloudwatch:namespace", "sluice-clickstream-page-counts")));
                })
                .anySatisfy(statement -> {
                    assertThat(TemplateQueries.actions(statement)).containsExactly("ecr:GetAuthorizationToken");
                    assertThat(TemplateQueries.statementsOf(
                                    template,
                                    stack.getKclStage("page-counts")
                                            .getTaskDefinition()
                                            .getExecutionRole()))
                            .contains(statement);
                });
    }

    @Test
    void rekeyStageMayReadItsSecretOnly() {
        List<Map<String, Object>> reading =
                TemplateQueries.allowing(TemplateQueries.statements(template), "secretsmanager:GetSecretValue");
        assertThat(reading).hasSize(1);
        assertThat(TemplateQueries.resources(reading.get(0))).containsExactly(ref(stack.getSecret("tokenization-key")));
        template.hasResourceProperties(
                "AWS::SecretsManager::Secret",
                Match.objectLike(Map.of("KmsKeyId", getAtt(stack.getKey(PipelineKeys.Use.SECRETS), "Arn"))));
    }

    @Test
    void kclStagePageCountsGetsAKclServiceNoFunctionAndIsNotSkipped() {
        assertThat(definition.stage("page-counts").consumer()).isEqualTo(ConsumerType.KCL);
        assertThat(stack.getLambdaStages()).containsOnlyKeys("mask-and-rekey");
        assertThat(stack.getKclStages()).containsOnlyKeys("page-counts");
        assertThat(stack.getSkippedStages()).isEmpty();

        template.resourceCountIs("AWS::Lambda::Function", 1);
        List<Object> stages = new ArrayList<>();
        template.findResources("AWS::Lambda::Function")
                .keySet()
                .forEach(id ->
                        stages.add(TemplateQueries.environment(template, id).get("SLUICE_STAGE")));
        assertThat(stages).containsExactly("mask-and-rekey");
        // its log group is the KCL workers'
        template.resourcePropertiesCountIs(
                "AWS::Logs::LogGroup", Map.of("LogGroupName", "/sluice/clickstream/page-counts"), 1);
        template.resourceCountIs("AWS::ECS::Service", 1);
        // the only event-source mapping reads clicks-raw: the KCL workers read clicks-by-page
        template.resourceCountIs("AWS::Lambda::EventSourceMapping", 1);
        template.hasResourceProperties(
                "AWS::Lambda::EventSourceMapping",
                Map.of("EventSourceArn", getAtt(stack.getStream("clicks-raw"), "Arn"), "BatchSize", 500));
    }

    @Test
    void onlyTheKclStageReadsTheCatalogueAndWritesTheAggregateTable() {
        Object ledger = getAtt(stack.getLedgerTable().orElseThrow(), "Arn");
        List<Map<String, Object>> dynamoDb =
                TemplateQueries.statementsOf(
                                template,
                                stack.getLambdaStage("mask-and-rekey")
                                        .getFunction()
                                        .getRole())
                        .stream()
                        .filter(statement -> TemplateQueries.actions(statement).stream()
                                .anyMatch(action -> action.toString().startsWith("dynamodb:")))
                        .toList();
        // the only DynamoDB access is the lake's commit ledger, for the stage that writes the lake
        assertThat(dynamoDb)
                .singleElement()
                .satisfies(statement ->
                        assertThat(TemplateQueries.resources(statement)).containsExactly(ledger));
        List<Object> kcl = new ArrayList<>();
        TemplateQueries.statementsOf(
                        template,
                        stack.getKclStage("page-counts").getTaskDefinition().getTaskRole())
                .forEach(statement -> kcl.addAll(TemplateQueries.resources(statement)));
        assertThat(kcl)
                .contains(
                        getAtt(stack.getTable("page-catalogue"), "Arn"),
                        getAtt(stack.getTable("page-views-per-minute"), "Arn"))
                .doesNotContain(ledger);
    }

    @Test
    void lakeWritingStageRunsOneBatchPerShard() {
        template.hasResourceProperties(
                "AWS::Lambda::EventSourceMapping",
                Map.of("EventSourceArn", getAtt(stack.getStream("clicks-raw"), "Arn"), "ParallelizationFactor", 1));
    }

    @Test
    void noFunctionEnvironmentHoldsSecretLookingValues() {
        List<String> findings = new ArrayList<>();
        template.findResources("AWS::Lambda::Function")
                .keySet()
                .forEach(id -> SecretLookingValues.in(
                                TemplateQueries.environment(template, id), TemplateQueries.secretLogicalIds(template))
                        .forEach(f -> findings.add(id + " " + f)));
        assertThat(findings).isEmpty();
    }
}
