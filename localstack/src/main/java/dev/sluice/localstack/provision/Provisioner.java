package dev.sluice.localstack.provision;

import dev.sluice.core.definition.ConsumerType;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.definition.QueueDefinition;
import dev.sluice.core.definition.StreamDefinition;
import dev.sluice.localstack.LocalAws;
import dev.sluice.localstack.ResourceNames;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.GlobalSecondaryIndex;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.Projection;
import software.amazon.awssdk.services.dynamodb.model.ProjectionType;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TableStatus;
import software.amazon.awssdk.services.kinesis.model.StreamMode;
import software.amazon.awssdk.services.kinesis.model.StreamStatus;
import software.amazon.awssdk.services.s3.model.BucketAlreadyOwnedByYouException;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * Creates a pipeline's resources in the local stack: streams, tables, the lake bucket and its commit
 * ledger table, queues, the lease table of each {@code consumer: kcl} stage, and the checkpoint table of the local event-source mappings. Creating what already exists is not an
 * error, so a definition can be provisioned again.
 */
public final class Provisioner {

    /** Logical name of the local event-source mappings' checkpoint table. */
    public static final String CHECKPOINT_TABLE = "sluice-esm-checkpoints";

    /** Partition key of a KCL lease table. */
    public static final String LEASE_KEY = "leaseKey";
    /** The lease owner attribute of a KCL lease table. */
    public static final String LEASE_OWNER = "leaseOwner";
    /** The GSI KCL 3 queries for one worker's leases. */
    public static final String LEASE_OWNER_INDEX = "LeaseOwnerToLeaseKeyIndex";

    private static final Logger LOG = LoggerFactory.getLogger(Provisioner.class);
    private static final Duration ACTIVE_TIMEOUT = Duration.ofSeconds(30);

    private final LocalAws aws;

    public Provisioner(LocalAws aws) {
        this.aws = aws;
    }

    /**
     * Provisions a pipeline.
     *
     * @param names makes physical names unique per test; {@code null} uses the logical names
     */
    public PipelineResources provision(PipelineDefinition pipeline, ResourceNames names) {
        Map<String, String> streams = new LinkedHashMap<>();
        pipeline.streams().forEach((logical, stream) -> {
            String name = physical(names, logical);
            createStream(name, stream);
            streams.put(logical, name);
        });
        Map<String, String> tables = new LinkedHashMap<>();
        pipeline.tables().forEach((logical, table) -> {
            String name = physical(names, logical);
            createTable(name, "pk");
            tables.put(logical, name);
        });
        String bucket = physical(names, "sluice-" + pipeline.pipeline() + "-lake");
        createBucket(bucket);
        String ledger = null;
        if (!pipeline.lakes().isEmpty()) {
            ledger = createTable(physical(names, ledgerTable(pipeline)), "pk");
        }
        Map<String, String> queues = new LinkedHashMap<>();
        pipeline.queues()
                .forEach((logical, queue) -> queues.put(logical, createQueue(physical(names, logical), queue)));
        pipeline.stages().forEach((stageName, stage) -> {
            if (stage.consumer() == ConsumerType.KCL) {
                createLeaseTable(physical(names, leaseTable(pipeline, stageName)));
            }
        });
        String checkpoints = physical(names, CHECKPOINT_TABLE);
        createTable(checkpoints, "lease");
        LOG.info(
                "provisioned pipeline {}: streams={} tables={} bucket={} ledger={} queues={}",
                pipeline.pipeline(),
                streams.values(),
                tables.values(),
                bucket,
                ledger,
                queues.keySet());
        return new PipelineResources(pipeline, streams, tables, bucket, queues, checkpoints, ledger);
    }

    /** Logical name of a pipeline's lake commit ledger table. */
    public static String ledgerTable(PipelineDefinition pipeline) {
        return "sluice-" + pipeline.pipeline() + "-lake-ledger";
    }

    /**
     * Logical name of a {@code consumer: kcl} stage's lease table (in AWS, CloudFormation names it;
     * infra-cdk's {@code KclStage} defines it).
     */
    public static String leaseTable(PipelineDefinition pipeline, String stage) {
        return "sluice-" + pipeline.pipeline() + "-" + stage + "-leases";
    }

