package dev.sluice.cdk;

import static dev.sluice.cdk.TestApps.getAtt;
import static dev.sluice.cdk.TestApps.logicalId;
import static dev.sluice.cdk.TestApps.ref;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awscdk.assertions.Match;
import software.amazon.awscdk.assertions.Template;
import software.constructs.IConstruct;

/** The dashboard, alarms and alarm topic of the payments and clickstream stacks; one synth for all. */
class ObservabilityTest {

    private static PipelineStack payments;
    private static PipelineStack clickstream;
    private static Template paymentsTemplate;
    private static Template clickstreamTemplate;

    @BeforeAll
    static void synthesize() throws Exception {
        RepositoryPipelines pipelines = RepositoryPipelines.get();
        payments = byPipeline(pipelines.stacks(), "payments");
        clickstream = byPipeline(pipelines.stacks(), "clickstream");
        paymentsTemplate = pipelines.template(payments);
        clickstreamTemplate = pipelines.template(clickstream);
    }

    private static PipelineStack byPipeline(List<PipelineStack> stacks, String pipeline) {
        return stacks.stream()
                .filter(s -> s.getDefinition().pipeline().equals(pipeline))
                .findFirst()
                .orElseThrow();
    }

    // ---- dashboard

    @Test
    void oneDashboardPerPipelineNamedAfterIt() {
        paymentsTemplate.resourceCountIs("AWS::CloudWatch::Dashboard", 1);
        paymentsTemplate.hasResourceProperties(
                "AWS::CloudWatch::Dashboard", Match.objectLike(Map.of("DashboardName", "sluice-payments")));
        clickstreamTemplate.hasResourceProperties(
                "AWS::CloudWatch::Dashboard", Match.objectLike(Map.of("DashboardName", "sluice-clickstream")));
    }

    @Test
    void dashboardShowsEveryStreamsThroughputThrottlesAndIteratorAge() throws IOException {
        for (PipelineStack stack : List.of(payments, clickstream)) {
            List<DashboardMetric> metrics = dashboardMetrics(stack);
            assertThat(stack.getStreams()).isNotEmpty();
            stack.getStreams().forEach((name, stream) -> {
                Map<String, String> dimensions = Map.of("StreamName", "Ref:" + logicalId(stream));
                for (String metric : List.of(
                        "IncomingRecords",
                        "IncomingBytes",
                        "ReadProvisionedThroughputExceeded",
                        "WriteProvisionedThroughputExceeded",
                        "GetRecords.IteratorAgeMilliseconds")) {
                    assertThat(metrics)
                            .as(stack.getStackName() + " stream " + name + " " + metric)
                            .anyMatch(m -> m.is("AWS/Kinesis", metric, dimensions));
                }
            });
        }
    }

    @Test
    void dashboardShowsEveryStageFunctionsInvocationsErrorsDurationThrottlesConcurrencyAndIteratorAge()
            throws IOException {
        for (PipelineStack stack : List.of(payments, clickstream)) {
            List<DashboardMetric> metrics = dashboardMetrics(stack);
            assertThat(stack.getLambdaStages()).isNotEmpty();
            stack.getLambdaStages().forEach((stage, lambdaStage) -> {
                Map<String, String> dimensions = Map.of("FunctionName", "Ref:" + logicalId(lambdaStage.getFunction()));
                for (String metric :
                        List.of("Invocations", "Errors", "Throttles", "ConcurrentExecutions", "IteratorAge")) {
                    assertThat(metrics)
                            .as(stack.getStackName() + " stage " + stage + " " + metric)
                            .anyMatch(m -> m.is("AWS/Lambda", metric, dimensions));
                }
                for (String percentile : List.of("p50", "p99")) {
                    assertThat(metrics)
                            .as(stack.getStackName() + " stage " + stage + " Duration " + percentile)
                            .anyMatch(m -> m.is("AWS/Lambda", "Duration", dimensions) && percentile.equals(m.stat()));
                }
            });
        }
    }

