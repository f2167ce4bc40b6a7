package dev.sluice.cdk;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awscdk.CfnOutput;
import software.amazon.awscdk.Duration;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.services.cloudwatch.Alarm;
import software.amazon.awscdk.services.cloudwatch.ComparisonOperator;
import software.amazon.awscdk.services.cloudwatch.Dashboard;
import software.amazon.awscdk.services.cloudwatch.GraphWidget;
import software.amazon.awscdk.services.cloudwatch.IMetric;
import software.amazon.awscdk.services.cloudwatch.IWidget;
import software.amazon.awscdk.services.cloudwatch.Metric;
import software.amazon.awscdk.services.cloudwatch.MetricOptions;
import software.amazon.awscdk.services.cloudwatch.TextWidget;
import software.amazon.awscdk.services.cloudwatch.TreatMissingData;
import software.amazon.awscdk.services.cloudwatch.actions.SnsAction;
import software.amazon.awscdk.services.dynamodb.Table;
import software.amazon.awscdk.services.ecs.FargateService;
import software.amazon.awscdk.services.iam.Effect;
import software.amazon.awscdk.services.iam.PolicyStatement;
import software.amazon.awscdk.services.iam.ServicePrincipal;
import software.amazon.awscdk.services.kinesis.Stream;
import software.amazon.awscdk.services.lambda.Function;
import software.amazon.awscdk.services.sns.Topic;
import software.amazon.awscdk.services.sqs.Queue;
import software.constructs.Construct;

/**
 * A pipeline's CloudWatch dashboard ({@code sluice-<pipeline>}) and alarms, and the SNS topic the
 * alarms publish to.
 *
 * <p>The dashboard shows, per Kinesis stream, incoming records and bytes, read and write
 * throughput exceeded and the GetRecords iterator age; per deployed Lambda stage, invocations,
 * errors, throttles, duration (p50, p99), concurrent executions and iterator age, and Sluice's own
 * metrics ({@value #EMF_NAMESPACE}: {@link #EMF_METRICS}); per KCL stage, KCL's MillisBehindLatest
 * (maximum) and the service's ECS CPU and memory utilization; per DynamoDB table (serving tables and
 * the lake's commit ledger) read and write throttle events; per SQS dead-letter queue the visible
 * messages.
 *
 * <p>Alarms, each publishing to the topic when it fires and missing data not breaching: per
 * deployed Lambda stage, iterator age at least {@link #ITERATOR_AGE_THRESHOLD_MS} ms, errors,
 * throttles and Sluice {@code FailedBatches} above zero; per KCL stage, MillisBehindLatest at
 * least {@link #ITERATOR_AGE_THRESHOLD_MS} ms; per dead-letter queue, any visible
 * message. The topic is encrypted with the pipeline's messaging key (CloudWatch may use the key to publish)
 * and accepts TLS requests only.
 */
public final class Observability extends Construct {

    /**
     * Namespace of the metrics the stage functions write in Embedded Metric Format; a copy of
     * {@code dev.sluice.aws.metrics.EmfMetrics.NAMESPACE} (functions/aws), which infra-cdk
     * does not depend on. {@code EmfMetricNamesTest} checks the copies against that source file.
     */
    public static final String EMF_NAMESPACE = "Sluice";

    /** Dimension of the EMF metrics naming the pipeline (EmfMetrics). */
    public static final String EMF_PIPELINE_DIMENSION = "pipeline";

    /** Dimension of the EMF metrics naming the stage (EmfMetrics). */
    public static final String EMF_STAGE_DIMENSION = "stage";

    /** EmfMetrics.RECORDS: records in the batch. */
    public static final String RECORDS = "Records";

    /** EmfMetrics.DEAD_LETTERED: records sent to the dead-letter queue. */
    public static final String DEAD_LETTERED = "DeadLettered";

    /** EmfMetrics.ABSORBED_DUPLICATES: re-sent or redelivered records the sinks absorbed. */
    public static final String ABSORBED_DUPLICATES = "AbsorbedDuplicates";

