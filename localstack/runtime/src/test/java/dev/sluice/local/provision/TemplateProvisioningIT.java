package dev.sluice.local.provision;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.aws.AwsClients;
import dev.sluice.core.definition.DefinitionLoader;
import dev.sluice.core.definition.EnvironmentNames;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.schema.SchemaCatalog;
import dev.sluice.emulators.LocalAws;
import dev.sluice.emulators.LocalAwsExtension;
import dev.sluice.emulators.ResourceNames;
import dev.sluice.local.LocalPipeline;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.model.GlobalSecondaryIndexDescription;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;
import software.amazon.awssdk.services.secretsmanager.model.SecretsManagerException;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * The clickstream pipeline provisioned from its synthesized template on the real emulators: what
 * exists in them is what the template declares, and a KCL stage's service environment resolves to it.
 */
@ExtendWith(LocalAwsExtension.class)
class TemplateProvisioningIT {

    private static final Path ROOT = Path.of(System.getProperty("sluice.root"));

    private static PipelineDefinition clickstream() {
        return new DefinitionLoader(SchemaCatalog.fromDirectory(ROOT.resolve("schemas"), new ObjectMapper()))
                .load(ROOT.resolve("pipelines/clickstream.yaml"));
    }

    @Test
    void theEmulatorsHoldWhatTheTemplateDeclares(LocalAws aws, ResourceNames names) {
        PipelineDefinition clickstream = clickstream();
        try (LocalPipeline pipeline = LocalPipeline.provision(aws, clickstream, names, ROOT)) {
            PipelineResources resources = pipeline.resources();

            resources.streamSettings().forEach((logical, settings) -> {
                assertThat(aws.kinesis()
                                .describeStreamSummary(b -> b.streamName(settings.name()))
                                .streamDescriptionSummary()
                                .openShardCount())
                        .as(logical)
                        .isEqualTo(clickstream.streams().get(logical).shards());
            });

            KclService service = resources.kclServices().get("page-counts");
            String leaseTable = service.environment().get(EnvironmentNames.KCL_LEASE_TABLE);
            TableDescription leases =
                    aws.dynamoDb().describeTable(b -> b.tableName(leaseTable)).table();
            assertThat(leases.keySchema().get(0).attributeName()).isEqualTo("leaseKey");
            assertThat(leases.globalSecondaryIndexes())
                    .extracting(GlobalSecondaryIndexDescription::indexName)
                    .containsExactly("LeaseOwnerToLeaseKeyIndex");
            for (String table : resources.tables().values()) {
                assertThat(aws.dynamoDb()
                                .describeTable(b -> b.tableName(table))
                                .table()
                                .keySchema()
                                .get(0)
                                .attributeName())
                        .isEqualTo("pk");
            }
            assertThat(aws.dynamoDb()
                            .describeTable(b -> b.tableName(resources.ledgerTable()))
                            .table()
                            .tableName())
                    .isEqualTo(resources.ledgerTable());

            assertThat(aws.s3().listBuckets().buckets())
                    .extracting(b -> b.name())
                    .contains(resources.bucket())
                    // the lake and its access-log bucket, under the names CloudFormation gives them
                    .containsAll(resources.provisioned().values().stream()
                            .filter(r -> r.type().equals("AWS::S3::Bucket"))
                            .map(r -> r.name())
                            .toList())
                    .allMatch(b ->
                            !b.startsWith(names.name(resources.stackName()) + "-") || b.matches("[a-z0-9-]{3,63}"));
            assertThat(resources.provisioned().values().stream()
                            .filter(r -> r.type().equals("AWS::S3::Bucket"))
                            .count())
                    .isEqualTo(2);

            // the queue ARN the plan resolved references (on-failure destinations, redrive) to is
            // the one ElasticMQ reports (it takes MessageRetentionPeriod but does not report it back;
            // the plan's attributes are checked by TemplateProvisioningTest)
            Map<QueueAttributeName, String> dlq = aws.sqs()
                    .getQueueAttributes(b ->
                            b.queueUrl(resources.queueUrls().get("clicks-dlq")).attributeNames(QueueAttributeName.ALL))
                    .attributes();
            String planned = resources.provisioned().values().stream()
                    .filter(r -> r.type().equals("AWS::SQS::Queue"))
                    .findFirst()
                    .orElseThrow()
                    .attributes()
                    .get("Arn");
            assertThat(dlq).containsEntry(QueueAttributeName.QUEUE_ARN, planned);
        }
    }

