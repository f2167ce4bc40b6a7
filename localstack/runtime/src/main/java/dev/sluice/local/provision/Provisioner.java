package dev.sluice.local.provision;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.cdk.ResourceMetadata;
import dev.sluice.core.definition.EnvironmentNames;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.definition.StartingPosition;
import dev.sluice.emulators.LocalAws;
import dev.sluice.emulators.ResourceNames;
import dev.sluice.local.esm.MappingConfig;
import dev.sluice.local.template.CloudFormationTemplate;
import dev.sluice.local.template.Intrinsics;
import dev.sluice.local.template.LocalResource;
import dev.sluice.local.template.PhysicalNames;
import dev.sluice.local.template.ResourceTypes;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.GlobalSecondaryIndex;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.Projection;
import software.amazon.awssdk.services.dynamodb.model.ProjectionType;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughput;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TableStatus;
import software.amazon.awssdk.services.kinesis.model.StreamMode;
import software.amazon.awssdk.services.kinesis.model.StreamStatus;
import software.amazon.awssdk.services.s3.model.BucketAlreadyOwnedByYouException;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * Provisions a pipeline in the local stack from its synthesized CloudFormation template (the CDK
 * app's {@code PipelineStack}, synthesized in this JVM): the template is the source of truth.
 *
 * <p>{@link #plan} walks the template's {@code Resources}: streams (shard count or on-demand,
 * retention; the encryption setting is recorded), tables (key schema, attribute definitions, GSIs,
 * billing mode), buckets, queues (retention, visibility, redrive), secrets (their values come from
 * the local provider, {@link dev.sluice.emulators.LocalSecrets}), Lambda functions (handler and
 * environment, every {@code Ref}/{@code Fn::GetAtt}/{@code Fn::Join}/{@code Fn::Sub} resolved to
 * local names, URLs and ARNs), their published versions and aliases, event-source mappings (to the
 * local runner's {@link MappingConfig}, with the template's knobs; a mapping on an alias or version
 * runs the function they resolve to, as Lambda resolves them) and KCL services (task definition and service, to a {@link
 * KclService}). Every other type must be AWS-only ({@link ResourceTypes}); anything else fails with
 * its type and logical id. {@link #provision} then creates what the plan holds, plus the local-only
 * checkpoint table of the local event-source mappings. Creating what the same stack already
 * created is not an error, so a pipeline can be provisioned again.
 *
 * <p>Local physical names are the names AWS gives ({@link PhysicalNames}, docs/local-iam.md has the
 * table): the template's explicit name where it has one, otherwise CloudFormation's generated
 * {@code <stack>-<logicalId>-<SUFFIX>}; a secret is {@code <logicalId>-<suffix>} and its ARN ends
 * in six characters of Secrets Manager's. The definitions' logical names map to them through {@link
 * PipelineResources}. With {@link ResourceNames} (tests sharing one local stack) the stack's name
 * and every explicit name carry the test's suffix. A name another stack created is refused, as
 * CloudFormation refuses it ({@code already exists}).
 */
public final class Provisioner {

    /** Logical name of the local event-source mappings' checkpoint table (local only, not in the template). */
    public static final String CHECKPOINT_TABLE = "sluice-esm-checkpoints";

    private static final Logger LOG = LoggerFactory.getLogger(Provisioner.class);
    private static final Duration ACTIVE_TIMEOUT = Duration.ofSeconds(30);
    private static final String REPORT_BATCH_ITEM_FAILURES = "ReportBatchItemFailures";
    private static final String LATEST = "$LATEST";

    /** Properties of an event-source mapping the local runner honours (anything else fails the plan). */
    static final Set<String> MAPPING_PROPERTIES = Set.of(
            "BatchSize",
            "BisectBatchOnFunctionError",
            "DestinationConfig",
            "Enabled",
            "EventSourceArn",
            "FunctionName",
            "FunctionResponseTypes",
            "MaximumBatchingWindowInSeconds",
            "MaximumRecordAgeInSeconds",
            "MaximumRetryAttempts",
            "ParallelizationFactor",
            "StartingPosition",
            "StartingPositionTimestamp",
            "Tags");

    private final LocalAws aws;

    public Provisioner(LocalAws aws) {
        this.aws = aws;
    }

    /**
     * What provisioning a template creates.
     *
     * @param resources the pipeline's local resources
     * @param streams the streams to create
     * @param tables the tables to create (the checkpoint table is added by {@link #provision})
     * @param buckets the buckets to create
     * @param queues the queues to create, dead-letter targets before the queues that redrive to them
     */
    public record Plan(
            PipelineResources resources,
            List<StreamSettings> streams,
            List<CreateTableRequest> tables,
            List<String> buckets,
            List<QueueSpec> queues) {}

    /**
     * A queue to create.
     *
     * @param name its local name
     * @param url the URL the plan resolved references to (checked against the created queue's)
     * @param attributes its attributes from the template
     */
    public record QueueSpec(String name, String url, Map<QueueAttributeName, String> attributes) {}

    /**
     * Provisions a pipeline from the template the CDK app synthesizes for it.
     *
     * @param names makes physical names unique per test; {@code null} uses the plain local names
     */
    public PipelineResources provision(PipelineDefinition pipeline, ResourceNames names) {
        long start = System.nanoTime();
        CloudFormationTemplate template = CloudFormationTemplate.synthesize(pipeline);
        LOG.info(
                "template of {} ready in {} ms (synthesized in this JVM, or cached)",
                template.stackName(),
                Duration.ofNanos(System.nanoTime() - start).toMillis());
        return provision(pipeline, template, names);
    }

    /** Provisions a pipeline from a given template of its stack. */
    public PipelineResources provision(
            PipelineDefinition pipeline, CloudFormationTemplate template, ResourceNames names) {
        String sqs = aws.sqsEndpoint().toString().replaceAll("/+$", "");
        Plan plan = plan(
                pipeline,
                template,
                names,
                aws.region().id(),
                aws.accountId(),
                queue -> sqs + "/" + aws.accountId() + "/" + queue);
        claim(template, names, plan);
        for (StreamSettings stream : plan.streams()) {
            createStream(stream);
        }
        for (CreateTableRequest table : plan.tables()) {
            createTable(table);
        }
        createTable(plan.resources().checkpointTable(), "lease");
        for (String bucket : plan.buckets()) {
            createBucket(bucket);
        }
        for (QueueSpec queue : plan.queues()) {
            String url = aws.sqs()
                    .createQueue(b -> b.queueName(queue.name()).attributes(queue.attributes()))
                    .queueUrl();
            if (!url.equals(queue.url())) {
                throw new IllegalStateException("queue " + queue.name() + " got URL " + url + ", but the plan resolved "
                        + queue.url() + " into the functions' environment");
            }
        }
        PipelineResources resources = plan.resources();
        LOG.info(
                "provisioned {} from its template: streams={} tables={} bucket={} ledger={} queues={} functions={}"
                        + " kcl services={}",
                resources.stackName(),
                resources.streams().values(),
                resources.tables().values(),
                resources.bucket(),
                resources.ledgerTable(),
                resources.queueUrls().keySet(),
                resources.functions().keySet(),
                resources.kclServices().keySet());
        return resources;
    }

    /**
     * Plans the local resources of a template without touching the emulators.
     *
     * @param names unique names per test, or {@code null}
     * @param region the local region
     * @param account the local account id
     * @param queueUrl the URL the local SQS gives a queue of this name
     * @throws IllegalStateException for a resource type neither provisioned nor AWS-only, a reference
     *     that cannot be resolved locally, or a setting the local runner cannot honour
     */
    public static Plan plan(
            PipelineDefinition pipeline,
            CloudFormationTemplate template,
            ResourceNames names,
            String region,
            String account,
            UnaryOperator<String> queueUrl) {
        ResourceTypes.check(template);
        return new Planner(pipeline, template, names, region, account, queueUrl).plan();
    }

    private static final class Planner {
        private final PipelineDefinition pipeline;
        private final CloudFormationTemplate template;
        private final ResourceNames names;
        private final String region;
        private final String account;
        private final UnaryOperator<String> queueUrl;
        private final Map<String, LocalResource> locals = new LinkedHashMap<>();
        private final Intrinsics intrinsics;
        /** The stack's name in the local stack (unique per test with {@link ResourceNames}). */
        private final String stack;

        private final Map<String, String> streams = new LinkedHashMap<>();
        private final Map<String, StreamSettings> streamSettings = new LinkedHashMap<>();
        private final Map<String, String> tables = new LinkedHashMap<>();
        private final Map<String, String> queueUrls = new LinkedHashMap<>();
        private final Map<String, String> secrets = new LinkedHashMap<>();
        private final Map<String, FunctionSpec> functions = new LinkedHashMap<>();
        /** Versions published per function name (the last number given). */
        private final Map<String, Integer> versions = new LinkedHashMap<>();
        /** {@code function:alias} → the version it points at. */
        private final Map<String, String> aliases = new LinkedHashMap<>();

        private final Map<String, MappingConfig> mappings = new LinkedHashMap<>();
        private final Map<String, KclService> kclServices = new LinkedHashMap<>();
        private final Map<String, String> kclByTaskDefinition = new LinkedHashMap<>();
        private final List<StreamSettings> streamsToCreate = new ArrayList<>();
        private final List<CreateTableRequest> tablesToCreate = new ArrayList<>();
        private final List<String> buckets = new ArrayList<>();
        private final List<QueueSpec> queues = new ArrayList<>();
        private String bucket;
        private String ledger;

        Planner(
                PipelineDefinition pipeline,
                CloudFormationTemplate template,
                ResourceNames names,
                String region,
                String account,
                UnaryOperator<String> queueUrl) {
            this.pipeline = pipeline;
            this.template = template;
            this.names = names;
            this.region = region;
            this.account = account;
            this.queueUrl = queueUrl;
            this.stack = names == null ? template.stackName() : names.name(template.stackName());
            this.intrinsics = new Intrinsics(template, locals, region, account);
        }

        Plan plan() {
            // first the data resources and their local names, ARNs and URLs, so that every later
            // reference (environment, mappings, redrive) resolves whatever the template's order
            for (CloudFormationTemplate.Resource resource : template.resources().values()) {
                switch (resource.type()) {
                    case "AWS::Kinesis::Stream" -> stream(resource);
                    case "AWS::DynamoDB::Table", "AWS::DynamoDB::GlobalTable" -> table(resource);
                    case "AWS::S3::Bucket" -> bucket(resource);
                    case "AWS::SQS::Queue" -> queueName(resource);
                    case "AWS::SecretsManager::Secret" -> secret(resource);
                    case "AWS::Lambda::Function" -> functionName(resource);
                    case "AWS::ECS::TaskDefinition" -> taskDefinitionName(resource);
                    default -> {
                        // compute (below) or AWS-only
                    }
                }
            }
            // versions name their function, aliases their version: in that order, after the functions
            for (CloudFormationTemplate.Resource resource : template.resources().values()) {
                if (resource.type().equals("AWS::Lambda::Version")) {
                    version(resource);
                }
            }
            for (CloudFormationTemplate.Resource resource : template.resources().values()) {
                if (resource.type().equals("AWS::Lambda::Alias")) {
                    alias(resource);
                }
            }
            List<QueueSpec> redriving = new ArrayList<>();
            for (CloudFormationTemplate.Resource resource : template.resources().values()) {
                switch (resource.type()) {
                    case "AWS::SQS::Queue" -> {
                        QueueSpec queue = queue(resource);
                        (queue.attributes().containsKey(QueueAttributeName.REDRIVE_POLICY) ? redriving : queues)
                                .add(queue);
                    }
                    case "AWS::Lambda::Function" -> function(resource);
                    case "AWS::ECS::TaskDefinition" -> taskDefinition(resource);
                    default -> {}
                }
            }
            queues.addAll(redriving);
            for (CloudFormationTemplate.Resource resource : template.resources().values()) {
                switch (resource.type()) {
                    case "AWS::Lambda::EventSourceMapping" -> mapping(resource);
                    case "AWS::ECS::Service" -> service(resource);
                    default -> {}
                }
            }
            PipelineResources resources = new PipelineResources(
                    pipeline,
                    template.stackName(),
                    streams,
                    tables,
                    bucket,
                    queueUrls,
                    physical(CHECKPOINT_TABLE),
                    ledger,
                    streamSettings,
                    secrets,
                    functions,
                    mappings,
                    kclServices,
                    locals);
            return new Plan(resources, streamsToCreate, tablesToCreate, buckets, queues);
        }

        private String physical(String base) {
            return names == null ? base : names.name(base);
        }

        /**
         * The local name of a resource: the template's explicit name (unique per test with {@link
         * ResourceNames}), else the name CloudFormation generates ({@link PhysicalNames}) from the
         * stack's name and the logical id.
         */
        private String named(CloudFormationTemplate.Resource resource, String property, int maxLength) {
            JsonNode explicit = resource.property(property);
            return explicit.isTextual()
                    ? physical(explicit.asText())
                    : PhysicalNames.generated(stack, resource.logicalId(), maxLength);
        }

        private String where(CloudFormationTemplate.Resource resource) {
            return template.stackName() + " " + resource.type() + " " + resource.logicalId();
        }

        private void stream(CloudFormationTemplate.Resource resource) {
            String name = named(resource, "Name", 128);
            String arn = "arn:aws:kinesis:" + region + ":" + account + ":stream/" + name;
            locals.put(resource.logicalId(), local(resource, name, name, Map.of("Arn", arn)));
            boolean onDemand = "ON_DEMAND"
                    .equals(resource.property("StreamModeDetails")
                            .path("StreamMode")
                            .asText());
            int shards = onDemand ? 0 : resource.property("ShardCount").asInt(1);
            int retention = resource.property("RetentionPeriodHours").asInt(24);
            String encryption =
                    resource.property("StreamEncryption").path("EncryptionType").asText("NONE");
            StreamSettings settings = new StreamSettings(name, onDemand, shards, retention, encryption);
            streamsToCreate.add(settings);
            if (ResourceMetadata.KIND_STREAM.equals(resource.kind().orElse(""))) {
                String logical = resource.name().orElseThrow();
                streams.put(logical, name);
                streamSettings.put(logical, settings);
            }
        }

        private void table(CloudFormationTemplate.Resource resource) {
            String name = named(resource, "TableName", 255);
            String arn = "arn:aws:dynamodb:" + region + ":" + account + ":table/" + name;
            locals.put(resource.logicalId(), local(resource, name, name, Map.of("Arn", arn)));
            tablesToCreate.add(createTableRequest(resource, name));
            switch (resource.kind().orElse("")) {
                case ResourceMetadata.KIND_TABLE -> tables.put(resource.name().orElseThrow(), name);
                case ResourceMetadata.KIND_LAKE_LEDGER -> ledger = name;
                default -> {}
            }
        }

        private CreateTableRequest createTableRequest(CloudFormationTemplate.Resource resource, String name) {
            String where = where(resource);
            if (!resource.property("LocalSecondaryIndexes").isMissingNode()) {
                throw new IllegalStateException(where + ": LocalSecondaryIndexes are not provisioned locally yet");
            }
            // AWS::DynamoDB::Table defaults to PROVISIONED, AWS::DynamoDB::GlobalTable to on-demand
            String billing = resource.property("BillingMode")
                    .asText(resource.type().equals("AWS::DynamoDB::Table") ? "PROVISIONED" : "PAY_PER_REQUEST");
            boolean onDemand = billing.equals("PAY_PER_REQUEST");
            CreateTableRequest.Builder request = CreateTableRequest.builder()
                    .tableName(name)
                    .attributeDefinitions(attributes(resource.property("AttributeDefinitions")))
                    .keySchema(keySchema(resource.property("KeySchema"), where))
                    .billingMode(onDemand ? BillingMode.PAY_PER_REQUEST : BillingMode.PROVISIONED);
            if (!onDemand) {
                request.provisionedThroughput(throughput(resource.property("ProvisionedThroughput"), where));
            }
            List<GlobalSecondaryIndex> indexes = new ArrayList<>();
            for (JsonNode index : resource.property("GlobalSecondaryIndexes")) {
                GlobalSecondaryIndex.Builder gsi = GlobalSecondaryIndex.builder()
                        .indexName(index.path("IndexName").asText())
                        .keySchema(keySchema(index.path("KeySchema"), where))
                        .projection(projection(index.path("Projection")));
                if (!onDemand) {
                    gsi.provisionedThroughput(throughput(index.path("ProvisionedThroughput"), where));
                }
                indexes.add(gsi.build());
            }
            if (!indexes.isEmpty()) {
                request.globalSecondaryIndexes(indexes);
            }
            return request.build();
        }

        private static List<AttributeDefinition> attributes(JsonNode definitions) {
            List<AttributeDefinition> out = new ArrayList<>();
            for (JsonNode definition : definitions) {
                out.add(AttributeDefinition.builder()
                        .attributeName(definition.path("AttributeName").asText())
                        .attributeType(ScalarAttributeType.fromValue(
                                definition.path("AttributeType").asText()))
                        .build());
            }
            return out;
        }

        private static List<KeySchemaElement> keySchema(JsonNode schema, String where) {
            if (!schema.isArray() || schema.isEmpty()) {
                throw new IllegalStateException(where + ": no KeySchema");
            }
            List<KeySchemaElement> out = new ArrayList<>();
            for (JsonNode key : schema) {
                out.add(KeySchemaElement.builder()
                        .attributeName(key.path("AttributeName").asText())
                        .keyType(KeyType.fromValue(key.path("KeyType").asText()))
                        .build());
            }
            return out;
        }

        private static Projection projection(JsonNode projection) {
            Projection.Builder out = Projection.builder()
                    .projectionType(ProjectionType.fromValue(
                            projection.path("ProjectionType").asText("ALL")));
            List<String> nonKey = new ArrayList<>();
            projection.path("NonKeyAttributes").forEach(a -> nonKey.add(a.asText()));
            if (!nonKey.isEmpty()) {
                out.nonKeyAttributes(nonKey);
            }
            return out.build();
        }

        private static ProvisionedThroughput throughput(JsonNode throughput, String where) {
            if (throughput.isMissingNode()) {
                throw new IllegalStateException(where + ": PROVISIONED billing without ProvisionedThroughput");
            }
            return ProvisionedThroughput.builder()
                    .readCapacityUnits(throughput.path("ReadCapacityUnits").asLong())
                    .writeCapacityUnits(throughput.path("WriteCapacityUnits").asLong())
                    .build();
        }

        private void bucket(CloudFormationTemplate.Resource resource) {
            String name = resource.property("BucketName").isTextual()
                    ? physical(resource.property("BucketName").asText())
                    : PhysicalNames.generatedLowerCase(stack, resource.logicalId(), 63);
            locals.put(resource.logicalId(), local(resource, name, name, Map.of("Arn", "arn:aws:s3:::" + name)));
            buckets.add(name);
            if (ResourceMetadata.KIND_LAKE_BUCKET.equals(resource.kind().orElse(""))) {
                bucket = name;
            }
        }

        private void queueName(CloudFormationTemplate.Resource resource) {
            boolean fifo = resource.property("FifoQueue").asBoolean(false);
            String name;
            if (resource.property("QueueName").isTextual()) {
                String base = resource.property("QueueName").asText();
                name = names == null
                        ? (fifo && !base.endsWith(".fifo") ? base + ".fifo" : base)
                        : (fifo ? names.fifoQueueName(base) : names.name(base));
            } else {
                // CloudFormation: 80 characters, a FIFO queue's ending in .fifo
                name = fifo
                        ? PhysicalNames.generated(stack, resource.logicalId(), 75) + ".fifo"
                        : PhysicalNames.generated(stack, resource.logicalId(), 80);
            }
            String url = queueUrl.apply(name);
            String arn = "arn:aws:sqs:" + region + ":" + account + ":" + name;
            locals.put(
                    resource.logicalId(),
                    local(resource, name, url, Map.of("Arn", arn, "QueueUrl", url, "QueueName", name)));
            if (ResourceMetadata.KIND_QUEUE.equals(resource.kind().orElse(""))) {
                queueUrls.put(resource.name().orElseThrow(), url);
            }
        }

        private QueueSpec queue(CloudFormationTemplate.Resource resource) {
            LocalResource local = locals.get(resource.logicalId());
            String where = where(resource);
            Map<QueueAttributeName, String> attributes = new LinkedHashMap<>();
            Map<String, QueueAttributeName> copied = Map.of(
                    "MessageRetentionPeriod", QueueAttributeName.MESSAGE_RETENTION_PERIOD,
                    "VisibilityTimeout", QueueAttributeName.VISIBILITY_TIMEOUT,
                    "DelaySeconds", QueueAttributeName.DELAY_SECONDS,
                    "MaximumMessageSize", QueueAttributeName.MAXIMUM_MESSAGE_SIZE,
                    "ReceiveMessageWaitTimeSeconds", QueueAttributeName.RECEIVE_MESSAGE_WAIT_TIME_SECONDS,
                    "FifoQueue", QueueAttributeName.FIFO_QUEUE,
                    "ContentBasedDeduplication", QueueAttributeName.CONTENT_BASED_DEDUPLICATION);
            copied.forEach((property, attribute) -> {
                JsonNode value = resource.property(property);
                if (!value.isMissingNode()) {
                    attributes.put(attribute, intrinsics.string(value, where + " " + property));
                }
            });
            JsonNode redrive = resource.property("RedrivePolicy");
            if (!redrive.isMissingNode()) {
                JsonNode resolved = intrinsics.resolve(redrive, where + " RedrivePolicy");
                attributes.put(
                        QueueAttributeName.REDRIVE_POLICY,
                        resolved.isTextual() ? resolved.asText() : resolved.toString());
            }
            return new QueueSpec(local.name(), local.ref(), attributes);
        }

        private void secret(CloudFormationTemplate.Resource resource) {
            String secret = resource.name().orElse(resource.logicalId());
            String name = resource.property("Name").isTextual()
                    ? physical(resource.property("Name").asText())
                    // CloudFormation names an unnamed secret after its logical id with a suffix of its own
                    : PhysicalNames.generatedSecret(stack, resource.logicalId());
            // Secrets Manager ends every secret's ARN with a hyphen and six characters of its own
            String arn = "arn:aws:secretsmanager:" + region + ":" + account + ":secret:" + name + "-"
                    + PhysicalNames.secretArnSuffix(stack + "/" + resource.logicalId() + "/" + name);
            locals.put(resource.logicalId(), local(resource, name, arn, Map.of("Id", arn)));
            secrets.put(secret, arn);
        }

        private String stage(CloudFormationTemplate.Resource resource, String kind, JsonNode environment) {
            if (kind.equals(resource.kind().orElse("")) && resource.name().isPresent()) {
                return resource.name().get();
            }
            JsonNode stage = environment.path(EnvironmentNames.STAGE);
            if (stage.isTextual()) {
                return stage.asText();
            }
            throw new IllegalStateException(where(resource) + ": not a Sluice stage (no " + ResourceMetadata.KIND + " "
                    + kind + " metadata, no " + EnvironmentNames.STAGE + " variable)");
        }

        private void functionName(CloudFormationTemplate.Resource resource) {
            String stage = stage(
                    resource,
                    ResourceMetadata.KIND_FUNCTION,
                    resource.property("Environment").path("Variables"));
            String name = named(resource, "FunctionName", 64);
            String arn = "arn:aws:lambda:" + region + ":" + account + ":function:" + name;
            locals.put(resource.logicalId(), local(resource, name, name, Map.of("Arn", arn)));
        }

        /**
         * A published version: Lambda numbers a function's versions 1, 2, ... in publication order
         * (here the template's); its {@code Ref} is the version's ARN, {@code Version} its number.
         */
        private void version(CloudFormationTemplate.Resource resource) {
            String where = where(resource);
            String function = intrinsics.string(resource.property("FunctionName"), where + " FunctionName");
            LocalResource owner = lambdaFunction(function)
                    .orElseThrow(() -> new IllegalStateException(
                            where + ": FunctionName " + function + " is no function of the template"));
            int number = versions.merge(owner.name(), 1, Integer::sum);
            String arn = owner.attributes().get("Arn") + ":" + number;
            locals.put(
                    resource.logicalId(),
                    local(
                            resource,
                            owner.name() + ":" + number,
                            arn,
                            Map.of("Version", Integer.toString(number), "FunctionArn", arn)));
        }

        /**
         * An alias: it names a function and one of its published versions, as Lambda requires ({@code
         * CreateAlias} refuses a version the function does not have); its {@code Ref} is the alias's
         * ARN.
         */
        private void alias(CloudFormationTemplate.Resource resource) {
            String where = where(resource);
            String function = intrinsics.string(resource.property("FunctionName"), where + " FunctionName");
            LocalResource owner = lambdaFunction(function)
                    .orElseThrow(() -> new IllegalStateException(
                            where + ": FunctionName " + function + " is no function of the template"));
            String version = intrinsics.string(resource.property("FunctionVersion"), where + " FunctionVersion");
            if (!version.equals(LATEST) && versionOf(owner, version) == null) {
                throw new IllegalStateException(where + ": version " + version + " of function " + owner.name()
                        + " is not published in the template (Lambda refuses an alias of a version that does not"
                        + " exist)");
            }
            String name = intrinsics.string(resource.property("Name"), where + " Name");
            String arn = owner.attributes().get("Arn") + ":" + name;
            locals.put(
                    resource.logicalId(),
                    local(resource, owner.name() + ":" + name, arn, Map.of("AliasArn", arn, "Version", version)));
            aliases.put(owner.name() + ":" + name, version);
        }

        /** The version {@code number} of a function as {@link #version} records it. */
        private LocalResource versionOf(LocalResource function, String number) {
            return locals.values().stream()
                    .filter(l ->
                            l.type().equals("AWS::Lambda::Version") && l.name().equals(function.name() + ":" + number))
                    .findFirst()
                    .orElse(null);
        }

        /** The template's function of this name or ARN (unqualified). */
        private java.util.Optional<LocalResource> lambdaFunction(String nameOrArn) {
            return locals.values().stream()
                    .filter(l -> l.type().equals("AWS::Lambda::Function")
                            && (l.name().equals(nameOrArn)
                                    || nameOrArn.equals(l.attributes().get("Arn"))))
                    .findFirst();
        }

        /**
         * The function an event-source mapping invokes, resolved as Lambda resolves its {@code
         * FunctionName}: a name, a partial ARN ({@code account:function:name}) or a full ARN, each
         * with an optional qualifier; an alias resolves to its version, a version to its function. A
         * function, alias or version the template does not have is refused, as Lambda refuses it.
         */
        private FunctionSpec target(String functionName, String where) {
            String unqualified = functionName;
            String qualifier = null;
            String[] parts = functionName.split(":", -1);
            if (functionName.startsWith("arn:")) {
                // arn:aws:lambda:region:account:function:name[:qualifier]
                if (parts.length < 7
                        || parts.length > 8
                        || !parts[2].equals("lambda")
                        || !parts[5].equals("function")) {
                    throw new IllegalStateException(
                            where + ": FunctionName " + functionName + " is no Lambda function ARN");
                }
                if (!parts[3].equals(region) || !parts[4].equals(account)) {
                    throw new IllegalStateException(where + ": FunctionName " + functionName
                            + " is in another region or account than the stack (" + region + ", " + account + ")");
                }
                unqualified = parts[6];
                qualifier = parts.length == 8 ? parts[7] : null;
            } else if (parts.length == 3 && parts[1].equals("function")) {
                unqualified = parts[2];
            } else if (parts.length == 4 && parts[1].equals("function")) {
                unqualified = parts[2];
                qualifier = parts[3];
            } else if (parts.length == 2) {
                unqualified = parts[0];
                qualifier = parts[1];
            } else if (parts.length != 1) {
                throw new IllegalStateException(where + ": FunctionName " + functionName + " is malformed");
            }
            String name = unqualified;
            FunctionSpec function = functions.values().stream()
                    .filter(f -> f.functionName().equals(name))
                    .findFirst()
                    .orElseThrow(() -> new IllegalStateException(
                            where + ": FunctionName " + functionName + " is no function of the template"));
            if (qualifier == null || qualifier.equals(LATEST)) {
                return function;
            }
            String version =
                    qualifier.chars().allMatch(Character::isDigit) ? qualifier : aliases.get(name + ":" + qualifier);
            if (version == null) {
                throw new IllegalStateException(where + ": FunctionName " + functionName + ": function " + name
                        + " has no alias " + qualifier + " in the template");
            }
            if (!version.equals(LATEST)
                    && locals.values().stream()
                            .noneMatch(l -> l.type().equals("AWS::Lambda::Version")
                                    && l.name().equals(name + ":" + version))) {
                throw new IllegalStateException(where + ": FunctionName " + functionName + ": function " + name
                        + " has no published version " + version + " in the template");
            }
            return function;
        }

        private void function(CloudFormationTemplate.Resource resource) {
            String where = where(resource);
            String stage = stage(
                    resource,
                    ResourceMetadata.KIND_FUNCTION,
                    resource.property("Environment").path("Variables"));
            String handler = resource.property("Handler").asText(null);
            if (handler == null) {
                throw new IllegalStateException(where + ": no Handler (the local runner loads the handler class)");
            }
            Map<String, String> environment = new LinkedHashMap<>();
            resource.property("Environment")
                    .path("Variables")
                    .fields()
                    .forEachRemaining(variable -> environment.put(
                            variable.getKey(),
                            intrinsics.string(variable.getValue(), where + " variable " + variable.getKey())));
            functions.put(
                    stage,
                    new FunctionSpec(
                            stage,
                            locals.get(resource.logicalId()).name(),
                            handler,
                            environment,
                            resource.property("Timeout").isNumber()
                                    ? java.time.Duration.ofSeconds(
                                            resource.property("Timeout").asLong())
                                    : FunctionSpec.DEFAULT_TIMEOUT));
        }

        private void mapping(CloudFormationTemplate.Resource resource) {
            String where = where(resource);
            resource.properties().fieldNames().forEachRemaining(property -> {
                if (!MAPPING_PROPERTIES.contains(property)) {
                    throw new IllegalStateException(where + ": the local event-source mapping does not support "
                            + property + " (it honours " + new java.util.TreeSet<>(MAPPING_PROPERTIES) + ")");
                }
            });
            FunctionSpec function =
                    target(intrinsics.string(resource.property("FunctionName"), where + " FunctionName"), where);
            String source = intrinsics.string(resource.property("EventSourceArn"), where + " EventSourceArn");
            String stream = kinesisStream(source, where);
            List<String> responseTypes = new ArrayList<>();
            resource.property("FunctionResponseTypes").forEach(t -> responseTypes.add(t.asText()));
            if (!responseTypes.contains(REPORT_BATCH_ITEM_FAILURES)) {
                throw new IllegalStateException(where + ": the local event-source mapping needs FunctionResponseTypes "
                        + REPORT_BATCH_ITEM_FAILURES + " (Sluice's handlers report partial batch failures)");
            }
            String onFailure = null;
            JsonNode destination =
                    resource.property("DestinationConfig").path("OnFailure").path("Destination");
            if (!destination.isMissingNode()) {
                String arn = intrinsics.string(destination, where + " DestinationConfig.OnFailure");
                onFailure = locals.values().stream()
                        .filter(l -> l.type().equals("AWS::SQS::Queue")
                                && arn.equals(l.attributes().get("Arn")))
                        .map(LocalResource::ref)
                        .findFirst()
                        .orElseThrow(() -> new IllegalStateException(
                                where + ": the on-failure destination " + arn + " is no queue of the template"));
            }
            StartingPosition position = StartingPosition.valueOf(
                    resource.property("StartingPosition").asText("TRIM_HORIZON"));
            JsonNode timestamp = resource.property("StartingPositionTimestamp");
            Instant startingTimestamp =
                    timestamp.isNumber() ? Instant.ofEpochMilli(Math.round(timestamp.asDouble() * 1000)) : null;
            int recordAge = resource.property("MaximumRecordAgeInSeconds").asInt(-1);
            MappingConfig config = new MappingConfig(
                    function.functionName(),
                    stream,
                    resource.property("BatchSize").asInt(100),
                    Duration.ofSeconds(
                            resource.property("MaximumBatchingWindowInSeconds").asInt(0)),
                    position,
                    startingTimestamp,
                    resource.property("MaximumRetryAttempts").asInt(-1),
                    recordAge < 0 ? null : Duration.ofSeconds(recordAge),
                    onFailure,
                    Duration.ofMillis(250),
                    resource.property("ParallelizationFactor").asInt(1),
                    resource.property("BisectBatchOnFunctionError").asBoolean(false));
            String id = "local-" + function.functionName();
            locals.put(resource.logicalId(), local(resource, id, id, Map.of("Id", id)));
            if (resource.property("Enabled").asBoolean(true)) {
                mappings.put(function.stage(), config);
            } else {
                LOG.info("{}: disabled in the template, not run locally", where);
            }
        }

        private String kinesisStream(String arn, String where) {
            int marker = arn.indexOf(":stream/");
            if (!arn.startsWith("arn:aws:kinesis:") || marker < 0) {
                throw new IllegalStateException(
                        where + ": the local event-source mapping reads Kinesis streams only, not " + arn);
            }
            String name = arn.substring(marker + ":stream/".length());
            if (locals.values().stream()
                    .noneMatch(l ->
                            l.type().equals("AWS::Kinesis::Stream") && l.name().equals(name))) {
                throw new IllegalStateException(where + ": the source stream " + arn + " is no stream of the template");
            }
            return name;
        }

        private void taskDefinitionName(CloudFormationTemplate.Resource resource) {
            String stage = stage(resource, ResourceMetadata.KIND_KCL_TASK_DEFINITION, containerEnvironment(resource));
            String arn = "arn:aws:ecs:" + region + ":" + account + ":task-definition/"
                    + (resource.property("Family").isTextual()
                            ? physical(resource.property("Family").asText())
                            // CloudFormation's family for an unnamed task definition: stack, logical id, suffix
                            : PhysicalNames.generated(stack, resource.logicalId(), 255)
                                    .replace("-", ""))
                    + ":1";
            locals.put(resource.logicalId(), local(resource, stage, arn, Map.of("TaskDefinitionArn", arn)));
        }

        /** The environment of the task's worker container (its only, or first essential, container), unresolved. */
        private JsonNode containerEnvironment(CloudFormationTemplate.Resource resource) {
            JsonNode container = worker(resource);
            com.fasterxml.jackson.databind.node.ObjectNode environment =
                    com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
            container
                    .path("Environment")
                    .forEach(v -> environment.set(v.path("Name").asText(), v.path("Value")));
            return environment;
        }

        private JsonNode worker(CloudFormationTemplate.Resource resource) {
            JsonNode containers = resource.property("ContainerDefinitions");
            if (!containers.isArray() || containers.isEmpty()) {
                throw new IllegalStateException(where(resource) + ": no ContainerDefinitions");
            }
            for (JsonNode container : containers) {
                if (container.path("Essential").asBoolean(true)) {
                    return container;
                }
            }
            return containers.get(0);
        }

        private void taskDefinition(CloudFormationTemplate.Resource resource) {
            String where = where(resource);
            String stage = locals.get(resource.logicalId()).name();
            Map<String, String> environment = new LinkedHashMap<>();
            containerEnvironment(resource)
                    .fields()
                    .forEachRemaining(variable -> environment.put(
                            variable.getKey(),
                            intrinsics.string(variable.getValue(), where + " variable " + variable.getKey())));
            String image = worker(resource).path("Image").asText("");
            kclServices.put(stage, new KclService(stage, image, 0, environment));
            kclByTaskDefinition.put(resource.logicalId(), stage);
        }

        private void service(CloudFormationTemplate.Resource resource) {
            String where = where(resource);
            JsonNode taskDefinition = resource.property("TaskDefinition");
            String id = taskDefinition.path("Ref").asText(null);
            String stage = id == null ? null : kclByTaskDefinition.get(id);
            if (stage == null) {
                throw new IllegalStateException(where + ": its TaskDefinition " + taskDefinition
                        + " is no KCL task definition of the template");
            }
            kclServices.put(
                    stage,
                    kclServices
                            .get(stage)
                            .withWorkers(resource.property("DesiredCount").asInt(1)));
            String arn = "arn:aws:ecs:" + region + ":" + account + ":service/" + named(resource, "ServiceName", 255);
            locals.put(resource.logicalId(), local(resource, stage, arn, Map.of("Name", stage, "ServiceArn", arn)));
        }

        private static LocalResource local(
                CloudFormationTemplate.Resource resource, String name, String ref, Map<String, String> attributes) {
            return new LocalResource(resource.logicalId(), resource.type(), name, ref, attributes);
        }
    }

    /** The property that names a resource of a type the local stack does not create. */
    private static final Map<String, String> NAME_PROPERTIES = Map.of(
            "AWS::IAM::Role", "RoleName",
            "AWS::IAM::ManagedPolicy", "ManagedPolicyName",
            "AWS::Logs::LogGroup", "LogGroupName",
            "AWS::CloudWatch::Alarm", "AlarmName",
            "AWS::CloudWatch::Dashboard", "DashboardName",
            "AWS::KMS::Alias", "AliasName",
            "AWS::SNS::Topic", "TopicName",
            "AWS::ECS::Cluster", "ClusterName");

    /** The stack that created each named resource of a local stack (type and name → stack). */
    private static final Map<LocalAws, Map<String, String>> OWNERS =
            java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());

    /**
     * Claims a plan's streams, tables, buckets and queues for its stack, as CloudFormation does: a
     * stack may provision its own resources again, but a name another stack's resource has is refused
     * ({@code Resource of type '...' with identifier '...' already exists}), never shared.
     */
    private void claim(CloudFormationTemplate template, ResourceNames names, Plan plan) {
        String stack = names == null ? template.stackName() : names.name(template.stackName());
        Map<String, String> wanted = new LinkedHashMap<>();
        plan.resources()
                .functions()
                .values()
                .forEach(f -> wanted.put("AWS::Lambda::Function " + f.functionName(), f.functionName()));
        // what the local stack does not create but names as the template does (roles, log groups,
        // alarms, dashboards, key aliases, ...): an explicit name is one stack's too
        template.resources().values().forEach(resource -> {
            String property = NAME_PROPERTIES.get(resource.type());
            if (property != null && resource.property(property).isTextual()) {
                String name = resource.property(property).asText();
                // per test ({@link ResourceNames}) the test's suffix keeps them apart, as accounts would
                String local = names == null ? name : name + "-" + names.suffix();
                wanted.put(resource.type() + " " + local, local);
            }
        });
        plan.streams().forEach(s -> wanted.put("AWS::Kinesis::Stream " + s.name(), s.name()));
        plan.tables().forEach(t -> wanted.put("AWS::DynamoDB::Table " + t.tableName(), t.tableName()));
        plan.buckets().forEach(b -> wanted.put("AWS::S3::Bucket " + b, b));
        plan.queues().forEach(q -> wanted.put("AWS::SQS::Queue " + q.name(), q.name()));
        plan.resources().secrets().values().forEach(arn -> wanted.put("AWS::SecretsManager::Secret " + arn, arn));
        Map<String, String> owners = OWNERS.computeIfAbsent(aws, a -> new LinkedHashMap<>());
        synchronized (owners) {
            for (Map.Entry<String, String> resource : wanted.entrySet()) {
                String owner = owners.get(resource.getKey());
                if (owner != null && !owner.equals(stack)) {
                    String type =
                            resource.getKey().substring(0, resource.getKey().indexOf(' '));
                    throw new IllegalStateException(stack + ": Resource of type '" + type + "' with identifier '"
                            + resource.getValue() + "' already exists (stack " + owner
                            + " created it; name it differently in one of the two pipelines)");
                }
            }
            wanted.keySet().forEach(key -> owners.put(key, stack));
        }
    }

    private void createStream(StreamSettings stream) {
        try {
            aws.kinesis().createStream(b -> {
                b.streamName(stream.name());
                if (stream.onDemand()) {
                    b.streamModeDetails(m -> m.streamMode(StreamMode.ON_DEMAND));
                } else {
                    b.shardCount(stream.shards());
                }
            });
        } catch (software.amazon.awssdk.services.kinesis.model.ResourceInUseException exists) {
            LOG.debug("stream {} exists", stream.name());
        }
        await(
                "stream " + stream.name(),
                () -> aws.kinesis()
                                .describeStreamSummary(b -> b.streamName(stream.name()))
                                .streamDescriptionSummary()
                                .streamStatus()
                        == StreamStatus.ACTIVE);
        if (stream.retentionHours() > 24) {
            aws.kinesis()
                    .increaseStreamRetentionPeriod(
                            b -> b.streamName(stream.name()).retentionPeriodHours(stream.retentionHours()));
        }
    }

    /**
     * Creates an on-demand table with a string hash key, unless it exists, and waits until it is
     * active (tests' own tables; the checkpoint table).
     *
     * @return the table's name
     */
    public String createTable(String name, String hashKey) {
        return createTable(CreateTableRequest.builder()
                .tableName(name)
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .attributeDefinitions(AttributeDefinition.builder()
                        .attributeName(hashKey)
                        .attributeType(ScalarAttributeType.S)
                        .build())
                .keySchema(KeySchemaElement.builder()
                        .attributeName(hashKey)
                        .keyType(KeyType.HASH)
                        .build())
                .build());
    }

    private String createTable(CreateTableRequest request) {
        String name = request.tableName();
        try {
            aws.dynamoDb().createTable(request);
        } catch (ResourceInUseException exists) {
            LOG.debug("table {} exists", name);
        }
        await(
                "table " + name,
                () -> aws.dynamoDb()
                                .describeTable(b -> b.tableName(name))
                                .table()
                                .tableStatus()
                        == TableStatus.ACTIVE);
        return name;
    }

    private void createBucket(String name) {
        try {
            aws.s3().createBucket(b -> b.bucket(name));
        } catch (BucketAlreadyOwnedByYouException exists) {
            LOG.debug("bucket {} exists", name);
        }
    }

    private static void await(String what, java.util.function.BooleanSupplier ready) {
        Instant deadline = Instant.now().plus(ACTIVE_TIMEOUT);
        while (!ready.getAsBoolean()) {
            if (Instant.now().isAfter(deadline)) {
                throw new IllegalStateException(what + " did not become ACTIVE within " + ACTIVE_TIMEOUT);
            }
            java.util.concurrent.locks.LockSupport.parkNanos(
                    Duration.ofMillis(50).toNanos());
        }
    }
}