    /** EmfMetrics.FAILED_BATCHES: batches the function failed (Lambda retries them). */
    public static final String FAILED_BATCHES = "FailedBatches";

    /** The EMF metrics on the dashboard, per stage. */
    public static final List<String> EMF_METRICS = List.of(RECORDS, DEAD_LETTERED, ABSORBED_DUPLICATES, FAILED_BATCHES);

    /** A stage whose oldest unread record is at least this old (Lambda IteratorAge, maximum) alarms. */
    public static final int ITERATOR_AGE_THRESHOLD_MS = 60_000;

    /** KCL's metric of how far a worker is behind the tip of its shards, in ms. */
    public static final String KCL_MILLIS_BEHIND_LATEST = "MillisBehindLatest";

    /** The dimension of KCL's per-operation metrics. */
    public static final String KCL_OPERATION_DIMENSION = "Operation";

    /** KCL's record-processing operation. */
    public static final String KCL_PROCESS_TASK = "ProcessTask";

    /** Period of every alarm and dashboard metric. */
    public static final Duration PERIOD = Duration.minutes(1);

    /** Stack output holding the alarm topic's ARN. */
    public static final String ALARM_TOPIC_OUTPUT = "AlarmTopicArn";

    /** Stack output holding the dashboard's name. */
    public static final String DASHBOARD_OUTPUT = "DashboardName";

    private static final int WIDGET_WIDTH = 8;
    private static final int WIDGET_HEIGHT = 6;

    private final Dashboard dashboard;
    private final Topic alarmTopic;
    private final Map<String, Alarm> alarms = new LinkedHashMap<>();

    Observability(PipelineStack stack) {
        super(stack, "Observability");
        String pipeline = stack.getDefinition().pipeline();

        this.alarmTopic = alarmTopic(stack, pipeline);
        this.dashboard = Dashboard.Builder.create(this, "Dashboard")
                .dashboardName(dashboardName(pipeline))
                .build();

        dashboard.addWidgets(text("# Sluice pipeline " + pipeline + "\nAlarms `" + SluiceApp.STACK_PREFIX + pipeline
                + "-*` publish to the SNS topic in this stack's output `" + ALARM_TOPIC_OUTPUT + "`."));

        stack.getStreams().forEach((name, stream) -> dashboard.addWidgets(streamWidgets(name, stream)));

        stack.getLambdaStages().forEach((stage, lambdaStage) -> {
            Function function = lambdaStage.getFunction();
            dashboard.addWidgets(functionWidgets(stage, function));
            dashboard.addWidgets(emfWidgets(pipeline, stage));
            alarm(
                    stage + "-iterator-age",
                    function.metric("IteratorAge", stat("Maximum")),
                    ITERATOR_AGE_THRESHOLD_MS,
                    ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
                    "stage " + stage + " is " + ITERATOR_AGE_THRESHOLD_MS / 1000
                            + " s or more behind its input stream (Lambda IteratorAge, maximum)");
            alarm(
                    stage + "-errors",
                    function.metricErrors(stat("Sum")),
                    0,
                    ComparisonOperator.GREATER_THAN_THRESHOLD,
                    "stage " + stage + "'s function returned errors (Lambda Errors)");
            alarm(
                    stage + "-throttles",
                    function.metricThrottles(stat("Sum")),
                    0,
                    ComparisonOperator.GREATER_THAN_THRESHOLD,
                    "stage " + stage + "'s function was throttled (Lambda Throttles)");
            alarm(
                    stage + "-failed-batches",
                    emf(pipeline, stage, FAILED_BATCHES),
                    0,
                    ComparisonOperator.GREATER_THAN_THRESHOLD,
                    "stage " + stage + " failed batches (Sluice FailedBatches); Lambda retries them");
        });

        stack.getKclStages().forEach((stage, kclStage) -> {
            dashboard.addWidgets(kclWidgets(stage, kclStage));
            alarm(
                    stage + "-millis-behind-latest",
                    millisBehindLatest(kclStage.getApplicationName()),
                    ITERATOR_AGE_THRESHOLD_MS,
                    ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
                    "stage " + stage + " is " + ITERATOR_AGE_THRESHOLD_MS / 1000
                            + " s or more behind its input stream (KCL MillisBehindLatest, maximum)");
        });

        List<IWidget> tables = new ArrayList<>();
        stack.getTables().forEach((name, table) -> tables.add(tableWidget(name, table)));
        stack.getLedgerTable().ifPresent(ledger -> tables.add(tableWidget("lake ledger", ledger)));
        addInRows(tables);

        List<IWidget> queues = new ArrayList<>();
        stack.getQueues().forEach((name, queue) -> {
            queues.add(queueWidget(name, queue));
            alarm(
                    name + "-depth",
                    queue.metricApproximateNumberOfMessagesVisible(stat("Maximum")),
                    0,
                    ComparisonOperator.GREATER_THAN_THRESHOLD,
                    "dead-letter queue " + name + " holds messages (SQS ApproximateNumberOfMessagesVisible)");
        });
        addInRows(queues);
        outputs();
    }