    @Test
    void dashboardShowsThrottlesOfEveryTableIncludingTheLakeLedger() throws IOException {
        for (PipelineStack stack : List.of(payments, clickstream)) {
            List<DashboardMetric> metrics = dashboardMetrics(stack);
            List<IConstruct> tables = new ArrayList<>(stack.getTables().values());
            tables.add(stack.getLedgerTable().orElseThrow());
            for (IConstruct table : tables) {
                Map<String, String> dimensions = Map.of("TableName", "Ref:" + logicalId(table));
                for (String metric : List.of("ReadThrottleEvents", "WriteThrottleEvents")) {
                    assertThat(metrics)
                            .as(stack.getStackName() + " table "
                                    + table.getNode().getId() + " " + metric)
                            .anyMatch(m -> m.is("AWS/DynamoDB", metric, dimensions));
                }
            }
        }
    }

    @Test
    void dashboardShowsTheDepthOfEveryDeadLetterQueue() throws IOException {
        for (PipelineStack stack : List.of(payments, clickstream)) {
            List<DashboardMetric> metrics = dashboardMetrics(stack);
            stack.getQueues()
                    .forEach((name, queue) -> assertThat(metrics)
                            .as(stack.getStackName() + " queue " + name)
                            .anyMatch(m -> m.is(
                                    "AWS/SQS",
                                    "ApproximateNumberOfMessagesVisible",
                                    Map.of("QueueName", "GetAtt:" + logicalId(queue) + ".QueueName"))));
        }
    }

    @Test
    void dashboardShowsSluiceMetricsOfEveryDeployedStage() throws IOException {
        List<DashboardMetric> metrics = dashboardMetrics(payments);
        for (String metric : List.of("Records", "DeadLettered", "AbsorbedDuplicates", "FailedBatches")) {
            assertThat(metrics)
                    .as("payments/validate " + metric)
                    .anyMatch(m -> m.is("Sluice", metric, Map.of("pipeline", "payments", "stage", "validate"))
                            && "Sum".equals(m.stat()));
        }
        List<DashboardMetric> clicks = dashboardMetrics(clickstream);
        assertThat(clicks)
                .anyMatch(m ->
                        m.is("Sluice", "FailedBatches", Map.of("pipeline", "clickstream", "stage", "mask-and-rekey")));
        // page-counts (KCL) writes no Sluice EMF metrics of its own yet: KCL's and ECS' metrics instead
        assertThat(clicks).noneMatch(m -> "page-counts".equals(m.dimensions().get("stage")));
    }

    @Test
    void dashboardShowsMillisBehindLatestAndEcsUtilizationOfEveryKclStage() throws IOException {
        List<DashboardMetric> clicks = dashboardMetrics(clickstream);
        KclStage kcl = clickstream.getKclStage("page-counts");
        assertThat(clicks)
                .anyMatch(m ->
                        m.is("sluice-clickstream-page-counts", "MillisBehindLatest", Map.of("Operation", "ProcessTask"))
                                && "Maximum".equals(m.stat()));
        Map<String, String> service = Map.of(
                "ClusterName",
                "Ref:" + TestApps.logicalId(kcl.getKclCluster().getCluster()),
                "ServiceName",
                "GetAtt:" + TestApps.logicalId(kcl.getService()) + ".Name");
        for (String metric : List.of("CPUUtilization", "MemoryUtilization")) {
            // Average is CloudWatch's default statistic: the CDK leaves it out of the widget
            assertThat(clicks).as(metric).anyMatch(m -> m.is("AWS/ECS", metric, service) && m.stat() == null);
            assertThat(clicks).as(metric).anyMatch(m -> m.is("AWS/ECS", metric, service) && "Maximum".equals(m.stat()));
        }
        // payments has no KCL stage
        assertThat(dashboardMetrics(payments)).noneMatch(m -> m.name().equals("MillisBehindLatest"));
    }

    // ---- alarms

    @Test
    void everyDeployedStageHasIteratorAgeErrorsThrottlesAndFailedBatchesAlarmsAndEveryQueueADepthAlarm() {
        assertThat(payments.getObservability().getAlarms())
                .containsOnlyKeys(
                        "validate-iterator-age",
                        "validate-errors",
                        "validate-throttles",
                        "validate-failed-batches",
                        "payments-dlq-depth");
        paymentsTemplate.resourceCountIs("AWS::CloudWatch::Alarm", 5);
        assertThat(clickstream.getObservability().getAlarms())
                .containsOnlyKeys(
                        "mask-and-rekey-iterator-age",
                        "mask-and-rekey-errors",
                        "mask-and-rekey-throttles",
                        "mask-and-rekey-failed-batches",
                        "page-counts-millis-behind-latest",
                        "clicks-dlq-depth");
        clickstreamTemplate.resourceCountIs("AWS::CloudWatch::Alarm", 6);
    }

