package dev.sluice.local.iam;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.core.definition.DefinitionLoader;
import dev.sluice.core.definition.EnvironmentNames;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.schema.SchemaCatalog;
import dev.sluice.emulators.LocalAws;
import dev.sluice.emulators.LocalAwsExtension;
import dev.sluice.emulators.ResourceNames;
import dev.sluice.local.LocalPipeline;
import dev.sluice.local.provision.Provisioner;
import dev.sluice.local.template.CloudFormationTemplate;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;
import software.amazon.awssdk.services.secretsmanager.model.SecretsManagerException;

/**
 * Every pipeline of {@code pipelines/} in one local stack, as {@code ./sluice up} and {@code ./sluice
 * demo} deploy them (one set of names for all), under IAM enforcement: every Lambda stage initialises
 * (its handler reads its secret as its role), each stack's secret is its own resource with its own
 * value, a stage may read its own pipeline's secret and is refused another pipeline's by that
 * pipeline's policies, and a template naming a resource explicitly like another stack's fails to
 * deploy with one line. ({@code consumer: kcl} stages run in worker JVMs of their own: the demo and
 * {@code ClickstreamDemoIT} start them under the same enforcement.)
 */
@ExtendWith(LocalAwsExtension.class)
class AllPipelinesOneStackIT {

    private static final Path ROOT = Path.of(System.getProperty("sluice.root"));
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private static List<PipelineDefinition> pipelines() throws IOException {
        DefinitionLoader loader = new DefinitionLoader(SchemaCatalog.fromDirectory(ROOT.resolve("schemas"), MAPPER));
        try (Stream<Path> files = Files.list(ROOT.resolve("pipelines"))) {
            return files.filter(f -> f.toString().endsWith(".yaml"))
                    .sorted()
                    .map(loader::load)
                    .toList();
        }
    }

    private static PipelineDefinition pipeline(String name) throws IOException {
        return pipelines().stream()
                .filter(p -> p.pipeline().equals(name))
                .findFirst()
                .orElseThrow();
    }

    /** A stage's secret ids (secret name → ARN) from its environment, as its code reads them. */
    private static Map<String, String> secretIds(LocalPipeline pipeline, String stage) {
        Map<String, String> ids = new LinkedHashMap<>();
        Map<String, String> env = pipeline.functionEnvironment(stage);
        pipeline.resources().secrets().keySet().forEach(secret -> {
            String id = env.get(EnvironmentNames.secretId(secret));
            if (id != null) {
                ids.put(secret, id);
            }
        });
        return ids;
    }