    /** The dashboard's name for a pipeline. */
    public static String dashboardName(String pipeline) {
        return SluiceApp.STACK_PREFIX + pipeline;
    }

    private static String alarmTopicId() {
        return "AlarmTopic";
    }

    private void outputs() {
        // stable output names: the README tells people to look them up
        CfnOutput topicOutput = CfnOutput.Builder.create(this, ALARM_TOPIC_OUTPUT)
                .description("SNS topic the pipeline's alarms publish to: subscribe to it to be notified")
                .value(alarmTopic.getTopicArn())
                .build();
        topicOutput.overrideLogicalId(ALARM_TOPIC_OUTPUT);
        CfnOutput dashboardOutput = CfnOutput.Builder.create(this, DASHBOARD_OUTPUT)
                .description("CloudWatch dashboard of the pipeline")
                .value(dashboard.getDashboardName())
                .build();
        dashboardOutput.overrideLogicalId(DASHBOARD_OUTPUT);
    }

    /** Sid of the messaging key's statement letting this pipeline's alarms use it. */
    public static final String ALARMS_KEY_STATEMENT_SID = "AlarmsOfThisPipelinePublishEncrypted";

    /** {@code arn:<partition>:cloudwatch:<region>:<account>:alarm:sluice-<pipeline>-*}: this pipeline's alarms. */
    static String alarmArnPattern(PipelineStack stack, String pipeline) {
        return "arn:" + stack.getPartition() + ":cloudwatch:" + stack.getRegion() + ":" + stack.getAccount() + ":alarm:"
                + SluiceApp.STACK_PREFIX + pipeline + "-*";
    }

    private Topic alarmTopic(PipelineStack stack, String pipeline) {
        Topic topic = Topic.Builder.create(this, alarmTopicId())
                .displayName("Sluice " + pipeline + " alarms")
                .masterKey(stack.getKey(PipelineKeys.Use.MESSAGING))
                .enforceSsl(true)
                .build();
        // CloudWatch alarms publishing to an encrypted topic need Decrypt and GenerateDataKey* on its
        // key (the SNS guide's statement for AWS event sources); only this account's alarms of this
        // pipeline, and the key encrypts the topic only (dead letters have a key of their own)
        stack.getKey(PipelineKeys.Use.MESSAGING)
                .addToResourcePolicy(PolicyStatement.Builder.create()
                        .sid(ALARMS_KEY_STATEMENT_SID)
                        .principals(List.of(new ServicePrincipal("cloudwatch.amazonaws.com")))
                        .actions(List.of("kms:Decrypt", "kms:GenerateDataKey*"))
                        .resources(List.of("*"))
                        .conditions(Map.of(
                                "StringEquals",
                                Map.of("aws:SourceAccount", stack.getAccount()),
                                "ArnLike",
                                Map.of("aws:SourceArn", alarmArnPattern(stack, pipeline))))
                        .build());
        // the topic policy replaces SNS's default one: let this account's alarms publish
        topic.addToResourcePolicy(PolicyStatement.Builder.create()
                .sid("AllowAlarmsOfThisAccountToPublish")
                .effect(Effect.ALLOW)
                .principals(List.of(new ServicePrincipal("cloudwatch.amazonaws.com")))
                .actions(List.of("sns:Publish"))
                .resources(List.of(topic.getTopicArn()))
                .conditions(Map.of(
                        "StringEquals",
                        Map.of("aws:SourceAccount", stack.getAccount()),
                        "ArnLike",
                        Map.of("aws:SourceArn", alarmArnPattern(stack, pipeline))))
                .build());
        return topic;
    }

