package dev.sluice.cdk;

import dev.sluice.aws.StageAccess;
import dev.sluice.aws.access.Access;
import dev.sluice.core.definition.EnvironmentNames;
import dev.sluice.core.definition.FunctionDefinition;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.definition.ReferenceDefinition;
import dev.sluice.core.definition.SinkDefinition;
import dev.sluice.core.definition.StageDefinition;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import software.amazon.awscdk.ArnComponents;
import software.amazon.awscdk.ArnFormat;
import software.amazon.awscdk.Duration;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.services.dynamodb.Table;
import software.amazon.awscdk.services.iam.Role;
import software.amazon.awscdk.services.iam.ServicePrincipal;
import software.amazon.awscdk.services.kinesis.Stream;
import software.amazon.awscdk.services.lambda.Alias;
import software.amazon.awscdk.services.lambda.Architecture;
import software.amazon.awscdk.services.lambda.CfnEventSourceMapping;
import software.amazon.awscdk.services.lambda.Code;
import software.amazon.awscdk.services.lambda.EventSourceMapping;
import software.amazon.awscdk.services.lambda.Function;
import software.amazon.awscdk.services.lambda.Runtime;
import software.amazon.awscdk.services.lambda.SnapStartConf;
import software.amazon.awscdk.services.lambda.StartingPosition;
import software.amazon.awscdk.services.logs.LogGroup;
import software.amazon.awscdk.services.logs.RetentionDays;
import software.amazon.awscdk.services.s3.Bucket;
import software.amazon.awscdk.services.sqs.Queue;
import software.constructs.Construct;

/**
 * A {@code consumer: lambda} stage: its function, the function's KMS-encrypted log group and the
 * Kinesis event-source mapping that feeds it. The function runs with SnapStart: every change publishes
 * a version, the alias {@value #ALIAS} points at it, and the mapping invokes the alias. Memory, timeout and reserved concurrency come from the
 * stage's {@code function} block ({@link FunctionDefinition}; 1024 MB and 60 s by default, no
 * reserved concurrency), and {@code JAVA_TOOL_OPTIONS} holds {@link StageEnvironment#JVM_FLAGS}.
 *
 * <p>The function's role has no managed policy: it is granted exactly what the stage's code declares
 * (sluice-aws's {@code StageAccess}: its sinks, aggregate sink, reference loaders, secret provider
 * and dead-letter sink with its claim checks) and what the event-source mapping does with the role
 * ({@link #eventSourceMappingAccess}), through {@link StageGrants}, plus {@code logGroup.grantWrite}
 * on its own log group. The mapping's on-failure destination is the stage's dead-letter queue. Its
 * environment holds resource names, URLs and ARNs only ({@link
 * dev.sluice.core.definition.EnvironmentNames}, {@link StageEnvironment}).
 */
public final class LambdaStage extends Construct {

    /** The method of the stage's handler class the runtime invokes. */
    public static final String HANDLER_METHOD = "handleRequest";

    /**
     * The alias the event-source mapping invokes: it points at the version published from the
     * function's current configuration and code, which SnapStart snapshots ({@code ApplyOn:
     * PublishedVersions}); {@code $LATEST} is never invoked.
     */
    public static final String ALIAS = "live";

    /** Retention of the function's log group. */
    public static final RetentionDays LOG_RETENTION = RetentionDays.ONE_MONTH;

    /** Actions CloudWatch Logs needs on the key to encrypt a log group (per the CloudWatch Logs guide). */
    private static final List<String> LOGS_KEY_ACTIONS =
            List.of("kms:Encrypt*", "kms:Decrypt*", "kms:ReEncrypt*", "kms:GenerateDataKey*", "kms:Describe*");

