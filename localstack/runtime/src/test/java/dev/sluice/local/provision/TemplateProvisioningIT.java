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
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
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

    @Test
    void aGetSecretValueSignedWithAWrongSecretOrAStaleDateIsRefusedAsAnInvalidSignature(
            LocalAws aws, ResourceNames names) throws Exception {
        try (LocalPipeline pipeline = LocalPipeline.provision(aws, clickstream(), names, ROOT)) {
            Map<String, String> masker = pipeline.functionEnvironment("mask-and-rekey");
            String secretId = masker.get(EnvironmentNames.secretId("tokenization-key"));
            String value = Files.readString(pipeline.secretsFolder()
                            .resolve(dev.sluice.local.secrets.SecretsManagerFront.fileName(secretId)))
                    .strip();
            // the masking stage's own key id (its role may read the secret), signed with another secret
            Map<String, String> wrongSecret = new LinkedHashMap<>(masker);
            wrongSecret.put("AWS_SECRET_ACCESS_KEY", "not-" + masker.get("AWS_SECRET_ACCESS_KEY"));
            try (SecretsManagerClient client = new AwsClients(wrongSecret).secretsManager()) {
                assertThatThrownBy(() -> client.getSecretValue(b -> b.secretId(secretId)))
                        .isInstanceOfSatisfying(SecretsManagerException.class, e -> {
                            assertThat(e.statusCode()).isEqualTo(400);
                            assertThat(e.awsErrorDetails().errorCode()).isEqualTo("InvalidSignatureException");
                            assertThat(e.getMessage())
                                    .contains("signature we calculated does not match")
                                    .doesNotContain(value);
                        });
            }
            // the right secret, a date 20 minutes ago: expired; the same request signed now is answered
            URI endpoint = URI.create(masker.get("AWS_ENDPOINT_URL_SECRETSMANAGER"));
            String body = "{\"SecretId\":\"" + secretId + "\"}";
            HttpResponse<String> stale = getSecretValue(
                    endpoint,
                    masker,
                    aws.region().id(),
                    body,
                    Clock.offset(Clock.systemUTC(), Duration.ofMinutes(-20)));
            assertThat(stale.statusCode()).isEqualTo(400);
            assertThat(stale.headers().firstValue("x-amzn-ErrorType")).hasValue("InvalidSignatureException");
            assertThat(stale.body()).contains("Signature expired").doesNotContain(value);
            HttpResponse<String> current =
                    getSecretValue(endpoint, masker, aws.region().id(), body, Clock.systemUTC());
            assertThat(current.statusCode()).isEqualTo(200);
            assertThat(current.body()).contains(value);
        }
    }

    /** A GetSecretValue signed by the SDK's V4 signer with the stage's key at {@code clock}'s time. */
    private static HttpResponse<String> getSecretValue(
            URI endpoint, Map<String, String> environment, String region, String body, Clock clock) throws Exception {
        SdkHttpRequest request = SdkHttpRequest.builder()
                .method(SdkHttpMethod.POST)
                .uri(URI.create(endpoint + "/"))
                .putHeader("Content-Type", "application/x-amz-json-1.1")
                .putHeader("X-Amz-Target", "secretsmanager.GetSecretValue")
                .putHeader("Content-Length", Integer.toString(body.getBytes(StandardCharsets.UTF_8).length))
                .build();
        SignedRequest signed = AwsV4HttpSigner.create()
                .sign(r -> r.identity(AwsCredentialsIdentity.create(
                                environment.get("AWS_ACCESS_KEY_ID"), environment.get("AWS_SECRET_ACCESS_KEY")))
                        .request(request)
                        .payload(ContentStreamProvider.fromUtf8String(body))
                        .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "secretsmanager")
                        .putProperty(AwsV4HttpSigner.REGION_NAME, region)
                        .putProperty(HttpSigner.SIGNING_CLOCK, clock));
        HttpRequest.Builder builder =
                HttpRequest.newBuilder(request.getUri()).POST(HttpRequest.BodyPublishers.ofString(body));
        // the JDK client sets Host and Content-Length itself (the same values)
        signed.request().forEachHeader((name, values) -> {
            String lower = name.toLowerCase(Locale.ROOT);
            if (!lower.equals("host") && !lower.equals("content-length")) {
                builder.header(name, values.get(0));
            }
        });
        return HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .build()
                .send(builder.build(), HttpResponse.BodyHandlers.ofString());
    }
}