    /** The physical name of a name provisioned with {@code names} ({@code null}: the logical name). */
    public static String physical(ResourceNames names, String logical) {
        return names == null ? logical : names.name(logical);
    }

    private void createStream(String name, StreamDefinition stream) {
        try {
            aws.kinesis().createStream(b -> {
                b.streamName(name);
                if (stream.onDemand()) {
                    b.streamModeDetails(m -> m.streamMode(StreamMode.ON_DEMAND));
                } else {
                    b.shardCount(stream.shards());
                }
            });
        } catch (software.amazon.awssdk.services.kinesis.model.ResourceInUseException exists) {
            LOG.debug("stream {} exists", name);
        }
        await(
                "stream " + name,
                () -> aws.kinesis()
                                .describeStreamSummary(b -> b.streamName(name))
                                .streamDescriptionSummary()
                                .streamStatus()
                        == StreamStatus.ACTIVE);
        if (stream.retentionHours() > 24) {
            aws.kinesis()
                    .increaseStreamRetentionPeriod(
                            b -> b.streamName(name).retentionPeriodHours(stream.retentionHours()));
        }
    }

    /**
     * Creates an on-demand table with a string hash key, unless it exists, and waits until it is
     * active.
     *
     * @return the table's name
     */
    public String createTable(String name, String hashKey) {
        try {
            aws.dynamoDb()
                    .createTable(b -> b.tableName(name)
                            .billingMode(BillingMode.PAY_PER_REQUEST)
                            .attributeDefinitions(AttributeDefinition.builder()
                                    .attributeName(hashKey)
                                    .attributeType(ScalarAttributeType.S)
                                    .build())
                            .keySchema(KeySchemaElement.builder()
                                    .attributeName(hashKey)
                                    .keyType(KeyType.HASH)
                                    .build()));
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

    /**
     * Creates a KCL lease table as infra-cdk's {@code KclStage} does, unless it exists: hash key
     * {@value #LEASE_KEY}, and the GSI {@value #LEASE_OWNER_INDEX} ({@value #LEASE_OWNER} hash,
     * {@value #LEASE_KEY} range, keys only) that KCL 3 would otherwise try to add with UpdateTable
     * (which dynalite cannot do). Waits until it is active.
     *
     * @return the table's name
     */
    public String createLeaseTable(String name) {
        try {
            aws.dynamoDb()
                    .createTable(b -> b.tableName(name)
                            .billingMode(BillingMode.PAY_PER_REQUEST)
                            .attributeDefinitions(
                                    AttributeDefinition.builder()
                                            .attributeName(LEASE_KEY)
                                            .attributeType(ScalarAttributeType.S)
                                            .build(),
                                    AttributeDefinition.builder()
                                            .attributeName(LEASE_OWNER)
                                            .attributeType(ScalarAttributeType.S)
                                            .build())
                            .keySchema(KeySchemaElement.builder()
                                    .attributeName(LEASE_KEY)
                                    .keyType(KeyType.HASH)
                                    .build())
                            .globalSecondaryIndexes(GlobalSecondaryIndex.builder()
                                    .indexName(LEASE_OWNER_INDEX)
                                    .keySchema(
                                            KeySchemaElement.builder()
                                                    .attributeName(LEASE_OWNER)
                                                    .keyType(KeyType.HASH)
                                                    .build(),
                                            KeySchemaElement.builder()
                                                    .attributeName(LEASE_KEY)
                                                    .keyType(KeyType.RANGE)
                                                    .build())
                                    .projection(Projection.builder()
                                            .projectionType(ProjectionType.KEYS_ONLY)
                                            .build())
                                    .build()));
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

    private String createQueue(String name, QueueDefinition queue) {
        long seconds = Duration.ofDays(queue.retentionDays()).toSeconds();
        return aws.sqs()
                .createQueue(b -> b.queueName(name)
                        .attributes(Map.of(QueueAttributeName.MESSAGE_RETENTION_PERIOD, Long.toString(seconds))))
                .queueUrl();
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