    @Test
    void iteratorAgeAlarmFiresAtSixtySecondsBehind() {
        Map<String, Object> function = ref(payments.getLambdaStage("validate").getFunction());
        assertAlarm(
                "sluice-payments-validate-iterator-age",
                "AWS/Lambda",
                "IteratorAge",
                "Maximum",
                List.of(Map.of("Name", "FunctionName", "Value", function)),
                60_000,
                "GreaterThanOrEqualToThreshold");
    }

    @Test
    void kclStageAlarmsOnMillisBehindLatestAtSixtySeconds() {
        clickstreamTemplate.hasResourceProperties(
                "AWS::CloudWatch::Alarm",
                Match.objectLike(Map.ofEntries(
                        Map.entry("AlarmName", "sluice-clickstream-page-counts-millis-behind-latest"),
                        Map.entry("Namespace", "sluice-clickstream-page-counts"),
                        Map.entry("MetricName", "MillisBehindLatest"),
                        Map.entry("Statistic", "Maximum"),
                        Map.entry("Dimensions", List.of(Map.of("Name", "Operation", "Value", "ProcessTask"))),
                        Map.entry("Threshold", 60_000),
                        Map.entry("ComparisonOperator", "GreaterThanOrEqualToThreshold"),
                        Map.entry("TreatMissingData", "notBreaching"),
                        Map.entry("Period", 60),
                        Map.entry(
                                "AlarmActions",
                                List.of(ref(clickstream.getObservability().getAlarmTopic()))))));
    }

    @Test
    void errorsAndThrottlesAlarmsFireOnTheFirstOne() {
        Map<String, Object> function = ref(payments.getLambdaStage("validate").getFunction());
        List<Map<String, Object>> dimensions = List.of(Map.of("Name", "FunctionName", "Value", function));
        assertAlarm(
                "sluice-payments-validate-errors",
                "AWS/Lambda",
                "Errors",
                "Sum",
                dimensions,
                0,
                "GreaterThanThreshold");
        assertAlarm(
                "sluice-payments-validate-throttles",
                "AWS/Lambda",
                "Throttles",
                "Sum",
                dimensions,
                0,
                "GreaterThanThreshold");
    }

    @Test
    void failedBatchesAlarmWatchesTheSluiceMetricOfTheStage() {
        assertAlarm(
                "sluice-payments-validate-failed-batches",
                "Sluice",
                "FailedBatches",
                "Sum",
                List.of(Map.of("Name", "pipeline", "Value", "payments"), Map.of("Name", "stage", "Value", "validate")),
                0,
                "GreaterThanThreshold");
    }

    @Test
    void deadLetterQueueAlarmFiresOnAnyVisibleMessage() {
        assertAlarm(
                "sluice-payments-payments-dlq-depth",
                "AWS/SQS",
                "ApproximateNumberOfMessagesVisible",
                "Maximum",
                List.of(Map.of("Name", "QueueName", "Value", getAtt(payments.getQueue("payments-dlq"), "QueueName"))),
                0,
                "GreaterThanThreshold");
    }

    @Test
    @SuppressWarnings("unchecked")
    void everyAlarmPublishesToThePipelinesTopicAndOnlyThere() {
        for (PipelineStack stack : List.of(payments, clickstream)) {
            Template template = stack == payments ? paymentsTemplate : clickstreamTemplate;
            Map<String, Map<String, Object>> alarms = template.findResources("AWS::CloudWatch::Alarm");
            assertThat(alarms).hasSize(stack.getObservability().getAlarms().size());
            Object topic = ref(stack.getObservability().getAlarmTopic());
            alarms.forEach((id, alarm) -> {
                Map<String, Object> properties = (Map<String, Object>) alarm.get("Properties");
                assertThat(properties.get("AlarmActions")).as(id).isEqualTo(List.of(topic));
                assertThat(properties.get("TreatMissingData")).as(id).isEqualTo("notBreaching");
                assertThat(properties.get("EvaluationPeriods")).as(id).isEqualTo(1);
                assertThat(properties.get("Period")).as(id).isEqualTo(60);
            });
        }
    }