    /** Secrets Manager as a stage sees it: the stage's role, through its pipeline's endpoint. */
    private static SecretsManagerClient secretsAs(LocalPipeline owner, LocalPipeline caller, String stage) {
        Map<String, String> env = caller.functionEnvironment(stage);
        String endpoint = owner.functionEnvironment(
                        owner.resources().functions().keySet().iterator().next())
                .get("AWS_ENDPOINT_URL_SECRETSMANAGER");
        return SecretsManagerClient.builder()
                .endpointOverride(URI.create(endpoint))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(
                        AwsBasicCredentials.create(env.get("AWS_ACCESS_KEY_ID"), env.get("AWS_SECRET_ACCESS_KEY"))))
                .build();
    }

    @Test
    void everyStageOfEveryPipelineInitialisesAndReadsOnlyItsOwnPipelinesSecret(LocalAws aws, ResourceNames names)
            throws IOException {
        assertThat(aws.iamEnforced()).as("the stack enforces IAM").isTrue();
        List<PipelineDefinition> definitions = pipelines();
        assertThat(definitions).hasSizeGreaterThanOrEqualTo(2);
        List<LocalPipeline> deployed = new ArrayList<>();
        try {
            for (PipelineDefinition definition : definitions) {
                deployed.add(LocalPipeline.provision(aws, definition, names, ROOT));
            }
            long deniedBefore = aws.accessControl().denied();
            Map<String, String> valueByArn = new LinkedHashMap<>();
            for (LocalPipeline pipeline : deployed) {
                // every Lambda stage's handler initialises as its role (it reads its secrets at init)
                for (String stage : pipeline.resources().functions().keySet()) {
                    assertThat(pipeline.function(stage))
                            .as("%s %s initialises", pipeline.resources().stackName(), stage)
                            .isNotNull();
                }
                for (String stage : pipeline.resources().functions().keySet()) {
                    for (String arn : secretIds(pipeline, stage).values()) {
                        try (SecretsManagerClient own = secretsAs(pipeline, pipeline, stage)) {
                            String value =
                                    own.getSecretValue(b -> b.secretId(arn)).secretString();
                            assertThat(value).isNotBlank();
                            valueByArn.put(arn, value);
                        }
                    }
                }
            }
            assertThat(aws.accessControl().denied())
                    .as("no stage was denied its own resources")
                    .isEqualTo(deniedBefore);
            // one secret per stack, each with its own value: two pipelines' tokens never join
            assertThat(valueByArn).hasSizeGreaterThanOrEqualTo(2);
            assertThat(valueByArn.values()).doesNotHaveDuplicates();
            // another pipeline's secret: refused by that pipeline's policies
            int refusals = 0;
            for (LocalPipeline caller : deployed) {
                for (String stage : caller.resources().functions().keySet()) {
                    if (secretIds(caller, stage).isEmpty()) {
                        continue;
                    }
                    for (LocalPipeline owner : deployed) {
                        if (owner == caller) {
                            continue;
                        }
                        for (String arn : owner.resources().secrets().values()) {
                            try (SecretsManagerClient foreign = secretsAs(owner, caller, stage)) {
                                assertThatThrownBy(() -> foreign.getSecretValue(b -> b.secretId(arn)))
                                        .as("%s %s reads %s", caller.resources().stackName(), stage, arn)
                                        .isInstanceOf(SecretsManagerException.class)
                                        .satisfies(e -> assertThat(((SecretsManagerException) e)
                                                        .awsErrorDetails()
                                                        .errorCode())
                                                .isEqualTo("AccessDeniedException"));
                                refusals++;
                            }
                        }
                    }
                }
            }
            assertThat(refusals)
                    .as("a masking stage tried another pipeline's secret")
                    .isPositive();
        } finally {
            deployed.forEach(LocalPipeline::close);
        }
    }

    /** The template with its first resource of {@code type} named {@code name} explicitly. */
    private static CloudFormationTemplate named(
            CloudFormationTemplate template, String type, String property, String name) {
        Map<String, CloudFormationTemplate.Resource> resources = new LinkedHashMap<>(template.resources());
        CloudFormationTemplate.Resource resource = resources.values().stream()
                .filter(r -> r.type().equals(type))
                .findFirst()
                .orElseThrow();
        ObjectNode properties = resource.properties().deepCopy();
        properties.put(property, name);
        resources.put(
                resource.logicalId(),
                new CloudFormationTemplate.Resource(
                        resource.logicalId(), resource.type(), properties, resource.metadata()));
        return new CloudFormationTemplate(template.stackName(), resources);
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
        "AWS::SQS::Queue, QueueName",
        "AWS::DynamoDB::Table, TableName",
        "AWS::Kinesis::Stream, Name",
        "AWS::S3::Bucket, BucketName",
        "AWS::IAM::Role, RoleName"
    })
    void aTemplateNamingAResourceLikeAnotherStacksFailsToDeployWithOneLine(
            String type, String property, LocalAws aws, ResourceNames names) throws IOException {
        PipelineDefinition payments = pipeline("payments");
        PipelineDefinition clickstream = pipeline("clickstream");
        String shared = "shared-" + property.toLowerCase(java.util.Locale.ROOT);
        CloudFormationTemplate first = named(CloudFormationTemplate.synthesize(payments), type, property, shared);
        CloudFormationTemplate second = named(CloudFormationTemplate.synthesize(clickstream), type, property, shared);
        new Provisioner(aws).provision(payments, first, names);
        // the same stack may provision its own resources again
        new Provisioner(aws).provision(payments, first, names);

        assertThatThrownBy(() -> new Provisioner(aws).provision(clickstream, second, names))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith(names.name(second.stackName()) + ": ")
                .hasMessageContaining("Resource of type '" + type + "' with identifier '")
                .hasMessageContaining(shared)
                .hasMessageContaining("' already exists")
                .hasMessageContaining("stack " + names.name(first.stackName()) + " created it")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    @Test
    void unnamedResourcesOfTwoStacksNeverShareANameOrArn(LocalAws aws, ResourceNames names) throws IOException {
        List<Provisioner.Plan> plans = new ArrayList<>();
        for (PipelineDefinition pipeline : pipelines()) {
            plans.add(Provisioner.plan(
                    pipeline,
                    CloudFormationTemplate.synthesize(pipeline),
                    names,
                    aws.region().id(),
                    aws.accountId(),
                    queue -> "http://127.0.0.1:9/" + aws.accountId() + "/" + queue));
        }
        Map<String, String> owner = new LinkedHashMap<>();
        for (Provisioner.Plan plan : plans) {
            String stack = plan.resources().stackName();
            plan.resources().provisioned().values().forEach(local -> {
                for (String id : List.of(local.name(), local.attributes().getOrDefault("Arn", local.ref()))) {
                    String previous = owner.putIfAbsent(local.type() + " " + id, stack);
                    assertThat(previous)
                            .as("%s %s of %s is also %s's", local.type(), id, stack, previous)
                            .satisfiesAnyOf(
                                    p -> assertThat(p).isNull(),
                                    p -> assertThat(p).isEqualTo(stack));
                }
            });
        }
        assertThat(owner).hasSizeGreaterThan(20);
    }
}
