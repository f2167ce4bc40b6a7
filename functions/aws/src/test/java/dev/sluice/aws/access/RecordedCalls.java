package dev.sluice.aws.access;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;

/**
 * Records every SDK operation made through the clients it is registered on (an {@link
 * ExecutionInterceptor}: every attempt, failed ones included), and checks each against {@link Access}
 * declarations: its IAM action ({@link #ACTIONS}) must be declared on the resource it names.
 */
public final class RecordedCalls implements ExecutionInterceptor {

    /** One SDK call: service, operation and the resource fields of its request. */
    public record Call(String service, String operation, String resource, String key, String prefix) {
        @Override
        public String toString() {
            return service + ":" + operation + " " + resource + (key == null ? "" : "/" + key)
                    + (prefix == null ? "" : " prefix=" + prefix);
        }
    }

    /**
     * The IAM action that authorizes each SDK operation, from the IAM Service Authorization
     * Reference ("Actions defined by Amazon DynamoDB / Amazon S3 / Amazon Kinesis / Amazon SQS / AWS
     * Secrets Manager"): most operations are authorized by the action of the same name; S3's
     * HeadObject by {@code s3:GetObject}, ListObjectsV2 by {@code s3:ListBucket}, multipart parts by
     * {@code s3:PutObject}; SQS's batch operations by their single-message action. An operation not in
     * this table fails the check: add it from the reference, never by guessing.
     */
    public static final Map<String, String> ACTIONS = actions();

    private static Map<String, String> actions() {
        Map<String, String> out = new LinkedHashMap<>();
        for (String op : List.of(
                "PutItem",
                "GetItem",
                "UpdateItem",
                "DeleteItem",
                "Scan",
                "Query",
                "DescribeTable",
                "BatchGetItem",
                "BatchWriteItem")) {
            out.put("dynamodb:" + op, "dynamodb:" + op);
        }
        for (String op : List.of(
                "PutRecords",
                "PutRecord",
                "ListShards",
                "GetRecords",
                "GetShardIterator",
                "DescribeStreamSummary",
                "DescribeStream")) {
            out.put("kinesis:" + op, "kinesis:" + op);
        }
        out.put("s3:PutObject", "s3:PutObject");
        out.put("s3:GetObject", "s3:GetObject");
        out.put("s3:HeadObject", "s3:GetObject");
        out.put("s3:ListObjectsV2", "s3:ListBucket");
        out.put("s3:ListObjects", "s3:ListBucket");
        out.put("s3:CreateMultipartUpload", "s3:PutObject");
        out.put("s3:UploadPart", "s3:PutObject");
        out.put("s3:CompleteMultipartUpload", "s3:PutObject");
        out.put("s3:AbortMultipartUpload", "s3:AbortMultipartUpload");
        out.put("s3:DeleteObject", "s3:DeleteObject");
        out.put("sqs:SendMessage", "sqs:SendMessage");
        out.put("sqs:SendMessageBatch", "sqs:SendMessage");
        out.put("sqs:ReceiveMessage", "sqs:ReceiveMessage");
        out.put("sqs:DeleteMessage", "sqs:DeleteMessage");
        out.put("sqs:DeleteMessageBatch", "sqs:DeleteMessage");
        out.put("secretsmanager:GetSecretValue", "secretsmanager:GetSecretValue");
        return Collections.unmodifiableMap(out);
    }

    private final List<Call> calls = Collections.synchronizedList(new ArrayList<>());

    @Override
    public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
        SdkRequest request = context.request();
        String service =
                attributes.getAttribute(SdkExecutionAttribute.SERVICE_NAME).toLowerCase(Locale.ROOT);
        String operation = attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME);
        String resource = field(request, "TableName")
                .or(() -> field(request, "StreamName"))
                .or(() -> field(request, "StreamARN"))
                .or(() -> field(request, "QueueUrl"))
                .or(() -> field(request, "Bucket"))
                .or(() -> field(request, "SecretId"))
                .orElse("");
        calls.add(new Call(
                service,
                operation,
                resource,
                field(request, "Key").orElse(null),
                field(request, "Prefix").orElse(null)));
    }

    private static Optional<String> field(SdkRequest request, String name) {
        try {
            return request.getValueForField(name, String.class);
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    /** The calls recorded so far. */
    public List<Call> calls() {
        synchronized (calls) {
            return List.copyOf(calls);
        }
    }

    /** Forgets the calls recorded so far. */
    public void clear() {
        calls.clear();
    }

    /**
     * The recorded calls no declaration covers, each with the reason: no IAM action known for the
     * operation, a resource the test did not bind, or an action not declared on that resource.
     *
     * @param declared the component's declarations
     * @param bindings physical resource (table name, stream name, queue URL, bucket, secret id) → the
     *     declared resource it is (target and logical name; the scope is ignored)
     */
    public List<String> undeclared(List<Access> declared, Map<String, Access> bindings) {
        List<String> out = new ArrayList<>();
        for (Call call : calls()) {
            String action = ACTIONS.get(call.service() + ":" + call.operation());
            if (action == null) {
                out.add(call + ": no IAM action known for this operation");
                continue;
            }
            Access bound = bindings.get(call.resource());
            if (bound == null) {
                out.add(call + ": resource not bound by the test");
                continue;
            }
            boolean covered = declared.stream().anyMatch(access -> covers(access, bound, call, action));
            if (!covered) {
                out.add(call + ": " + action + " is not declared on " + bound.target() + " " + bound.name());
            }
        }
        return out.stream().distinct().toList();
    }

    private static boolean covers(Access access, Access bound, Call call, String action) {
        if (!access.actions().contains(action)) {
            return false;
        }
        if (bound.target() == Access.Target.OBJECTS || bound.target() == Access.Target.BUCKET) {
            // the bucket: an object call must fall under a declared key pattern, a listing under a declared prefix
            if (call.key() != null) {
                return access.target() == Access.Target.OBJECTS && matches(access.scope(), call.key());
            }
            return access.target() == Access.Target.BUCKET
                    && call.prefix() != null
                    && call.prefix().startsWith(access.scope());
        }
        return access.target() == bound.target() && access.name().equals(bound.name());
    }

    /** An IAM-style resource pattern: a trailing {@code *} matches any suffix, else the key exactly. */
    private static boolean matches(String pattern, String key) {
        return pattern.endsWith("*") ? key.startsWith(pattern.substring(0, pattern.length() - 1)) : key.equals(pattern);
    }
}
