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

    @Test
    void aTemplateNamingAResourceLikeAnotherStacksFailsToDeployWithOneLine(LocalAws aws, ResourceNames names)
            throws IOException {
        PipelineDefinition payments = pipeline("payments");
        PipelineDefinition clickstream = pipeline("clickstream");
        try (LocalPipeline first = LocalPipeline.provision(aws, payments, names, ROOT)) {
            String taken = first.resources().queueUrls().keySet().iterator().next();
            CloudFormationTemplate template = CloudFormationTemplate.synthesize(clickstream);
            Map<String, CloudFormationTemplate.Resource> resources = new LinkedHashMap<>(template.resources());
            CloudFormationTemplate.Resource queue = resources.values().stream()
                    .filter(r -> r.type().equals("AWS::SQS::Queue"))
                    .findFirst()
                    .orElseThrow();
            ObjectNode properties = queue.properties().deepCopy();
            properties.put("QueueName", taken);
            resources.put(
                    queue.logicalId(),
                    new CloudFormationTemplate.Resource(queue.logicalId(), queue.type(), properties, queue.metadata()));
            CloudFormationTemplate renamed = new CloudFormationTemplate(template.stackName(), resources);

            assertThatThrownBy(() -> new Provisioner(aws).provision(clickstream, renamed, names))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("Resource of type 'AWS::SQS::Queue' with identifier '" + names.name(taken)
                            + "' already exists")
                    .hasMessageContaining(
                            "stack " + names.name(first.resources().stackName()) + " created it")
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
        }
    }
}
