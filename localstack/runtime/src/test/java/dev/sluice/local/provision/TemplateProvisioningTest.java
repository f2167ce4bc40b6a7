package dev.sluice.local.provision;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.cdk.ResourceMetadata;
import dev.sluice.core.definition.BatchingDefinition;
import dev.sluice.core.definition.DefinitionLoader;
import dev.sluice.core.definition.EnvironmentNames;
import dev.sluice.core.definition.FailureDefinition;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.definition.StageDefinition;
import dev.sluice.core.schema.SchemaCatalog;
import dev.sluice.emulators.ResourceNames;
import dev.sluice.local.esm.MappingConfig;
import dev.sluice.local.template.CloudFormationTemplate;
import dev.sluice.local.template.PhysicalNames;
import dev.sluice.local.template.ResourceTypes;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.GlobalSecondaryIndex;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * The local stack's provisioning plan, read from the real templates the CDK app synthesizes for
 * every {@code pipelines/*.yaml} (in this JVM, no emulator involved).
 */
class TemplateProvisioningTest {

    private static final Path ROOT = Path.of(System.getProperty("sluice.root"));
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final ResourceNames NAMES = new ResourceNames("t1");
    private static final String SQS = "http://127.0.0.1:9/000000000000/";

    private static List<PipelineDefinition> pipelines() {
        return new DefinitionLoader(SchemaCatalog.fromDirectory(ROOT.resolve("schemas"), MAPPER))
                .loadAll(ROOT.resolve("pipelines"));
    }

    private static PipelineDefinition pipeline(String name) {
        return pipelines().stream()
                .filter(p -> p.pipeline().equals(name))
                .findFirst()
                .orElseThrow();
    }

    private static Provisioner.Plan plan(PipelineDefinition pipeline) {
        return Provisioner.plan(
                pipeline,
                CloudFormationTemplate.synthesize(pipeline),
                NAMES,
                "us-east-1",
                "000000000000",
                queue -> SQS + queue);
    }

    /**
     * The local name of the pipeline's resource of this {@code sluice:kind} and {@code sluice:name}:
     * its explicit name in the template (with the test's suffix), else the name CloudFormation gives
     * it: stack (per test), logical id, twelve characters.
     */
    private static String generated(PipelineDefinition pipeline, String kind, String name, int maxLength) {
        CloudFormationTemplate template = CloudFormationTemplate.synthesize(pipeline);
        CloudFormationTemplate.Resource resource = template.resources().values().stream()
                .filter(r ->
                        r.kind().orElse("").equals(kind) && r.name().orElse("").equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + kind + " " + name + " in " + template.stackName()));
        for (String property : List.of("Name", "TableName", "BucketName", "QueueName", "FunctionName")) {
            if (resource.property(property).isTextual()) {
                return NAMES.name(resource.property(property).asText());
            }
        }
        String generated = PhysicalNames.generated(NAMES.name(template.stackName()), resource.logicalId(), maxLength);
        assertThat(generated)
                .startsWith(NAMES.name(template.stackName()) + "-" + resource.logicalId() + "-")
                .matches(".*-[A-Z0-9]{12}")
                .hasSizeLessThanOrEqualTo(maxLength);
        return generated;
    }

    @Test
    void everyResourceTypeOfEverySynthesizedTemplateIsProvisionedOrListedAwsOnly() {
        List<PipelineDefinition> pipelines = pipelines();
        assertThat(pipelines).extracting(PipelineDefinition::pipeline).contains("payments", "clickstream");
        TreeSet<String> seen = new TreeSet<>();
        for (PipelineDefinition pipeline : pipelines) {
            CloudFormationTemplate template = CloudFormationTemplate.synthesize(pipeline);
            assertThat(template.resources()).isNotEmpty();
            for (CloudFormationTemplate.Resource resource : template.resources().values()) {
                seen.add(resource.type());
                assertThat(ResourceTypes.provisioned(resource.type())
                                || ResourceTypes.AWS_ONLY.containsKey(resource.type()))
                        .as(
                                "%s %s (%s) is provisioned locally or listed AWS-only",
                                template.stackName(), resource.logicalId(), resource.type())
                        .isTrue();
            }
            ResourceTypes.check(template); // and the provisioner's own check agrees
            // every provisioned resource of the template got a local counterpart
            Provisioner.Plan plan = plan(pipeline);
            template.resources().values().stream()
                    .filter(r -> ResourceTypes.provisioned(r.type()))
                    .forEach(r -> assertThat(plan.resources().provisioned())
                            .as("%s %s", template.stackName(), r.logicalId())
                            .containsKey(r.logicalId()));
        }
        // the templates exercise both lists
        assertThat(seen).contains("AWS::Kinesis::Stream", "AWS::Lambda::EventSourceMapping", "AWS::ECS::Service");
        assertThat(seen).contains("AWS::IAM::Role", "AWS::KMS::Key", "AWS::CloudWatch::Alarm");
    }

    @Test
    void awsOnlyTypesAreNotProvisionedAndEachHasAReason() {
        assertThat(ResourceTypes.AWS_ONLY.keySet()).doesNotContainAnyElementsOf(ResourceTypes.PROVISIONED);
        ResourceTypes.AWS_ONLY.forEach(
                (type, reason) -> assertThat(reason).as(type).isNotBlank());
    }

    @Test
    void aResourceTypeInNeitherListFailsNamingItsTypeAndLogicalId() {
        CloudFormationTemplate template = CloudFormationTemplate.parse("sluice-test", """
                {"Resources": {
                   "Topic1": {"Type": "AWS::SNS::Topic"},
                   "Pipe1": {"Type": "AWS::Pipes::Pipe", "Properties": {}}
                }}""");
        assertThatThrownBy(() -> Provisioner.plan(
                        pipeline("payments"), template, NAMES, "us-east-1", "000000000000", q -> SQS + q))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Pipe1")
                .hasMessageContaining("AWS::Pipes::Pipe")
                .hasMessageContaining("ResourceTypes");
    }

    @Test
    void aFunctionVariableReferringToAnAwsOnlyResourceFailsWithThePlace() {
        CloudFormationTemplate template = CloudFormationTemplate.parse("sluice-test", """
                {"Resources": {
                   "Key1": {"Type": "AWS::KMS::Key"},
                   "Fn1": {"Type": "AWS::Lambda::Function", "Properties": {
                      "Handler": "x.Handler::handleRequest",
                      "Environment": {"Variables": {"SLUICE_STAGE": "validate",
                                                    "KEY": {"Fn::GetAtt": ["Key1", "Arn"]}}}}}
                }}""");
        assertThatThrownBy(() -> Provisioner.plan(
                        pipeline("payments"), template, NAMES, "us-east-1", "000000000000", q -> SQS + q))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Fn1")
                .hasMessageContaining("KEY")
                .hasMessageContaining("Key1 (AWS::KMS::Key)");
    }

    @Test
    void paymentsFunctionGetsTheTemplatesEnvironmentResolvedToLocalNames() {
        PipelineDefinition payments = pipeline("payments");
        PipelineResources resources = plan(payments).resources();

        // unnamed in the template: named as CloudFormation names them, <stack>-<logicalId>-<SUFFIX>
        assertThat(resources.streams())
                .containsEntry("payments-raw", generated(payments, ResourceMetadata.KIND_STREAM, "payments-raw", 128));
        assertThat(resources.tables())
                .containsEntry(
                        "payments-by-id", generated(payments, ResourceMetadata.KIND_TABLE, "payments-by-id", 255))
                .containsKey("spend-per-currency-hourly");
        assertThat(resources.bucket())
                .isEqualTo(generated(payments, ResourceMetadata.KIND_LAKE_BUCKET, "payments", 63)
                        .toLowerCase(java.util.Locale.ROOT));
        assertThat(resources.ledgerTable())
                .isEqualTo(generated(payments, ResourceMetadata.KIND_LAKE_LEDGER, "payments", 255));
        assertThat(resources.queueUrls())
                .containsEntry(
                        "payments-dlq", SQS + generated(payments, ResourceMetadata.KIND_QUEUE, "payments-dlq", 80));
        assertThat(resources.checkpointTable()).isEqualTo(NAMES.name(Provisioner.CHECKPOINT_TABLE));

        FunctionSpec function = resources.functions().get("validate");
        assertThat(function.handler()).isEqualTo(payments.stage("validate").handler() + "::handleRequest");
        assertThat(function.functionName())
                .isEqualTo(generated(payments, ResourceMetadata.KIND_FUNCTION, "validate", 64));
        Map<String, String> env = resources.functionEnvironment("validate");
        assertThat(env)
                .containsEntry(EnvironmentNames.PIPELINE, "payments")
                .containsEntry(EnvironmentNames.STAGE, "validate")
                .containsEntry(
                        EnvironmentNames.table("payments-by-id"),
                        resources.tables().get("payments-by-id"))
                .containsEntry(
                        EnvironmentNames.table("spend-per-currency-hourly"),
                        resources.tables().get("spend-per-currency-hourly"))
                .containsEntry(EnvironmentNames.LAKE_BUCKET, resources.bucket())
                .containsEntry(EnvironmentNames.LEDGER_TABLE, resources.ledgerTable())
                .containsEntry(
                        EnvironmentNames.queueUrl("payments-dlq"),
                        resources.queueUrls().get("payments-dlq"));
        // a name of its stack's, and the six characters Secrets Manager appends to every ARN
        assertThat(env.get(EnvironmentNames.secretId("tokenization-key")))
                .matches("arn:aws:secretsmanager:us-east-1:000000000000:secret:"
                        + "SecretTokenizationKey[0-9A-F]{8}-[A-Za-z0-9]{12}-[A-Za-z0-9]{6}");
        assertThat(resources.secrets()).containsOnlyKeys("tokenization-key");
        assertThat(env.values()).noneMatch(v -> v.contains("Fn::") || v.contains("\"Ref\""));
    }

    @Test
    void paymentsMappingCarriesTheTemplatesKnobs() {
        PipelineDefinition payments = pipeline("payments");
        PipelineResources resources = plan(payments).resources();
        StageDefinition stage = payments.stage("validate");
        BatchingDefinition batching = stage.batching();
        FailureDefinition failure = stage.failure();

        MappingConfig mapping = resources.mappings().get("validate");
        assertThat(mapping.functionName())
                .isEqualTo(resources.functions().get("validate").functionName());
        assertThat(mapping.streamName()).isEqualTo(resources.streams().get("payments-raw"));
        assertThat(mapping.batchSize()).isEqualTo(batching.batchSize());
        assertThat(mapping.batchingWindow()).isEqualTo(Duration.ofSeconds(batching.batchingWindowSeconds()));
        assertThat(mapping.parallelizationFactor()).isEqualTo(batching.parallelizationFactor());
        assertThat(mapping.startingPosition()).isEqualTo(batching.startingPosition());
        assertThat(mapping.maxRetryAttempts()).isEqualTo(failure.maxRetryAttempts());
        assertThat(mapping.maxRecordAge())
                .isEqualTo(
                        failure.maxRecordAgeSeconds() < 0 ? null : Duration.ofSeconds(failure.maxRecordAgeSeconds()));
        assertThat(mapping.bisectOnError()).isEqualTo(failure.bisectOnError());
        assertThat(mapping.onFailureQueueUrl()).isEqualTo(resources.queueUrls().get("payments-dlq"));
    }

    @Test
    void paymentsResourcesCarryTheTemplatesSettings() {
        PipelineDefinition payments = pipeline("payments");
        Provisioner.Plan plan = plan(payments);

        StreamSettings raw = plan.resources().streamSettings().get("payments-raw");
        assertThat(raw.shards())
                .isEqualTo(payments.streams().get("payments-raw").shards());
        assertThat(raw.retentionHours())
                .isEqualTo(payments.streams().get("payments-raw").retentionHours());
        assertThat(raw.encryption()).isEqualTo("KMS");
        assertThat(plan.streams()).containsExactly(raw);

        assertThat(plan.buckets())
                .containsExactlyInAnyOrder(
                        plan.resources().bucket(),
                        generated(payments, ResourceMetadata.KIND_LAKE_ACCESS_LOGS, "payments", 63)
                                .toLowerCase(java.util.Locale.ROOT));
        assertThat(plan.tables())
                .extracting(CreateTableRequest::tableName)
                .containsExactlyInAnyOrder(
                        generated(payments, ResourceMetadata.KIND_TABLE, "payments-by-id", 255),
                        generated(payments, ResourceMetadata.KIND_TABLE, "spend-per-currency-hourly", 255),
                        generated(payments, ResourceMetadata.KIND_LAKE_LEDGER, "payments", 255));
        assertThat(plan.tables())
                .allSatisfy(
                        t -> assertThat(t.keySchema().get(0).attributeName()).isEqualTo("pk"));
        Provisioner.QueueSpec dlq = plan.queues().get(0);
        assertThat(dlq.attributes())
                .containsEntry(
                        QueueAttributeName.MESSAGE_RETENTION_PERIOD,
                        Long.toString(Duration.ofDays(
                                        payments.queues().get("payments-dlq").retentionDays())
                                .toSeconds()));
    }

    @Test
    void clickstreamKclStageBecomesAKclServiceWithItsLeaseTable() {
        PipelineDefinition clickstream = pipeline("clickstream");
        Provisioner.Plan plan = plan(clickstream);
        PipelineResources resources = plan.resources();

        assertThat(resources.functions()).containsOnlyKeys("mask-and-rekey");
        assertThat(resources.mappings()).containsOnlyKeys("mask-and-rekey");
        KclService service = resources.kclServices().get("page-counts");
        assertThat(service.workers()).isEqualTo(2);
        String leaseTable = generated(clickstream, ResourceMetadata.KIND_KCL_LEASE_TABLE, "page-counts", 255);
        assertThat(resources.functionEnvironment("page-counts"))
                .isEqualTo(service.environment())
                .containsEntry(EnvironmentNames.STAGE, "page-counts")
                .containsEntry(EnvironmentNames.KCL_APPLICATION, "sluice-clickstream-page-counts")
                .containsEntry(EnvironmentNames.KCL_STREAM, resources.streams().get("clicks-by-page"))
                .containsEntry(EnvironmentNames.KCL_LEASE_TABLE, leaseTable)
                .containsEntry(
                        EnvironmentNames.table("page-views-per-minute"),
                        resources.tables().get("page-views-per-minute"))
                .containsEntry(
                        EnvironmentNames.queueUrl("clicks-dlq"),
                        resources.queueUrls().get("clicks-dlq"));

        CreateTableRequest leases = plan.tables().stream()
                .filter(t -> t.tableName().equals(leaseTable))
                .findFirst()
                .orElseThrow();
        assertThat(leases.keySchema().get(0).attributeName()).isEqualTo("leaseKey");
        assertThat(leases.globalSecondaryIndexes())
                .extracting(GlobalSecondaryIndex::indexName)
                .containsExactly("LeaseOwnerToLeaseKeyIndex");
        assertThat(leases.globalSecondaryIndexes().get(0).keySchema())
                .extracting(k -> k.attributeName() + ":" + k.keyTypeAsString())
                .containsExactly("leaseOwner:HASH", "leaseKey:RANGE");

        assertThat(resources.streamSettings().get("clicks-raw").shards())
                .isEqualTo(clickstream.streams().get("clicks-raw").shards());
        assertThat(resources.functionEnvironment("mask-and-rekey"))
                .containsEntry(
                        EnvironmentNames.stream("clicks-by-page"),
                        resources.streams().get("clicks-by-page"));
    }

    @Test
    void aQueueRedrivingToAnotherIsCreatedAfterItsTargetWithTheLocalArn() {
        CloudFormationTemplate template = CloudFormationTemplate.parse("sluice-test", """
                {"Resources": {
                   "Work1": {"Type": "AWS::SQS::Queue", "Properties": {
                      "VisibilityTimeout": 90,
                      "RedrivePolicy": {"deadLetterTargetArn": {"Fn::GetAtt": ["Dlq1", "Arn"]}, "maxReceiveCount": 4}}},
                   "Dlq1": {"Type": "AWS::SQS::Queue", "Properties": {"MessageRetentionPeriod": 1209600}}
                }}""");
        Provisioner.Plan plan =
                Provisioner.plan(pipeline("payments"), template, NAMES, "us-east-1", "000000000000", q -> SQS + q);
        assertThat(plan.queues())
                .extracting(Provisioner.QueueSpec::name)
                .containsExactly(
                        PhysicalNames.generated(NAMES.name("sluice-test"), "Dlq1", 80),
                        PhysicalNames.generated(NAMES.name("sluice-test"), "Work1", 80));
        Map<QueueAttributeName, String> work = plan.queues().get(1).attributes();
        assertThat(work).containsEntry(QueueAttributeName.VISIBILITY_TIMEOUT, "90");
        assertThat(work.get(QueueAttributeName.REDRIVE_POLICY))
                .contains("\"deadLetterTargetArn\":\"arn:aws:sqs:us-east-1:000000000000:"
                        + PhysicalNames.generated(NAMES.name("sluice-test"), "Dlq1", 80) + "\"")
                .contains("\"maxReceiveCount\":4");
    }

    @Test
    void aMappingPropertyTheLocalRunnerDoesNotHonourFails() {
        CloudFormationTemplate template = CloudFormationTemplate.parse("sluice-test", """
                {"Resources": {
                   "S1": {"Type": "AWS::Kinesis::Stream", "Properties": {"ShardCount": 1}},
                   "Fn1": {"Type": "AWS::Lambda::Function", "Properties": {
                      "Handler": "x.Handler::handleRequest", "Environment": {"Variables": {"SLUICE_STAGE": "validate"}}}},
                   "Esm1": {"Type": "AWS::Lambda::EventSourceMapping", "Properties": {
                      "FunctionName": {"Ref": "Fn1"}, "EventSourceArn": {"Fn::GetAtt": ["S1", "Arn"]},
                      "FunctionResponseTypes": ["ReportBatchItemFailures"], "TumblingWindowInSeconds": 60}}
                }}""");
        assertThatThrownBy(() -> Provisioner.plan(
                        pipeline("payments"), template, NAMES, "us-east-1", "000000000000", q -> SQS + q))
                .hasMessageContaining("Esm1")
                .hasMessageContaining("TumblingWindowInSeconds");
    }
}
