package dev.sluice.local.iam;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.core.definition.DefinitionLoader;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.schema.SchemaCatalog;
import dev.sluice.emulators.LocalAws;
import dev.sluice.emulators.LocalAwsExtension;
import dev.sluice.emulators.ResourceNames;
import dev.sluice.local.LocalPipeline;
import dev.sluice.local.template.CloudFormationTemplate;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What AWS services do as themselves with the payments stack's keys and topics, evaluated against the
 * synthesized key and topic policies: CloudWatch Logs with each log group's key (refused at
 * deployment in AWS), CloudWatch alarms publishing to their encrypted topic (refused when an alarm
 * fires). Each check is shown to refuse a policy that AWS would refuse.
 */
@ExtendWith(LocalAwsExtension.class)
class ServiceUsesIT {

    private static final Path ROOT = Path.of(System.getProperty("sluice.root"));

    private static PipelineDefinition payments() {
        return new DefinitionLoader(SchemaCatalog.fromDirectory(ROOT.resolve("schemas"), new ObjectMapper()))
                .load(ROOT.resolve("pipelines/payments.yaml"));
    }

    @Test
    void theSynthesizedPoliciesLetLogsAndAlarmsUseTheirKeysAndNothingElse(LocalAws aws, ResourceNames names) {
        PipelineDefinition payments = payments();
        CloudFormationTemplate template = CloudFormationTemplate.synthesize(payments);
        try (LocalPipeline pipeline = LocalPipeline.provision(aws, payments, names, ROOT)) {
            LocalIam iam = pipeline.iam().orElseThrow();
            AccessModel model = pipeline.accessModel().orElseThrow();
            assertThat(model.serviceUses())
                    .extracting(AccessModel.ServiceUse::purpose)
                    .anyMatch(p -> p.startsWith("CloudWatch Logs encrypts log group"))
                    .anyMatch(p -> p.startsWith("alarm "));
            assertThat(iam.serviceWarnings())
                    .as("service uses AWS would refuse")
                    .isZero();

            // the logs key's statement for CloudWatch Logs names another log group: AWS refuses to
            // create the group with that key (the key policy's encryption-context condition decides)
            CloudFormationTemplate otherGroup = editKeyStatements(
                    template,
                    s -> s.toString().contains("aws:logs:arn"),
                    s -> ((ObjectNode) s.path("Condition").path("ArnEquals"))
                            .put(
                                    "kms:EncryptionContext:aws:logs:arn",
                                    "arn:aws:logs:us-east-1:000000000000:log-group:another-group"));
            assertThatThrownBy(() -> pipeline.deployAccess(otherGroup))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("AWS would refuse the deployment: CloudWatch Logs encrypts log group")
                    .hasMessageContaining("is not authorized to perform: kms:GenerateDataKey");

            // the messaging key's statement for CloudWatch names another pipeline's alarms: every
            // alarm's notification would be refused when it fires
            long before = iam.serviceWarnings();
            CloudFormationTemplate otherAlarms = editKeyStatements(
                    template,
                    s -> s.path("Sid").asText().equals("AlarmsOfThisPipelinePublishEncrypted"),
                    s -> ((ObjectNode) s.path("Condition").path("ArnLike"))
                            .put("aws:SourceArn", "arn:aws:cloudwatch:us-east-1:000000000000:alarm:other-*"));
            pipeline.deployAccess(otherAlarms);
            long alarms = model.serviceUses().stream()
                    .filter(u -> u.purpose().startsWith("alarm "))
                    .count();
            assertThat(iam.serviceWarnings() - before).isEqualTo(alarms);
        }
    }

    /** A copy of the template in which {@code edit} changed each key policy statement {@code which} selects. */
    private static CloudFormationTemplate editKeyStatements(
            CloudFormationTemplate template, Predicate<JsonNode> which, Consumer<ObjectNode> edit) {
        Map<String, CloudFormationTemplate.Resource> resources = new LinkedHashMap<>();
        int edited = 0;
        for (CloudFormationTemplate.Resource resource : template.resources().values()) {
            if (!resource.type().equals("AWS::KMS::Key")) {
                resources.put(resource.logicalId(), resource);
                continue;
            }
            ObjectNode properties = resource.properties().deepCopy();
            for (JsonNode statement : (ArrayNode) properties.path("KeyPolicy").path("Statement")) {
                if (which.test(statement)) {
                    edit.accept((ObjectNode) statement);
                    edited++;
                }
            }
            resources.put(
                    resource.logicalId(),
                    new CloudFormationTemplate.Resource(
                            resource.logicalId(), resource.type(), properties, resource.metadata()));
        }
        assertThat(edited).as("key policy statements edited").isPositive();
        return new CloudFormationTemplate(template.stackName(), resources);
    }
}
