package dev.sluice.cdk;

import dev.sluice.core.definition.Classification;
import dev.sluice.core.definition.ConsumerType;
import dev.sluice.core.definition.LakeDefinition;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.definition.QueueDefinition;
import dev.sluice.core.definition.StageDefinition;
import dev.sluice.core.definition.StepDefinition;
import dev.sluice.core.definition.StepType;
import dev.sluice.core.definition.StreamDefinition;
import dev.sluice.core.event.DeadLetter;
import dev.sluice.core.stage.StageChain;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import software.amazon.awscdk.Annotations;
import software.amazon.awscdk.Duration;
import software.amazon.awscdk.RemovalPolicy;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.Tags;
import software.amazon.awscdk.services.dynamodb.Attribute;
import software.amazon.awscdk.services.dynamodb.AttributeType;
import software.amazon.awscdk.services.dynamodb.BillingMode;
import software.amazon.awscdk.services.dynamodb.PointInTimeRecoverySpecification;
import software.amazon.awscdk.services.dynamodb.Table;
import software.amazon.awscdk.services.dynamodb.TableEncryption;
import software.amazon.awscdk.services.kinesis.Stream;
import software.amazon.awscdk.services.kinesis.StreamEncryption;
import software.amazon.awscdk.services.kinesis.StreamMode;
import software.amazon.awscdk.services.kms.Key;
import software.amazon.awscdk.services.lambda.Code;
import software.amazon.awscdk.services.s3.BlockPublicAccess;
import software.amazon.awscdk.services.s3.Bucket;
import software.amazon.awscdk.services.s3.BucketEncryption;
import software.amazon.awscdk.services.s3.LifecycleRule;
import software.amazon.awscdk.services.s3.ObjectOwnership;
import software.amazon.awscdk.services.secretsmanager.Secret;
import software.amazon.awscdk.services.secretsmanager.SecretStringGenerator;
import software.amazon.awscdk.services.sqs.Queue;
import software.amazon.awscdk.services.sqs.QueueEncryption;
import software.constructs.Construct;

/**
 * One pipeline's AWS resources, synthesized from its definition: customer-managed KMS keys (one per
 * kind of store, see {@link PipelineKeys}), the
 * Kinesis streams, DynamoDB serving tables, the S3 lake bucket and the lake's commit ledger table,
 * the SQS dead-letter queues, one
 * Secrets Manager secret per secret name its {@code mask} steps use, one Lambda function (with
 * its Kinesis event-source mapping) per {@code consumer: lambda} stage, and one {@link KclStage}
 * (Fargate service of KCL workers and its lease table, in the pipeline's {@link KclCluster}) per
 * {@code consumer: kcl} stage.
 *
 * <p>Every stage is deployed today; {@link #getSkippedStages()} lists stages that get no compute
 * (with the reason, also as an info annotation on the stack), should a consumer type ever not be
 * deployable. Stages run whatever their steps, {@code aggregate} included.
 *
 * <p>Every store is encrypted with the pipeline's key for its kind of store. Stage roles are granted
 * exactly their code's declarations ({@link StageGrants}); persona roles with the constructs' {@code
 * grant*} helpers ({@link Personas}); restricted data is also denied on the resource side ({@link
 * RestrictedData}). Construct ids derive from the logical names of the definition
 * ({@code payments-raw} → {@code StreamPaymentsRaw}); physical names are left to CloudFormation and
 * handed to the functions through {@link StageEnvironment}.
 */
public class PipelineStack extends Stack {

    /** The partition key attribute of every serving table; its value comes from the table's {@code key}. */
    public static final String TABLE_PARTITION_KEY = "pk";

    /** Days a deleted or overwritten lake object stays recoverable as a noncurrent version. */
    public static final int LAKE_NONCURRENT_VERSION_DAYS = 7;

    /** Days the lake bucket's server access logs are kept. */
    public static final int LAKE_ACCESS_LOG_DAYS = 365;

    /** Days before an unfinished multipart upload to the lake is aborted. */
    public static final int LAKE_ABORT_MULTIPART_DAYS = 1;

    /** Tag carrying the pipeline's name on every resource of the stack. */
    public static final String PIPELINE_TAG = "sluice:pipeline";