    private void alarm(
            String name, IMetric metric, double threshold, ComparisonOperator comparison, String description) {
        String pipeline = ((PipelineStack) Stack.of(this)).getDefinition().pipeline();
        Alarm alarm = Alarm.Builder.create(this, "Alarm" + LogicalNames.pascal(name))
                .alarmName(SluiceApp.STACK_PREFIX + pipeline + "-" + name)
                .alarmDescription("Sluice " + pipeline + ": " + description)
                .metric(metric)
                .threshold(threshold)
                .comparisonOperator(comparison)
                .evaluationPeriods(1)
                .datapointsToAlarm(1)
                .treatMissingData(TreatMissingData.NOT_BREACHING)
                .build();
        alarm.addAlarmAction(new SnsAction(alarmTopic));
        alarms.put(name, alarm);
    }

    private static MetricOptions stat(String statistic) {
        return MetricOptions.builder().statistic(statistic).period(PERIOD).build();
    }

    private static MetricOptions stat(String statistic, String label) {
        return MetricOptions.builder()
                .statistic(statistic)
                .period(PERIOD)
                .label(label)
                .build();
    }

    /** A Sluice EMF metric of one stage (sum per period). */
    static Metric emf(String pipeline, String stage, String metricName) {
        return Metric.Builder.create()
                .namespace(EMF_NAMESPACE)
                .metricName(metricName)
                .dimensionsMap(Map.of(EMF_PIPELINE_DIMENSION, pipeline, EMF_STAGE_DIMENSION, stage))
                .statistic("Sum")
                .period(PERIOD)
                .build();
    }

    private static IWidget[] streamWidgets(String name, Stream stream) {
        return new IWidget[] {
            graph(
                    "Stream " + name + ": incoming",
                    List.of(stream.metricIncomingRecords(stat("Sum", "IncomingRecords"))),
                    List.of(stream.metricIncomingBytes(stat("Sum", "IncomingBytes")))),
            graph(
                    "Stream " + name + ": throughput exceeded",
                    List.of(
                            stream.metricReadProvisionedThroughputExceeded(
                                    stat("Sum", "ReadProvisionedThroughputExceeded")),
                            stream.metricWriteProvisionedThroughputExceeded(
                                    stat("Sum", "WriteProvisionedThroughputExceeded"))),
                    List.of()),
            graph(
                    "Stream " + name + ": GetRecords iterator age (ms)",
                    List.of(stream.metricGetRecordsIteratorAgeMilliseconds(stat("Maximum", "max"))),
                    List.of())
        };
    }

    private static IWidget[] functionWidgets(String stage, Function function) {
        return new IWidget[] {
            graph(
                    "Stage " + stage + ": invocations, errors, throttles",
                    List.of(
                            function.metricInvocations(stat("Sum", "Invocations")),
                            function.metricErrors(stat("Sum", "Errors")),
                            function.metricThrottles(stat("Sum", "Throttles"))),
                    List.of(function.metric("ConcurrentExecutions", stat("Maximum", "ConcurrentExecutions")))),
            graph(
                    "Stage " + stage + ": duration (ms)",
                    List.of(function.metricDuration(stat("p50", "p50")), function.metricDuration(stat("p99", "p99"))),
                    List.of()),
            graph(
                    "Stage " + stage + ": iterator age (ms)",
                    List.of(function.metric("IteratorAge", stat("Maximum", "IteratorAge max"))),
                    List.of())
        };
    }