    /**
     * What a polling Kinesis event-source mapping calls on its stream with the function's role
     * (Lambda developer guide, "Execution role permissions" for Kinesis).
     */
    public static final List<String> EVENT_SOURCE_STREAM_ACTIONS = List.of(
            "kinesis:DescribeStream",
            "kinesis:DescribeStreamSummary",
            "kinesis:GetRecords",
            "kinesis:GetShardIterator",
            "kinesis:ListShards");

    /** Characters IAM treats as wildcards or variables in a resource ARN. */
    private static final Pattern IAM_SPECIAL = Pattern.compile("[*?$]");

    private final String stageName;
    private final LogGroup logGroup;
    private final Function function;
    private final Alias alias;
    private final EventSourceMapping eventSource;
    private final Role role;
    private final Queue deadLetterQueue;

    LambdaStage(PipelineStack stack, String stageName, StageDefinition stage, Code code) {
        super(stack, "Stage" + LogicalNames.pascal(stageName));
        this.stageName = stageName;
        String pipeline = stack.getDefinition().pipeline();
        Stream input = stack.getStream(stage.input());
        this.deadLetterQueue = stack.getQueue(stage.failure().deadLetterQueue());

        this.logGroup = logGroup(stack, "/sluice/" + pipeline + "/" + stageName);

        Map<String, String> environment = new LinkedHashMap<>();
        environment.put(EnvironmentNames.PIPELINE, pipeline);
        environment.put(EnvironmentNames.STAGE, stageName);
        environment.put(EnvironmentNames.queueUrl(stage.failure().deadLetterQueue()), deadLetterQueue.getQueueUrl());
        // the bucket of the dead-letter claim checks (records too large for a message)
        environment.put(EnvironmentNames.LAKE_BUCKET, lakeBucket(stack).getBucketName());
        environment.put(StageEnvironment.JAVA_TOOL_OPTIONS, StageEnvironment.JVM_FLAGS);
        for (SinkDefinition sink : stage.sinks()) {
            switch (sink.kind()) {
                case TABLE ->
                    environment.put(
                            EnvironmentNames.table(sink.table()),
                            stack.getTable(sink.table()).getTableName());
                case LAKE -> {
                    environment.put(
                            EnvironmentNames.LAKE_BUCKET, lakeBucket(stack).getBucketName());
                    environment.put(
                            EnvironmentNames.LEDGER_TABLE, ledgerTable(stack).getTableName());
                }
                case STREAM ->
                    environment.put(
                            EnvironmentNames.stream(sink.stream()),
                            stack.getStream(sink.stream()).getStreamName());
            }
        }
        for (String table : StageSteps.aggregateTables(stage)) {
            environment.put(EnvironmentNames.table(table), stack.getTable(table).getTableName());
        }
        for (ReferenceDefinition reference : StageSteps.references(stack, stage)) {
            if (reference.table() != null) {
                environment.put(
                        EnvironmentNames.table(reference.table()),
                        stack.getTable(reference.table()).getTableName());
            } else {
                environment.put(EnvironmentNames.LAKE_BUCKET, lakeBucket(stack).getBucketName());
            }
        }
        // the secret's ARN, never its value: the handler reads the value from Secrets Manager
        for (String secret : StageSteps.secrets(stage)) {
            environment.put(
                    EnvironmentNames.secretId(secret), stack.getSecret(secret).getSecretArn());
        }

        this.role = Role.Builder.create(this, "Role")
                .assumedBy(new ServicePrincipal("lambda.amazonaws.com"))
                .description("Sluice " + pipeline + "/" + stageName + ": the stage function's role")
                .build();
        FunctionDefinition settings = stage.function();
        this.function = Function.Builder.create(this, "Function")
                .description("Sluice " + pipeline + "/" + stageName + ": reads " + stage.input())
                .runtime(Runtime.JAVA_21)
                .architecture(Architecture.ARM_64)
                .handler(stage.handler() + "::" + HANDLER_METHOD)
                .code(code)
                .memorySize(settings.memoryMb())
                .timeout(Duration.seconds(settings.timeoutSeconds()))
                // null reserves nothing; the definition checked it covers shards × parallelizationFactor
                .reservedConcurrentExecutions(settings.reservedConcurrency())
                .logGroup(logGroup)
                .role(role)
                .environment(environment)
                // a snapshot of the initialised (and primed, see the handler's CRaC hook) JVM per
                // published version; only versions get one, hence the alias below
                .snapStart(SnapStartConf.ON_PUBLISHED_VERSIONS)
                .build();
        // currentVersion publishes a new version whenever the code or configuration changes
        this.alias = Alias.Builder.create(this, "Alias")
                .aliasName(ALIAS)
                .version(function.getCurrentVersion())
                .description("Sluice " + pipeline + "/" + stageName + ": the version the event-source mapping invokes")
                .build();

        // exactly what the stage's code declares (sluice-aws), what the event-source mapping does
        // with the function's role, and writing its own log group: nothing else, no managed policy
        StageGrants grants = new StageGrants(stack, null, null);
        for (ReferenceDefinition reference : StageSteps.references(stack, stage)) {
            if (reference.object() != null) {
                refuseSpecialCharacters(stack, reference.object());
            }
        }
        grants.grant(role, access(stack.getDefinition(), stageName));
        logGroup.grantWrite(role);

        this.eventSource = EventSourceMapping.Builder.create(this, "KinesisEventSource")
                .target(alias)
                .eventSourceArn(input.getStreamArn())
                .startingPosition(startingPosition(stage))
                .batchSize(stage.batching().batchSize())
                .maxBatchingWindow(Duration.seconds(stage.batching().batchingWindowSeconds()))
                .parallelizationFactor(stage.batching().parallelizationFactor())
                .bisectBatchOnError(stage.failure().bisectOnError())
                .reportBatchItemFailures(true)
                .retryAttempts(
                        stage.failure().maxRetryAttempts() >= 0
                                ? stage.failure().maxRetryAttempts()
                                : null)
                .maxRecordAge(
                        stage.failure().maxRecordAgeSeconds() >= 0
                                ? Duration.seconds(stage.failure().maxRecordAgeSeconds())
                                : null)
                .startingPositionTimestamp(
                        stage.batching().startingInstant() == null
                                ? null
                                : stage.batching().startingInstant().getEpochSecond())
                .build();
        CfnEventSourceMapping mapping =
                (CfnEventSourceMapping) eventSource.getNode().getDefaultChild();
        // the alias's ARN (its Ref) names the function and the qualifier Lambda invokes
        mapping.setFunctionName(alias.getFunctionArn());
        // the on-failure destination without the CDK's SqsDlq, which would grant its own wider set
        mapping.setDestinationConfig(CfnEventSourceMapping.DestinationConfigProperty.builder()
                .onFailure(CfnEventSourceMapping.OnFailureProperty.builder()
                        .destination(deadLetterQueue.getQueueArn())
                        .build())
                .build());
        ResourceMetadata.mark(function, ResourceMetadata.KIND_FUNCTION, stageName);
        ResourceMetadata.mark(eventSource, ResourceMetadata.KIND_EVENT_SOURCE_MAPPING, stageName);
    }