    /** Length of a generated secret: 64 letters and digits, about 380 random bits. */
    public static final int SECRET_LENGTH = 64;

    /** Tag carrying a stream's classification ({@code restricted}, {@code internal}, {@code public}). */
    public static final String CLASSIFICATION_TAG = "sluice:classification";

    private final PipelineDefinition definition;
    private final PipelineKeys keys;
    private final Map<String, Stream> streams = new LinkedHashMap<>();
    private final Map<String, Table> tables = new LinkedHashMap<>();
    private final Map<String, Queue> queues = new LinkedHashMap<>();
    private final Map<String, Secret> secrets = new LinkedHashMap<>();
    private final Map<String, LambdaStage> lambdaStages = new LinkedHashMap<>();
    private final Map<String, KclStage> kclStages = new LinkedHashMap<>();
    private final Map<String, String> skippedStages = new LinkedHashMap<>();
    private final Bucket lakeBucket;
    private final Table ledgerTable;
    private final Observability observability;
    private Bucket lakeAccessLogs;
    private final Personas personas;

    public PipelineStack(Construct scope, String id, PipelineStackProps props) {
        super(scope, id, props.stackProps());
        this.definition = props.definition();
        String pipeline = definition.pipeline();
        if (getTemplateOptions().getDescription() == null) {
            getTemplateOptions().setDescription(description(definition));
        }
        Tags.of(this).add(PIPELINE_TAG, pipeline);

        this.keys = new PipelineKeys(this, pipeline);

        definition.streams().forEach((name, stream) -> streams.put(name, stream(name, stream)));
        definition.tables().forEach((name, table) -> tables.put(name, table(name)));
        definition.queues().forEach((name, queue) -> queues.put(name, queue(name, queue)));
        streams.forEach((name, stream) -> ResourceMetadata.mark(stream, ResourceMetadata.KIND_STREAM, name));
        tables.forEach((name, table) -> ResourceMetadata.mark(table, ResourceMetadata.KIND_TABLE, name));
        queues.forEach((name, queue) -> ResourceMetadata.mark(queue, ResourceMetadata.KIND_QUEUE, name));
        // reference objects and dead-letter claim checks live in the lake bucket too, so a pipeline
        // with only those still gets one (every pipeline with a dead-letter queue does)
        boolean objectReferences = definition.references().values().stream().anyMatch(r -> r.object() != null);
        this.lakeBucket = definition.lakes().isEmpty()
                        && !objectReferences
                        && definition.queues().isEmpty()
                ? null
                : lakeBucket(definition.lakes());
        // the lake sink's per-shard commit ledger: one table for every lake of the pipeline
        this.ledgerTable =
                definition.lakes().isEmpty() ? null : keyedByPk("LakeLedger", LakeDefinition.LEDGER_EXPIRES_AT);
        secretNames(definition).forEach(name -> secrets.put(name, secret(name)));
        if (lakeBucket != null) {
            ResourceMetadata.mark(lakeBucket, ResourceMetadata.KIND_LAKE_BUCKET, pipeline);
            ResourceMetadata.mark(lakeAccessLogs, ResourceMetadata.KIND_LAKE_ACCESS_LOGS, pipeline);
        }
        if (ledgerTable != null) {
            ResourceMetadata.mark(ledgerTable, ResourceMetadata.KIND_LAKE_LEDGER, pipeline);
        }
        secrets.forEach((name, secret) -> ResourceMetadata.mark(secret, ResourceMetadata.KIND_SECRET, name));

        Code code = Code.fromAsset(props.lambdaArtifact().toString());
        definition.stages().forEach((name, stage) -> {
            String reason = skipReason(stage);
            if (reason == null && stage.consumer() == ConsumerType.KCL) {
                kclStages.put(name, new KclStage(this, name, stage));
            } else if (reason == null) {
                lambdaStages.put(name, new LambdaStage(this, name, stage, code));
            } else {
                skippedStages.put(name, reason);
                Annotations.of(this).addInfo("Sluice stage '" + name + "' is not deployed: " + reason);
            }
        });

        this.observability = new Observability(this);
        this.personas = new Personas(this); // one IAM role per persona of the access block
        RestrictedData.protect(this); // restricted streams, dead letters, secrets: denied on the resource side
        SmokeOutputs.declare(this); // persona role ARNs and physical names for ./sluice smoke --aws
    }