    private static IWidget[] emfWidgets(String pipeline, String stage) {
        return new IWidget[] {
            graph("Stage " + stage + ": records", List.of(emf(pipeline, stage, RECORDS)), List.of()),
            graph(
                    "Stage " + stage + ": dead-lettered, absorbed duplicates",
                    List.of(emf(pipeline, stage, DEAD_LETTERED), emf(pipeline, stage, ABSORBED_DUPLICATES)),
                    List.of()),
            graph("Stage " + stage + ": failed batches", List.of(emf(pipeline, stage, FAILED_BATCHES)), List.of())
        };
    }

    /**
     * KCL's {@value #KCL_MILLIS_BEHIND_LATEST} of an application (namespace = application name,
     * {@value #KCL_OPERATION_DIMENSION} = {@value #KCL_PROCESS_TASK}), maximum per period.
     */
    static Metric millisBehindLatest(String applicationName) {
        return Metric.Builder.create()
                .namespace(applicationName)
                .metricName(KCL_MILLIS_BEHIND_LATEST)
                .dimensionsMap(Map.of(KCL_OPERATION_DIMENSION, KCL_PROCESS_TASK))
                .statistic("Maximum")
                .period(PERIOD)
                .build();
    }

    private static IWidget[] kclWidgets(String stage, KclStage kclStage) {
        FargateService service = kclStage.getService();
        return new IWidget[] {
            graph(
                    "Stage " + stage + ": KCL MillisBehindLatest (ms)",
                    List.of(millisBehindLatest(kclStage.getApplicationName())
                            .with(MetricOptions.builder()
                                    .label("MillisBehindLatest max")
                                    .build())),
                    List.of()),
            graph(
                    "Stage " + stage + ": ECS CPU and memory utilization (%)",
                    List.of(
                            service.metricCpuUtilization(stat("Average", "CPUUtilization avg")),
                            service.metricMemoryUtilization(stat("Average", "MemoryUtilization avg"))),
                    List.of(
                            service.metricCpuUtilization(stat("Maximum", "CPUUtilization max")),
                            service.metricMemoryUtilization(stat("Maximum", "MemoryUtilization max"))))
        };
    }

    private static IWidget tableWidget(String name, Table table) {
        return graph(
                "Table " + name + ": throttle events",
                List.of(
                        table.metric("ReadThrottleEvents", stat("Sum", "ReadThrottleEvents")),
                        table.metric("WriteThrottleEvents", stat("Sum", "WriteThrottleEvents"))),
                List.of());
    }

    private static IWidget queueWidget(String name, Queue queue) {
        return graph(
                "Dead-letter queue " + name + ": visible messages",
                List.of(queue.metricApproximateNumberOfMessagesVisible(stat("Maximum", "visible"))),
                List.of());
    }

    private static GraphWidget graph(String title, List<IMetric> left, List<IMetric> right) {
        return GraphWidget.Builder.create()
                .title(title)
                .left(left)
                .right(right)
                .width(WIDGET_WIDTH)
                .height(WIDGET_HEIGHT)
                .build();
    }

    private static TextWidget text(String markdown) {
        return TextWidget.Builder.create()
                .markdown(markdown)
                .width(24)
                .height(2)
                .build();
    }

    /** Three widgets a row. */
    private void addInRows(List<IWidget> widgets) {
        for (int i = 0; i < widgets.size(); i += 3) {
            dashboard.addWidgets(
                    widgets.subList(i, Math.min(i + 3, widgets.size())).toArray(IWidget[]::new));
        }
    }

    /** The pipeline's dashboard, named {@code sluice-<pipeline>}. */
    public Dashboard getDashboard() {
        return dashboard;
    }

    /** The SNS topic every alarm of the pipeline publishes to. */
    public Topic getAlarmTopic() {
        return alarmTopic;
    }

    /**
     * The alarms by name ({@code <stage>-iterator-age}, {@code <stage>-errors}, {@code
     * <stage>-throttles}, {@code <stage>-failed-batches}, {@code <stage>-millis-behind-latest} (KCL
     * stages), {@code <queue>-depth}); each is named
     * {@code sluice-<pipeline>-<name>} in CloudWatch.
     */
    public Map<String, Alarm> getAlarms() {
        return Collections.unmodifiableMap(alarms);
    }
}