    private static Bucket lakeBucket(PipelineStack stack) {
        return stack.getLakeBucket()
                .orElseThrow(() -> new IllegalStateException(
                        "pipeline '" + stack.getDefinition().pipeline() + "' has no lake bucket"));
    }

    private static Table ledgerTable(PipelineStack stack) {
        return stack.getLedgerTable()
                .orElseThrow(() -> new IllegalStateException(
                        "pipeline '" + stack.getDefinition().pipeline() + "' has no lake ledger table"));
    }

    /** Refuses an object key IAM would read as a wildcard or a policy variable (widening the grant). */
    private void refuseSpecialCharacters(PipelineStack stack, String objectKey) {
        if (IAM_SPECIAL.matcher(objectKey).find()) {
            throw new IllegalArgumentException(
                    "pipeline '" + stack.getDefinition().pipeline() + "', stage '"
                            + stageName + "': reference object key '" + objectKey
                            + "' contains *, ? or $, which IAM resource ARNs cannot name literally; rename the object");
        }
    }

    /**
     * Everything a Lambda stage's role is granted besides its log group: its code's declarations
     * ({@link StageAccess}) and its event-source mapping's ({@link #eventSourceMappingAccess}), one
     * access per resource.
     */
    public static List<Access> access(PipelineDefinition definition, String stageName) {
        List<Access> all = new java.util.ArrayList<>(StageAccess.of(definition, stageName));
        all.addAll(eventSourceMappingAccess(definition.stage(stageName)));
        return Access.merge(all);
    }