    private static void assertAlarm(
            String name,
            String namespace,
            String metric,
            String statistic,
            List<Map<String, Object>> dimensions,
            int threshold,
            String comparison) {
        paymentsTemplate.hasResourceProperties(
                "AWS::CloudWatch::Alarm",
                Match.objectLike(Map.ofEntries(
                        Map.entry("AlarmName", name),
                        Map.entry("Namespace", namespace),
                        Map.entry("MetricName", metric),
                        Map.entry("Statistic", statistic),
                        Map.entry("Dimensions", dimensions),
                        Map.entry("Threshold", threshold),
                        Map.entry("ComparisonOperator", comparison),
                        Map.entry("TreatMissingData", "notBreaching"),
                        Map.entry(
                                "AlarmActions",
                                List.of(ref(payments.getObservability().getAlarmTopic()))))));
    }

    // ---- topic

    @Test
    void topicIsEncryptedWithThePipelineKey() {
        paymentsTemplate.resourceCountIs("AWS::SNS::Topic", 1);
        paymentsTemplate.hasResourceProperties(
                "AWS::SNS::Topic",
                Match.objectLike(Map.of("KmsMasterKeyId", getAtt(payments.getKey(PipelineKeys.Use.MESSAGING), "Arn"))));
    }

    @Test
    void topicRefusesRequestsWithoutTls() {
        Object topic = ref(payments.getObservability().getAlarmTopic());
        Object denyWithoutTls = Match.objectLike(Map.of(
                "Effect", "Deny",
                "Principal", "*",
                "Action", "sns:Publish",
                "Resource", topic,
                "Condition", Map.of("Bool", Map.of("aws:SecureTransport", "false"))));
        paymentsTemplate.hasResourceProperties(
                "AWS::SNS::TopicPolicy",
                Map.of("Topics", List.of(topic), "PolicyDocument", withStatement(denyWithoutTls)));
    }

    @Test
    void cloudWatchAlarmsOfThisAccountMayPublishAndUseTheKey() {
        Object topic = ref(payments.getObservability().getAlarmTopic());
        Object sourceAccount = Map.of("aws:SourceAccount", Map.of("Ref", "AWS::AccountId"));
        Object publish = Match.objectLike(Map.of(
                "Effect",
                "Allow",
                "Principal",
                Map.of("Service", "cloudwatch.amazonaws.com"),
                "Action",
                "sns:Publish",
                "Resource",
                topic,
                "Condition",
                Match.objectLike(Map.of("StringEquals", sourceAccount))));
        paymentsTemplate.hasResourceProperties(
                "AWS::SNS::TopicPolicy", Match.objectLike(Map.of("PolicyDocument", withStatement(publish))));
        Object useKey = Match.objectLike(Map.of(
                "Effect", "Allow",
                "Principal", Map.of("Service", "cloudwatch.amazonaws.com"),
                "Action", List.of("kms:Decrypt", "kms:GenerateDataKey*")));
        paymentsTemplate.hasResourceProperties(
                "AWS::KMS::Key", Match.objectLike(Map.of("KeyPolicy", withStatement(useKey))));
    }

    /** A policy document holding (at least) a statement matching this. */
    private static Object withStatement(Object statement) {
        return Match.objectLike(Map.of("Statement", Match.arrayWith(List.of(statement))));
    }

    @Test
    void stackOutputsNameTheTopicAndTheDashboard() {
        paymentsTemplate.hasOutput(
                Observability.ALARM_TOPIC_OUTPUT,
                Match.objectLike(Map.of("Value", ref(payments.getObservability().getAlarmTopic()))));
        paymentsTemplate.hasOutput(
                Observability.DASHBOARD_OUTPUT,
                Match.objectLike(Map.of("Value", ref(payments.getObservability().getDashboard()))));
    }