    @Test
    void aKclStagesEnvironmentIsItsServicesContainerEnvironmentPlusTheLocalExtras(LocalAws aws, ResourceNames names)
            throws Exception {
        try (LocalPipeline pipeline = LocalPipeline.provision(aws, clickstream(), names, ROOT)) {
            Map<String, String> env = pipeline.functionEnvironment("page-counts");
            KclService service = pipeline.resources().kclServices().get("page-counts");

            assertThat(env).containsAllEntriesOf(service.environment());
            assertThat(env)
                    .containsEntry(
                            "AWS_ENDPOINT_URL_KINESIS", aws.kinesisEndpoint().toString())
                    .containsEntry(
                            "AWS_ENDPOINT_URL_DYNAMODB", aws.dynamoDbEndpoint().toString())
                    .containsKey(EnvironmentNames.METRICS_FILE)
                    .containsEntry(
                            EnvironmentNames.PIPELINES_DIR,
                            ROOT.resolve("pipelines").toString());
            // secrets are read through Secrets Manager's API, as in AWS
            assertThat(env)
                    .containsKey("AWS_ENDPOINT_URL_SECRETSMANAGER")
                    .doesNotContainKey(EnvironmentNames.SECRETS_DIR);
            // it runs as local KCL workers started from this service (the reactor built the KCL app),
            // not as a function
            assertThat(pipeline.notRunLocally()).doesNotContainKey("page-counts");
            assertThat(pipeline.resources().functions()).doesNotContainKey("page-counts");
            // the workers use the lease table the template provisioned (with KCL's GSI)
            String leaseTable = env.get(EnvironmentNames.KCL_LEASE_TABLE);
            assertThat(pipeline.kclWorkers("page-counts").leaseTable()).isEqualTo(leaseTable);
            assertThat(aws.dynamoDb()
                            .describeTable(b -> b.tableName(leaseTable))
                            .table()
                            .globalSecondaryIndexes())
                    .extracting(index -> index.indexName())
                    .containsExactly("LeaseOwnerToLeaseKeyIndex");
        }
    }

    @Test
    void aStageReadsItsSecretThroughSecretsManagerAsItsRoleAndNoOtherStageMay(LocalAws aws, ResourceNames names)
            throws Exception {
        try (LocalPipeline pipeline = LocalPipeline.provision(aws, clickstream(), names, ROOT)) {
            Map<String, String> masker = pipeline.functionEnvironment("mask-and-rekey");
            String secretId = masker.get(EnvironmentNames.secretId("tokenization-key"));
            assertThat(secretId).as("the secret id CDK gives the masking stage").startsWith("arn:aws:secretsmanager:");
            Path folder = pipeline.secretsFolder();
            try (SecretsManagerClient client = new AwsClients(masker).secretsManager()) {
                assertThat(client.getSecretValue(b -> b.secretId(secretId)).secretString())
                        .isEqualTo(Files.readString(
                                        folder.resolve(dev.sluice.local.secrets.SecretsManagerFront.fileName(secretId)))
                                .strip());
            }
            // page-counts masks nothing: neither its role nor the secret's resource policy lets it read
            Map<String, String> counter = pipeline.functionEnvironment("page-counts");
            try (SecretsManagerClient client = new AwsClients(counter).secretsManager()) {
                assertThatThrownBy(() -> client.getSecretValue(b -> b.secretId(secretId)))
                        .isInstanceOfSatisfying(SecretsManagerException.class, e -> {
                            assertThat(e.awsErrorDetails().errorCode()).isEqualTo("AccessDeniedException");
                            assertThat(e.getMessage())
                                    .contains(
                                            "is not authorized to perform: secretsmanager:GetSecretValue on resource: "
                                                    + secretId);
                        });
            }
        }
    }
}