    /**
     * Why a stage gets no compute in this stack, or {@code null} when it gets its Lambda function or
     * KCL service: every consumer type is deployed today.
     */
    static String skipReason(StageDefinition stage) {
        return null;
    }

    /** The secret names the {@code mask} steps of every stage use (deployed or not), sorted. */
    static Set<String> secretNames(PipelineDefinition definition) {
        Set<String> names = new TreeSet<>();
        for (StageDefinition stage : definition.stages().values()) {
            for (StepDefinition step : stage.steps()) {
                if (step.type() == StepType.MASK) {
                    names.add(maskSecret(step));
                }
            }
        }
        return names;
    }

    /** The secret a {@code mask} step reads: its {@code secret} option, else {@link StageChain#DEFAULT_SECRET}. */
    static String maskSecret(StepDefinition mask) {
        String secret = mask.option("secret");
        return secret == null ? StageChain.DEFAULT_SECRET : secret;
    }

    private Stream stream(String name, StreamDefinition definition) {
        Stream.Builder builder = Stream.Builder.create(this, "Stream" + LogicalNames.pascal(name));
        if (definition.classification() == Classification.RESTRICTED) {
            // a known name, so that the streams key's policy can name the stream's ARN (its encryption
            // context) without referring to the stream, which refers to the key
            builder.streamName(restrictedStreamName(name));
        }
        builder.encryption(StreamEncryption.KMS)
                .encryptionKey(getKey(PipelineKeys.Use.STREAMS))
                .retentionPeriod(Duration.hours(definition.retentionHours()));
        if (definition.onDemand()) {
            builder.streamMode(StreamMode.ON_DEMAND);
        } else {
            builder.streamMode(StreamMode.PROVISIONED).shardCount(definition.shards());
        }
        Stream stream = builder.build();
        Tags.of(stream).add(CLASSIFICATION_TAG, definition.classification().yamlName());
        return stream;
    }

    /** The physical name of a restricted stream: {@code sluice-<pipeline>-<stream>}. */
    String restrictedStreamName(String name) {
        return SluiceApp.STACK_PREFIX + definition.pipeline() + "-" + name;
    }

    /** The ARN of a restricted stream, built from its name (no reference to the stream). */
    String restrictedStreamArn(String name) {
        return formatArn(software.amazon.awscdk.ArnComponents.builder()
                .service("kinesis")
                .resource("stream")
                .resourceName(restrictedStreamName(name))
                .arnFormat(software.amazon.awscdk.ArnFormat.SLASH_RESOURCE_NAME)
                .build());
    }

    private Table table(String name) {
        return keyedByPk("Table" + LogicalNames.pascal(name), null);
    }

    /**
     * An on-demand table keyed by {@value #TABLE_PARTITION_KEY}, encrypted with the pipeline's tables key, with PITR
     * and deletion protection (a delete fails until the protection is turned off), and a time-to-live
     * attribute when one is given ({@code null}: none).
     */
    private Table keyedByPk(String id, String timeToLiveAttribute) {
        return Table.Builder.create(this, id)
                .timeToLiveAttribute(timeToLiveAttribute)
                .partitionKey(Attribute.builder()
                        .name(TABLE_PARTITION_KEY)
                        .type(AttributeType.STRING)
                        .build())
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .encryption(TableEncryption.CUSTOMER_MANAGED)
                .encryptionKey(getKey(PipelineKeys.Use.TABLES))
                .pointInTimeRecoverySpecification(PointInTimeRecoverySpecification.builder()
                        .pointInTimeRecoveryEnabled(true)
                        .build())
                .deletionProtection(true)
                .build();
    }

    private Queue queue(String name, QueueDefinition definition) {
        QueueDefinition queue = definition == null ? new QueueDefinition(null) : definition;
        return Queue.Builder.create(this, "Queue" + LogicalNames.pascal(name))
                .encryption(QueueEncryption.KMS)
                .encryptionMasterKey(getKey(PipelineKeys.Use.DEAD_LETTERS))
                .retentionPeriod(Duration.days(queue.retentionDays()))
                .enforceSsl(true)
                .build();
    }

