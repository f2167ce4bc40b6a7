package dev.sluice.cdk;

import static dev.sluice.cdk.TestApps.getAtt;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.definition.PipelineDefinition;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awscdk.App;
import software.amazon.awscdk.assertions.Match;
import software.amazon.awscdk.assertions.Template;

/** Definitions other than payments: on-demand streams, no lake, KCL stages, defaults. */
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

    @TempDir
    static Path dir;

    private static PipelineStack stack;
    private static Template template;

    @BeforeAll
    static void synthesize() throws Exception {
        App app = TestApps.app(dir);
        PipelineDefinition definition = TestApps.loader().parse("clicks.yaml", CLICKS);
        stack = new PipelineStack(
                app, "sluice-clicks", new PipelineStackProps(definition, SluiceApp.lambdaArtifact(app), null));
        template = Template.fromStack(stack);
    }

    @Test
    void onDemandStreamHasNoShardCount() {
        template.hasResourceProperties(
                "AWS::Kinesis::Stream",
                Map.of(
                        "StreamModeDetails", Map.of("StreamMode", "ON_DEMAND"),
                        "RetentionPeriodHours", 48,
                        "ShardCount", Match.absent(),
                        "StreamEncryption", Map.of("KeyId", getAtt(stack.getEncryptionKey(), "Arn"))));
    }

    @Test
    void pipelineWithoutLakesHasNoBucket() {
        assertThat(stack.getLakeBucket()).isEmpty();
        template.resourceCountIs("AWS::S3::Bucket", 0);
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
}
