package dev.sluice.cdk;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.definition.PipelineDefinition;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The {@code sluice:kind}/{@code sluice:name} metadata the local stack maps template resources back to
 * definition names with, checked on the template {@link InProcessSynth} gives for {@code
 * pipelines/clickstream.yaml} (a Lambda and a KCL stage).
 */
class ResourceMetadataTest {

    @Test
    void inProcessSynthesisMarksEveryResourceTheLocalStackLooksUp() throws Exception {
        PipelineDefinition clickstream =
                TestApps.loader().load(SluiceRoot.locate().resolve("pipelines/clickstream.yaml"));
        String json = InProcessSynth.template(clickstream);
        assertThat(InProcessSynth.template(clickstream)).as("cached").isSameAs(json);

        JsonNode resources = new ObjectMapper().readTree(json).path("Resources");
        Map<String, String> marked = new LinkedHashMap<>(); // kind:name -> type
        resources.forEach(resource -> {
            JsonNode metadata = resource.path("Metadata");
            if (metadata.has(ResourceMetadata.KIND)) {
                marked.put(
                        metadata.path(ResourceMetadata.KIND).asText() + ":"
                                + metadata.path(ResourceMetadata.NAME).asText(),
                        resource.path("Type").asText());
            }
        });

        assertThat(marked)
                .containsEntry("stream:clicks-raw", "AWS::Kinesis::Stream")
                .containsEntry("stream:clicks-by-page", "AWS::Kinesis::Stream")
                .containsEntry("table:page-catalogue", "AWS::DynamoDB::Table")
                .containsEntry("table:page-views-per-minute", "AWS::DynamoDB::Table")
                .containsEntry("table:clicks-by-id", "AWS::DynamoDB::Table")
                .containsEntry("lake-ledger:clickstream", "AWS::DynamoDB::Table")
                .containsEntry("lake-bucket:clickstream", "AWS::S3::Bucket")
                .containsEntry("lake-access-logs:clickstream", "AWS::S3::Bucket")
                .containsEntry("queue:clicks-dlq", "AWS::SQS::Queue")
                .containsEntry("secret:tokenization-key", "AWS::SecretsManager::Secret")
                .containsEntry("function:mask-and-rekey", "AWS::Lambda::Function")
                .containsEntry("event-source-mapping:mask-and-rekey", "AWS::Lambda::EventSourceMapping")
                .containsEntry("kcl-lease-table:page-counts", "AWS::DynamoDB::Table")
                .containsEntry("kcl-task-definition:page-counts", "AWS::ECS::TaskDefinition")
                .containsEntry("kcl-service:page-counts", "AWS::ECS::Service")
                .hasSize(15);
    }
}
