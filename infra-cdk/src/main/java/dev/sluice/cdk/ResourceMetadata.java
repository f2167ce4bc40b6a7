package dev.sluice.cdk;

import software.amazon.awscdk.CfnResource;
import software.constructs.IConstruct;

/**
 * CloudFormation {@code Metadata} that ties a template resource back to the pipeline definition:
 * {@value #KIND} says what the resource is to Sluice and {@value #NAME} the definition's name for it
 * (a stream's, table's or queue's logical name, a secret's name, a stage's name). The local stack
 * ({@code localstack/}) provisions itself from the synthesized template and finds resources by
 * these entries instead of guessing from logical ids. CloudFormation ignores them.
 */
public final class ResourceMetadata {

    /** Metadata key: what the resource is to Sluice (one of the {@code KIND_*} values). */
    public static final String KIND = "sluice:kind";

    /** Metadata key: the definition's name of the resource (logical name, secret name or stage). */
    public static final String NAME = "sluice:name";

    /** A Kinesis stream of the definition's {@code streams}; name: its logical name. */
    public static final String KIND_STREAM = "stream";
    /** A DynamoDB table of the definition's {@code tables}; name: its logical name. */
    public static final String KIND_TABLE = "table";
    /** The lake's commit ledger table; name: the pipeline. */
    public static final String KIND_LAKE_LEDGER = "lake-ledger";
    /** The lake bucket; name: the pipeline. */
    public static final String KIND_LAKE_BUCKET = "lake-bucket";
    /** The lake bucket's server access log bucket; name: the pipeline. */
    public static final String KIND_LAKE_ACCESS_LOGS = "lake-access-logs";
    /** An SQS queue of the definition's {@code queues}; name: its logical name. */
    public static final String KIND_QUEUE = "queue";
    /** A Secrets Manager secret of the {@code mask} steps; name: the secret's name. */
    public static final String KIND_SECRET = "secret";
    /** The Lambda function of a {@code consumer: lambda} stage; name: the stage. */
    public static final String KIND_FUNCTION = "function";
    /** The Kinesis event-source mapping of a {@code consumer: lambda} stage; name: the stage. */
    public static final String KIND_EVENT_SOURCE_MAPPING = "event-source-mapping";
    /** The KCL lease table of a {@code consumer: kcl} stage; name: the stage. */
    public static final String KIND_KCL_LEASE_TABLE = "kcl-lease-table";
    /** The worker task definition of a {@code consumer: kcl} stage; name: the stage. */
    public static final String KIND_KCL_TASK_DEFINITION = "kcl-task-definition";
    /** The Fargate service of a {@code consumer: kcl} stage; name: the stage. */
    public static final String KIND_KCL_SERVICE = "kcl-service";

    private ResourceMetadata() {}

    /** Marks the CloudFormation resource behind {@code construct} (itself or its default child). */
    static void mark(IConstruct construct, String kind, String name) {
        CfnResource resource = construct instanceof CfnResource cfn
                ? cfn
                : (CfnResource) construct.getNode().getDefaultChild();
        if (resource == null) {
            throw new IllegalStateException(
                    "construct " + construct.getNode().getPath() + " has no CloudFormation resource");
        }
        resource.addMetadata(KIND, kind);
        resource.addMetadata(NAME, name);
    }
}