    /**
     * What Lambda's event-source mapping does with the function's role (not the function's code): read
     * the input stream (Lambda's documented Kinesis permissions for a polling mapping), decrypt its
     * records, and send batches it gives up on to the stage's dead-letter queue (its on-failure
     * destination).
     */
    static List<Access> eventSourceMappingAccess(StageDefinition stage) {
        return Access.merge(List.of(
                Access.stream(stage.input(), EVENT_SOURCE_STREAM_ACTIONS.toArray(String[]::new)),
                Access.key("kinesis", "kms:Decrypt"),
                Access.queue(stage.failure().deadLetterQueue(), "sqs:SendMessage"),
                Access.key("sqs", "kms:GenerateDataKey", "kms:Decrypt")));
    }

    private LogGroup logGroup(PipelineStack stack, String name) {
        String arn = Stack.of(this)
                .formatArn(ArnComponents.builder()
                        .service("logs")
                        .resource("log-group")
                        .resourceName(name)
                        .arnFormat(ArnFormat.COLON_RESOURCE_NAME)
                        .build());
        // CloudWatch Logs may use the key for this log group only
        stack.getKey(PipelineKeys.Use.LOGS)
                .grant(
                        new ServicePrincipal("logs." + Stack.of(this).getRegion() + ".amazonaws.com")
                                .withConditions(Map.of("ArnEquals", Map.of("kms:EncryptionContext:aws:logs:arn", arn))),
                        LOGS_KEY_ACTIONS.toArray(String[]::new));
        // the log group refers to the key, so CloudFormation creates it after the key and its policy
        return LogGroup.Builder.create(this, "Logs")
                .logGroupName(name)
                .encryptionKey(stack.getKey(PipelineKeys.Use.LOGS))
                .retention(LOG_RETENTION)
                .build();
    }

    private static StartingPosition startingPosition(StageDefinition stage) {
        return switch (stage.batching().startingPosition()) {
            case TRIM_HORIZON -> StartingPosition.TRIM_HORIZON;
            case LATEST -> StartingPosition.LATEST;
            case AT_TIMESTAMP -> StartingPosition.AT_TIMESTAMP;
        };
    }

    /** The stage's name in the pipeline definition. */
    public String getStageName() {
        return stageName;
    }

    /** The function's role: no managed policy, exactly the declared grants and its log group. */
    public Role getRole() {
        return role;
    }

    /** The stage's function. */
    public Function getFunction() {
        return function;
    }

    /** The alias ({@value #ALIAS}) the event-source mapping invokes: the latest published version. */
    public Alias getAlias() {
        return alias;
    }

    /** The function's log group, {@code /sluice/<pipeline>/<stage>}, encrypted with the pipeline's logs key. */
    public LogGroup getLogGroup() {
        return logGroup;
    }

    /** The Kinesis event-source mapping feeding the function. */
    public EventSourceMapping getEventSource() {
        return eventSource;
    }

    /** The stage's dead-letter queue. */
    public Queue getDeadLetterQueue() {
        return deadLetterQueue;
    }
}