    private Bucket lakeBucket(Map<String, LakeDefinition> lakes) {
        lakes.forEach((name, lake) -> {
            if (lake.prefix().startsWith(DeadLetter.CLAIM_CHECK_ROOT)
                    || DeadLetter.CLAIM_CHECK_ROOT.startsWith(lake.prefix())) {
                throw new IllegalArgumentException("lake '" + name + "': prefix '" + lake.prefix()
                        + "' overlaps '" + DeadLetter.CLAIM_CHECK_ROOT
                        + "', where dead-letter claim checks (raw records) are kept");
            }
        });
        List<LifecycleRule> rules = new ArrayList<>();
        rules.add(LifecycleRule.builder()
                .id("abort-incomplete-multipart-uploads")
                .abortIncompleteMultipartUploadAfter(Duration.days(LAKE_ABORT_MULTIPART_DAYS))
                .build());
        lakes.forEach((name, lake) -> {
            LifecycleRule.Builder rule = LifecycleRule.builder()
                    .id("lake-" + name)
                    .prefix(lake.prefix())
                    .noncurrentVersionExpiration(Duration.days(LAKE_NONCURRENT_VERSION_DAYS));
            if (lake.retentionDays() != null) {
                rule.expiration(Duration.days(lake.retentionDays()));
            }
            rules.add(rule.build());
        });
        // dead-letter claim checks outlive their message by a day, then go
        definition
                .queues()
                .forEach((name, queue) -> rules.add(LifecycleRule.builder()
                        .id("dead-letters-" + name)
                        .prefix(DeadLetter.claimCheckPrefix(name))
                        .expiration(Duration.days(queue.retentionDays() + 1))
                        .noncurrentVersionExpiration(Duration.days(1))
                        .build()));
        // server access logs of the lake (S3 delivers them to SSE-S3 buckets only), kept a year
        this.lakeAccessLogs = Bucket.Builder.create(this, "LakeAccessLogs")
                .encryption(BucketEncryption.S3_MANAGED)
                .blockPublicAccess(BlockPublicAccess.BLOCK_ALL)
                // the CDK grants S3 log delivery through the LogDeliveryWrite ACL without the
                // serverAccessLogsUseBucketPolicy feature flag (none is set), which needs ObjectWriter
                .objectOwnership(ObjectOwnership.OBJECT_WRITER)
                .enforceSsl(true)
                .minimumTlsVersion(1.2)
                .lifecycleRules(List.of(LifecycleRule.builder()
                        .id("expire-access-logs")
                        .expiration(Duration.days(LAKE_ACCESS_LOG_DAYS))
                        .build()))
                .build();
        return Bucket.Builder.create(this, "LakeBucket")
                .serverAccessLogsBucket(lakeAccessLogs)
                .serverAccessLogsPrefix("lake/")
                .encryption(BucketEncryption.KMS)
                .encryptionKey(getKey(PipelineKeys.Use.LAKE))
                .bucketKeyEnabled(true)
                .blockPublicAccess(BlockPublicAccess.BLOCK_ALL)
                .objectOwnership(ObjectOwnership.BUCKET_OWNER_ENFORCED)
                .enforceSsl(true)
                .minimumTlsVersion(1.2)
                .versioned(true)
                .lifecycleRules(rules)
                .build();
    }

    /**
     * A secret generated by Secrets Manager at deployment (the template holds only the generator's
     * settings), encrypted with the pipeline's secrets key. Kept when the stack is deleted: tokens made with
     * a lost tokenization key can never be joined again.
     */
    private Secret secret(String name) {
        return Secret.Builder.create(this, "Secret" + LogicalNames.pascal(name))
                .description("Sluice pipeline " + definition.pipeline() + ": secret '" + name
                        + "' (mask steps), generated at deployment")
                .encryptionKey(getKey(PipelineKeys.Use.SECRETS))
                .generateSecretString(SecretStringGenerator.builder()
                        .passwordLength(SECRET_LENGTH)
                        .excludePunctuation(true)
                        .includeSpace(false)
                        .build())
                .removalPolicy(RemovalPolicy.RETAIN)
                .build();
    }