    // ---- the EMF names are copies of functions/aws's

    @Test
    void emfNamesAreThoseTheStageFunctionsWrite() throws IOException {
        Path source = SluiceRoot.locate().resolve("functions/aws/src/main/java/dev/sluice/aws/metrics/EmfMetrics.java");
        Map<String, String> constants = new LinkedHashMap<>();
        Matcher m =
                Pattern.compile("static final String (\\w+) = \"([^\"]*)\";").matcher(Files.readString(source));
        while (m.find()) {
            constants.put(m.group(1), m.group(2));
        }
        assertThat(constants)
                .containsEntry("NAMESPACE", Observability.EMF_NAMESPACE)
                .containsEntry("RECORDS", Observability.RECORDS)
                .containsEntry("DEAD_LETTERED", Observability.DEAD_LETTERED)
                .containsEntry("ABSORBED_DUPLICATES", Observability.ABSORBED_DUPLICATES)
                .containsEntry("FAILED_BATCHES", Observability.FAILED_BATCHES);
        // the dimensions: EmfMetrics writes "Dimensions": [["pipeline", "stage"]]
        assertThat(Files.readString(source))
                .contains("\"" + Observability.EMF_PIPELINE_DIMENSION + "\"")
                .contains("\"" + Observability.EMF_STAGE_DIMENSION + "\"");
    }

    // ---- reading the dashboard body

    /** One metric line of a dashboard graph: namespace, name, dimensions and statistic. */
    record DashboardMetric(String namespace, String name, Map<String, String> dimensions, String stat) {

        boolean is(String namespace, String name, Map<String, String> dimensions) {
            return this.namespace.equals(namespace) && this.name.equals(name) && this.dimensions.equals(dimensions);
        }
    }

    /**
     * Every metric of the stack's dashboard. The body is an {@code Fn::Join} of JSON text and
     * intrinsics (inside JSON strings); the intrinsics become {@code Ref:<id>} or {@code
     * GetAtt:<id>.<attribute>} so the joined text parses.
     */
    @SuppressWarnings("unchecked")
    static List<DashboardMetric> dashboardMetrics(PipelineStack stack) throws IOException {
        Template template = stack == payments ? paymentsTemplate : clickstreamTemplate;
        Map<String, Object> dashboard = template.findResources("AWS::CloudWatch::Dashboard")
                .values()
                .iterator()
                .next();
        Map<String, Object> body =
                (Map<String, Object>) ((Map<String, Object>) dashboard.get("Properties")).get("DashboardBody");
        List<Object> join = (List<Object>) body.get("Fn::Join");
        StringBuilder text = new StringBuilder();
        for (Object part : (List<Object>) join.get(1)) {
            if (part instanceof String s) {
                text.append(s);
            } else {
                Map<String, Object> intrinsic = (Map<String, Object>) part;
                if (intrinsic.containsKey("Ref")) {
                    text.append("Ref:").append(intrinsic.get("Ref"));
                } else if (intrinsic.containsKey("Fn::GetAtt")) {
                    List<Object> att = (List<Object>) intrinsic.get("Fn::GetAtt");
                    text.append("GetAtt:").append(att.get(0)).append('.').append(att.get(1));
                } else {
                    text.append("intrinsic");
                }
            }
        }
        List<DashboardMetric> out = new ArrayList<>();
        for (JsonNode widget : new ObjectMapper().readTree(text.toString()).get("widgets")) {
            JsonNode metrics = widget.path("properties").path("metrics");
            for (JsonNode line : metrics) {
                Map<String, String> dimensions = new LinkedHashMap<>();
                String stat = null;
                int i = 2;
                for (; i + 1 < line.size() && line.get(i).isTextual(); i += 2) {
                    dimensions.put(line.get(i).asText(), line.get(i + 1).asText());
                }
                if (i < line.size() && line.get(i).isObject()) {
                    stat = line.get(i).path("stat").asText(null);
                }
                out.add(new DashboardMetric(line.get(0).asText(), line.get(1).asText(), Map.copyOf(dimensions), stat));
            }
        }
        assertThat(out)
                .as("metrics on " + stack.getStackName() + "'s dashboard")
                .isNotEmpty();
        return out;
    }
}
