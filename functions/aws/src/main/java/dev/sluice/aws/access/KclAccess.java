package dev.sluice.aws.access;

import java.util.List;

/**
 * What a KCL 3.5 worker of a {@code consumer: kcl} stage calls (functions/kcl's {@code KclWorker}:
 * polling retrieval, the lease table the stack provisions, metrics in the application's namespace),
 * read from KCL 3.5.1's source rather than guessed. Declared here, in sluice-aws, so that infra-cdk can
 * grant it without depending on the Quarkus application.
 *
 * <ul>
 *   <li>input stream: {@code DescribeStreamSummary} (stream start-up and shard detection), {@code
 *       ListShards} (shard sync), {@code GetShardIterator} and {@code GetRecords} (polling); records
 *       are decrypted with the streams key. Enhanced fan-out ({@code RegisterStreamConsumer}, {@code
 *       DescribeStreamConsumer}, {@code SubscribeToShard}) is not used: {@code sluice.kcl.retrieval}
 *       is {@code polling} in AWS;
 *   <li>lease table ({@code DynamoDBLeaseRefresher}, the coordinator state and worker metrics DAOs and
 *       the leader lock client, all on the lease table in KCL 3): {@code DescribeTable} (exists, GSI
 *       present — the stack created both, so no {@code CreateTable}/{@code UpdateTable}), {@code
 *       GetItem}, {@code PutItem}, {@code UpdateItem}, {@code DeleteItem}, {@code Scan}, {@code Query}
 *       and {@code Query} on {@code LeaseOwnerToLeaseKeyIndex};
 *   <li>{@code <application>-CoordinatorState} and {@code <application>-WorkerMetricStats}: the
 *       legacy-table check ({@code LegacyTableCoordinatorStateDAODelegate#initialize} and its worker
 *       metrics twin) calls {@code DescribeTable} and tolerates only {@code ResourceNotFoundException}:
 *       an {@code AccessDenied} stops the worker's initialisation. The tables do not exist, so nothing
 *       else is called on them ({@code TransactWriteItems} moves entries only out of an existing
 *       legacy table);
 *   <li>{@code cloudwatch:PutMetricData} in the application's namespace.
 * </ul>
 */
public final class KclAccess {

    /** The GSI KCL 3 queries for the leases of one worker. */
    public static final String LEASE_OWNER_INDEX = "LeaseOwnerToLeaseKeyIndex";

    /** KCL's legacy coordinator-state table: {@code <application>} + this suffix. */
    public static final String COORDINATOR_STATE_SUFFIX = "-CoordinatorState";

    /** KCL's legacy worker-metrics table: {@code <application>} + this suffix. */
    public static final String WORKER_METRIC_STATS_SUFFIX = "-WorkerMetricStats";

    private KclAccess() {}

    /** What the workers of the KCL application {@code application} call, reading {@code stream}. */
    public static List<Access> of(String stream, String application) {
        return Access.merge(List.of(
                Access.stream(
                        stream,
                        "kinesis:DescribeStreamSummary",
                        "kinesis:ListShards",
                        "kinesis:GetShardIterator",
                        "kinesis:GetRecords"),
                Access.key("kinesis", "kms:Decrypt"),
                Access.leaseTable(
                        "",
                        "dynamodb:DescribeTable",
                        "dynamodb:GetItem",
                        "dynamodb:PutItem",
                        "dynamodb:UpdateItem",
                        "dynamodb:DeleteItem",
                        "dynamodb:Scan",
                        "dynamodb:Query"),
                Access.leaseTable(LEASE_OWNER_INDEX, "dynamodb:Query"),
                DynamoDb.WRITE_KEY,
                Access.kclTable(COORDINATOR_STATE_SUFFIX, "dynamodb:DescribeTable"),
                Access.kclTable(WORKER_METRIC_STATS_SUFFIX, "dynamodb:DescribeTable"),
                Access.metrics(application)));
    }
}