    private static String description(PipelineDefinition definition) {
        String text = "Sluice pipeline " + definition.pipeline()
                + (definition.description().isBlank() ? "" : ": " + definition.description());
        return text.length() <= 1024 ? text : text.substring(0, 1024);
    }

    /** The definition this stack was synthesized from. */
    public PipelineDefinition getDefinition() {
        return definition;
    }

    /** The pipeline's customer-managed key (rotation on) for this kind of store. */
    public Key getKey(PipelineKeys.Use use) {
        return keys.get(use);
    }

    /** The pipeline's customer-managed keys, one per kind of store, each pinned to its service. */
    public PipelineKeys getKeys() {
        return keys;
    }

    /** The Kinesis streams by logical name, in declaration order. */
    public Map<String, Stream> getStreams() {
        return Collections.unmodifiableMap(streams);
    }

    /** The stream with this logical name. */
    public Stream getStream(String logicalName) {
        return lookup(streams, logicalName, "stream");
    }

    /** The DynamoDB serving tables by logical name, in declaration order. */
    public Map<String, Table> getTables() {
        return Collections.unmodifiableMap(tables);
    }

    /** The table with this logical name. */
    public Table getTable(String logicalName) {
        return lookup(tables, logicalName, "table");
    }

    /** The SQS dead-letter queues by logical name, in declaration order. */
    public Map<String, Queue> getQueues() {
        return Collections.unmodifiableMap(queues);
    }

    /** The queue with this logical name. */
    public Queue getQueue(String logicalName) {
        return lookup(queues, logicalName, "queue");
    }

    /**
     * The bucket holding every lake prefix and reference object of the pipeline; empty when it
     * declares neither.
     */
    public Optional<Bucket> getLakeBucket() {
        return Optional.ofNullable(lakeBucket);
    }

    /** The bucket receiving the lake bucket's server access logs; empty when there is no lake bucket. */
    public Optional<Bucket> getLakeAccessLogsBucket() {
        return Optional.ofNullable(lakeAccessLogs);
    }

    /**
     * The lake sink's commit ledger ({@link dev.sluice.core.definition.EnvironmentNames#LEDGER_TABLE}):
     * per lake prefix, stream, shard and event hour, the last position committed to the lake and the
     * object being written. Empty when the pipeline has no lake.
     */
    public Optional<Table> getLedgerTable() {
        return Optional.ofNullable(ledgerTable);
    }

    /** The Secrets Manager secrets by secret name (as {@code mask} steps name them), sorted. */
    public Map<String, Secret> getSecrets() {
        return Collections.unmodifiableMap(secrets);
    }

    /** The secret with this name. */
    public Secret getSecret(String secretName) {
        return lookup(secrets, secretName, "secret");
    }

    /**
     * The stages that got no compute, by stage name in declaration order, each with the reason;
     * empty while every consumer type is deployed.
     */
    public Map<String, String> getSkippedStages() {
        return Collections.unmodifiableMap(skippedStages);
    }

    /** The persona roles generated from the definition's {@code access} block. */
    public Personas getPersonas() {
        return personas;
    }

    /** The deployed {@code consumer: lambda} stages by stage name, in declaration order. */
    public Map<String, LambdaStage> getLambdaStages() {
        return Collections.unmodifiableMap(lambdaStages);
    }

    /** The Lambda stage with this name. */
    public LambdaStage getLambdaStage(String stageName) {
        return lookup(lambdaStages, stageName, "lambda stage");
    }

    /** The deployed {@code consumer: kcl} stages by stage name, in declaration order. */
    public Map<String, KclStage> getKclStages() {
        return Collections.unmodifiableMap(kclStages);
    }

    /** The KCL stage with this name. */
    public KclStage getKclStage(String stageName) {
        return lookup(kclStages, stageName, "kcl stage");
    }

    /** The pipeline's dashboard, alarms and alarm topic. */
    public Observability getObservability() {
        return observability;
    }

    private <T> T lookup(Map<String, T> resources, String name, String kind) {
        return Objects.requireNonNull(
                resources.get(name),
                () -> "pipeline '" + definition.pipeline() + "' has no " + kind + " '" + name + "' (" + kind + "s: "
                        + resources.keySet() + ")");
    }
}
