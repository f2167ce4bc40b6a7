package dev.sluice.emulators.iam;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.cbor.CBORFactory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Maps an HTTP request of an AWS SDK or CLI to the IAM authorizations AWS makes for it: Kinesis and
 * DynamoDB ({@code X-Amz-Target} + JSON or CBOR body), SQS (JSON or query protocol) and S3 (REST,
 * path-style). Resource ARNs are in AWS's format for the given region and account.
 */
public final class RequestMapper {

    static final ObjectMapper JSON = new ObjectMapper();
    static final ObjectMapper CBOR = new ObjectMapper(new CBORFactory());
    private static final Pattern DELETE_KEY = Pattern.compile("<Key>(.*?)</Key>", Pattern.DOTALL);

    private static final Set<String> KINESIS_WRITES = Set.of("PutRecord", "PutRecords");
    private static final Set<String> KINESIS_READS = Set.of("GetRecords", "SubscribeToShard");
    private static final Set<String> KINESIS_CONSUMER_OPS =
            Set.of("SubscribeToShard", "DescribeStreamConsumer", "DeregisterStreamConsumer");
    private static final Set<String> DYNAMODB_DATA = Set.of(
            "GetItem",
            "PutItem",
            "UpdateItem",
            "DeleteItem",
            "Query",
            "Scan",
            "BatchGetItem",
            "BatchWriteItem",
            "ConditionCheckItem");
    private static final Map<String, String> SQS_BATCH = Map.of(
            "SendMessageBatch", "SendMessage",
            "DeleteMessageBatch", "DeleteMessage",
            "ChangeMessageVisibilityBatch", "ChangeMessageVisibility");

    private final String region;
    private final String account;

    public RequestMapper(String region, String account) {
        this.region = region;
        this.account = account;
    }

    /**
     * The call a request makes.
     *
     * @param iteratorStreams the stream ARN of a Kinesis shard iterator the gate saw handed out (a
     *     GetRecords request names only its iterator), or null if unknown
     */
    public ServiceCall map(AwsService service, GateRequest request, UnaryOperator<String> iteratorStreams) {
        return switch (service) {
            case KINESIS -> kinesis(request, iteratorStreams);
            case DYNAMODB -> dynamoDb(request);
            case S3 -> s3(request);
            case SQS -> sqs(request);
            case SECRETS_MANAGER, KMS, CLOUDWATCH, LOGS ->
                throw new IllegalArgumentException("no access gate fronts " + service);
        };
    }

    // ---- JSON / CBOR bodies --------------------------------------------------------------------

    /** The body as a tree: CBOR when the content type says so, else JSON; an empty object otherwise. */
    static JsonNode body(GateRequest request) {
        if (request.body().length == 0) {
            return JSON.createObjectNode();
        }
        String type = request.header("content-type");
        try {
            if (type != null && type.contains("cbor")) {
                return CBOR.readTree(request.body());
            }
            JsonNode tree = JSON.readTree(request.body());
            return tree == null ? JSON.createObjectNode() : tree;
        } catch (IOException e) {
            return JSON.createObjectNode();
        }
    }

    static String operation(GateRequest request) {
        String target = request.header("x-amz-target");
        if (target == null) {
            return null;
        }
        int dot = target.lastIndexOf('.');
        return dot < 0 ? target : target.substring(dot + 1);
    }

    // ---- Kinesis -------------------------------------------------------------------------------

    private ServiceCall kinesis(GateRequest request, UnaryOperator<String> iteratorStreams) {
        String target = operation(request);
        String operation = target == null ? "Unknown" : target;
        JsonNode body = body(request);
        String action = AwsService.KINESIS.action(operation);
        KeyUse keyUse = KINESIS_WRITES.contains(operation)
                ? KeyUse.ENCRYPT
                : KINESIS_READS.contains(operation) ? KeyUse.DECRYPT : KeyUse.NONE;
        String resource;
        if (KINESIS_CONSUMER_OPS.contains(operation) && body.hasNonNull("ConsumerARN")) {
            resource = body.get("ConsumerARN").asText();
        } else if (KINESIS_CONSUMER_OPS.contains(operation)
                && body.hasNonNull("StreamARN")
                && body.hasNonNull("ConsumerName")) {
            // named by stream and name (KCL looks its consumer up so): still a consumer resource, as in
            // AWS; its creation timestamp, which the request does not carry, is left a wildcard
            resource = body.get("StreamARN").asText() + "/consumer/"
                    + body.get("ConsumerName").asText() + ":*";
        } else if (operation.equals("GetRecords")) {
            String iterator = body.path("ShardIterator").asText("");
            String stream = body.hasNonNull("StreamARN") ? body.get("StreamARN").asText() : null;
            resource = stream != null ? stream : iteratorStreams == null ? null : iteratorStreams.apply(iterator);
            if (resource == null) {
                resource = streamArn("*");
            }
        } else if (body.hasNonNull("StreamARN")) {
            resource = body.get("StreamARN").asText();
        } else if (body.hasNonNull("StreamName")) {
            resource = streamArn(body.get("StreamName").asText());
        } else if (operation.equals("RegisterStreamConsumer") || operation.equals("ListStreamConsumers")) {
            resource = body.path("StreamARN").asText(streamArn("*"));
        } else {
            resource = "*";
        }
        return new ServiceCall(AwsService.KINESIS, operation, List.of(AccessRequest.of(action, resource, keyUse)));
    }

    /** {@code arn:aws:kinesis:<region>:<account>:stream/<name>}. */
    public String streamArn(String name) {
        return "arn:aws:kinesis:" + region + ":" + account + ":stream/" + name;
    }

    // ---- DynamoDB ------------------------------------------------------------------------------

    private ServiceCall dynamoDb(GateRequest request) {
        String target = operation(request);
        String operation = target == null ? "Unknown" : target;
        JsonNode body = body(request);
        List<AccessRequest> requests = new ArrayList<>();
        KeyUse keyUse = DYNAMODB_DATA.contains(operation) ? KeyUse.DECRYPT : KeyUse.NONE;
        switch (operation) {
            case "BatchGetItem", "BatchWriteItem" ->
                body.path("RequestItems")
                        .fieldNames()
                        .forEachRemaining(table -> requests.add(
                                AccessRequest.of(AwsService.DYNAMODB.action(operation), tableArn(table), keyUse)));
            case "TransactWriteItems", "TransactGetItems" ->
                body.path("TransactItems")
                        .forEach(item -> item.fields().forEachRemaining(entry -> {
                            String kind = entry.getKey();
                            String action = switch (kind) {
                                case "Put" -> "PutItem";
                                case "Update" -> "UpdateItem";
                                case "Delete" -> "DeleteItem";
                                case "ConditionCheck" -> "ConditionCheckItem";
                                default -> "GetItem";
                            };
                            requests.add(AccessRequest.of(
                                    AwsService.DYNAMODB.action(action),
                                    tableArn(entry.getValue().path("TableName").asText()),
                                    KeyUse.DECRYPT));
                        }));
            default -> {
                String resource;
                if (body.hasNonNull("TableName")) {
                    resource = tableArn(body.get("TableName").asText());
                    if (body.hasNonNull("IndexName")) {
                        resource = resource + "/index/" + body.get("IndexName").asText();
                    }
                } else if (body.hasNonNull("ResourceArn")) {
                    resource = body.get("ResourceArn").asText();
                } else {
                    resource = "*";
                }
                requests.add(AccessRequest.of(AwsService.DYNAMODB.action(operation), resource, keyUse));
            }
        }
        return new ServiceCall(AwsService.DYNAMODB, operation, requests);
    }

    /** {@code arn:aws:dynamodb:<region>:<account>:table/<name>} (an ARN is kept as it is). */
    public String tableArn(String nameOrArn) {
        if (nameOrArn.startsWith("arn:")) {
            return nameOrArn;
        }
        return "arn:aws:dynamodb:" + region + ":" + account + ":table/" + nameOrArn;
    }

    // ---- SQS -----------------------------------------------------------------------------------

    /**
     * An SQS request's parameters: the JSON body's top-level values (the JSON protocol, {@code
     * X-Amz-Target}), or the query protocol's query string and form body.
     */
    static Map<String, String> sqsParameters(GateRequest request) {
        Map<String, String> parameters = new LinkedHashMap<>();
        if (operation(request) != null) {
            JsonNode body = body(request);
            body.fields().forEachRemaining(e -> {
                if (e.getValue().isValueNode()) {
                    parameters.put(e.getKey(), e.getValue().asText());
                }
            });
            return parameters;
        }
        parameters.putAll(GateRequest.form(request.rawQuery()));
        String type = request.header("content-type");
        if (request.body().length > 0 && (type == null || type.contains("x-www-form-urlencoded"))) {
            for (String pair : new String(request.body(), StandardCharsets.UTF_8).split("&")) {
                int eq = pair.indexOf('=');
                if (eq > 0) {
                    parameters.putIfAbsent(
                            GateRequest.decodeForm(pair.substring(0, eq)),
                            GateRequest.decodeForm(pair.substring(eq + 1)));
                }
            }
        }
        return parameters;
    }

    private ServiceCall sqs(GateRequest request) {
        String operation = operation(request);
        Map<String, String> parameters = sqsParameters(request);
        if (operation == null) {
            operation = parameters.getOrDefault("Action", "Unknown");
        }
        String queue = null;
        String url = parameters.get("QueueUrl");
        if (url != null) {
            queue = url.substring(url.lastIndexOf('/') + 1);
        } else if (parameters.containsKey("QueueName")) {
            queue = parameters.get("QueueName");
        } else {
            List<String> path = request.pathSegments();
            if (path.size() == 2 && !path.get(1).isEmpty()) {
                queue = path.get(1).substring(path.get(1).lastIndexOf('/') + 1);
            }
        }
        String action = AwsService.SQS.action(SQS_BATCH.getOrDefault(operation, operation));
        KeyUse keyUse = operation.startsWith("SendMessage")
                ? KeyUse.ENCRYPT
                : operation.equals("ReceiveMessage") ? KeyUse.DECRYPT : KeyUse.NONE;
        String resource = queue == null ? "*" : queueArn(queue);
        return new ServiceCall(AwsService.SQS, operation, List.of(AccessRequest.of(action, resource, keyUse)));
    }

    /** {@code arn:aws:sqs:<region>:<account>:<queue>}. */
    public String queueArn(String queue) {
        return "arn:aws:sqs:" + region + ":" + account + ":" + queue;
    }

    // ---- S3 ------------------------------------------------------------------------------------

    private ServiceCall s3(GateRequest request) {
        List<String> path = request.pathSegments();
        Map<String, String> query = request.query();
        String method = request.method().toUpperCase(Locale.ROOT);
        if (path.isEmpty()) {
            return s3Call("ListBuckets", AccessRequest.of("s3:ListAllMyBuckets", "*"));
        }
        String bucket = path.get(0);
        String bucketArn = "arn:aws:s3:::" + bucket;
        if (path.size() == 1 || path.get(1).isEmpty()) {
            return s3Bucket(request, method, query, bucketArn);
        }
        String key = path.get(1);
        String objectArn = bucketArn + "/" + key;
        Map<String, List<String>> context = sseContext(request);
        switch (method) {
            case "GET", "HEAD" -> {
                if (query.containsKey("uploadId")) {
                    return s3Call("ListParts", AccessRequest.of("s3:ListMultipartUploadParts", objectArn));
                }
                if (query.containsKey("tagging")) {
                    return s3Call("GetObjectTagging", AccessRequest.of("s3:GetObjectTagging", objectArn));
                }
                if (query.containsKey("acl")) {
                    return s3Call("GetObjectAcl", AccessRequest.of("s3:GetObjectAcl", objectArn));
                }
                boolean head = method.equals("HEAD");
                return s3Call(
                        head ? "HeadObject" : "GetObject",
                        AccessRequest.of("s3:GetObject", objectArn, head ? KeyUse.NONE : KeyUse.DECRYPT));
            }
            case "PUT" -> {
                if (query.containsKey("tagging")) {
                    return s3Call("PutObjectTagging", AccessRequest.of("s3:PutObjectTagging", objectArn));
                }
                if (query.containsKey("acl")) {
                    return s3Call("PutObjectAcl", AccessRequest.of("s3:PutObjectAcl", objectArn));
                }
                List<AccessRequest> requests = new ArrayList<>();
                requests.add(new AccessRequest("s3:PutObject", objectArn, context, KeyUse.ENCRYPT));
                String source = request.header("x-amz-copy-source");
                if (source != null) {
                    String decoded = GateRequest.decode(source.startsWith("/") ? source.substring(1) : source);
                    int version = decoded.indexOf("?versionId=");
                    if (version >= 0) {
                        decoded = decoded.substring(0, version);
                    }
                    requests.add(AccessRequest.of("s3:GetObject", "arn:aws:s3:::" + decoded, KeyUse.DECRYPT));
                }
                String operation = source != null
                        ? (query.containsKey("partNumber") ? "UploadPartCopy" : "CopyObject")
                        : (query.containsKey("partNumber") ? "UploadPart" : "PutObject");
                return new ServiceCall(AwsService.S3, operation, requests);
            }
            case "POST" -> {
                if (query.containsKey("uploads")) {
                    return s3Call(
                            "CreateMultipartUpload",
                            new AccessRequest("s3:PutObject", objectArn, context, KeyUse.ENCRYPT));
                }
                if (query.containsKey("uploadId")) {
                    return s3Call(
                            "CompleteMultipartUpload", AccessRequest.of("s3:PutObject", objectArn, KeyUse.ENCRYPT));
                }
                return s3Call("PostObject", AccessRequest.of("s3:PutObject", objectArn, KeyUse.ENCRYPT));
            }
            case "DELETE" -> {
                if (query.containsKey("uploadId")) {
                    return s3Call("AbortMultipartUpload", AccessRequest.of("s3:AbortMultipartUpload", objectArn));
                }
                if (query.containsKey("tagging")) {
                    return s3Call("DeleteObjectTagging", AccessRequest.of("s3:DeleteObjectTagging", objectArn));
                }
                return s3Call("DeleteObject", AccessRequest.of("s3:DeleteObject", objectArn));
            }
            default -> {
                return s3Call(method, AccessRequest.of("s3:" + method, objectArn));
            }
        }
    }

    private ServiceCall s3Bucket(GateRequest request, String method, Map<String, String> query, String bucketArn) {
        String sub = bucketSubresource(query);
        switch (method) {
            case "GET", "HEAD" -> {
                if (sub == null || method.equals("HEAD")) {
                    if (method.equals("HEAD")) {
                        return s3Call("HeadBucket", AccessRequest.of("s3:ListBucket", bucketArn));
                    }
                    Map<String, List<String>> context = new LinkedHashMap<>();
                    context.put("s3:prefix", List.of(query.getOrDefault("prefix", "")));
                    if (query.containsKey("delimiter")) {
                        context.put("s3:delimiter", List.of(query.get("delimiter")));
                    }
                    if (query.containsKey("max-keys")) {
                        context.put("s3:max-keys", List.of(query.get("max-keys")));
                    }
                    boolean v2 = "2".equals(query.get("list-type"));
                    return s3Call(
                            v2 ? "ListObjectsV2" : "ListObjects",
                            new AccessRequest("s3:ListBucket", bucketArn, context, KeyUse.NONE));
                }
                return switch (sub) {
                    case "location" -> s3Call("GetBucketLocation", AccessRequest.of("s3:GetBucketLocation", bucketArn));
                    case "uploads" ->
                        s3Call("ListMultipartUploads", AccessRequest.of("s3:ListBucketMultipartUploads", bucketArn));
                    case "versions" ->
                        s3Call("ListObjectVersions", AccessRequest.of("s3:ListBucketVersions", bucketArn));
                    case "encryption" ->
                        s3Call("GetBucketEncryption", AccessRequest.of("s3:GetEncryptionConfiguration", bucketArn));
                    case "lifecycle" ->
                        s3Call(
                                "GetBucketLifecycleConfiguration",
                                AccessRequest.of("s3:GetLifecycleConfiguration", bucketArn));
                    default ->
                        s3Call(
                                "GetBucket" + capitalize(sub),
                                AccessRequest.of("s3:GetBucket" + capitalize(sub), bucketArn));
                };
            }
            case "PUT" -> {
                if (sub == null) {
                    return s3Call("CreateBucket", AccessRequest.of("s3:CreateBucket", bucketArn));
                }
                return switch (sub) {
                    case "encryption" ->
                        s3Call("PutBucketEncryption", AccessRequest.of("s3:PutEncryptionConfiguration", bucketArn));
                    case "lifecycle" ->
                        s3Call(
                                "PutBucketLifecycleConfiguration",
                                AccessRequest.of("s3:PutLifecycleConfiguration", bucketArn));
                    default ->
                        s3Call(
                                "PutBucket" + capitalize(sub),
                                AccessRequest.of("s3:PutBucket" + capitalize(sub), bucketArn));
                };
            }
            case "DELETE" -> {
                if (sub == null) {
                    return s3Call("DeleteBucket", AccessRequest.of("s3:DeleteBucket", bucketArn));
                }
                return s3Call(
                        "DeleteBucket" + capitalize(sub),
                        AccessRequest.of("s3:PutBucket" + capitalize(sub), bucketArn));
            }
            case "POST" -> {
                if (query.containsKey("delete")) {
                    Set<String> keys = new LinkedHashSet<>();
                    Matcher matcher = DELETE_KEY.matcher(new String(request.body(), StandardCharsets.UTF_8));
                    while (matcher.find()) {
                        keys.add(matcher.group(1));
                    }
                    List<AccessRequest> requests = new ArrayList<>();
                    keys.forEach(k -> requests.add(AccessRequest.of("s3:DeleteObject", bucketArn + "/" + k)));
                    if (requests.isEmpty()) {
                        requests.add(AccessRequest.of("s3:DeleteObject", bucketArn + "/*"));
                    }
                    return new ServiceCall(AwsService.S3, "DeleteObjects", requests);
                }
                return s3Call("PostObject", AccessRequest.of("s3:PutObject", bucketArn + "/*"));
            }
            default -> {
                return s3Call(method, AccessRequest.of("s3:" + method, bucketArn));
            }
        }
    }

    private static String bucketSubresource(Map<String, String> query) {
        for (String name : List.of(
                "location",
                "uploads",
                "versions",
                "encryption",
                "lifecycle",
                "policy",
                "acl",
                "tagging",
                "versioning",
                "cors",
                "logging",
                "notification",
                "website",
                "replication",
                "ownershipControls",
                "publicAccessBlock",
                "object-lock")) {
            if (query.containsKey(name)) {
                return name;
            }
        }
        return null;
    }

    private static Map<String, List<String>> sseContext(GateRequest request) {
        Map<String, List<String>> context = new LinkedHashMap<>();
        String sse = request.header("x-amz-server-side-encryption");
        if (sse != null) {
            context.put("s3:x-amz-server-side-encryption", List.of(sse));
        }
        String key = request.header("x-amz-server-side-encryption-aws-kms-key-id");
        if (key != null) {
            context.put("s3:x-amz-server-side-encryption-aws-kms-key-id", List.of(key));
        }
        return context;
    }

    private static ServiceCall s3Call(String operation, AccessRequest request) {
        return new ServiceCall(AwsService.S3, operation, List.of(request));
    }

    private static String capitalize(String text) {
        if (text.isEmpty()) {
            return text;
        }
        String plain = text.replace("-", "");
        return Character.toUpperCase(plain.charAt(0)) + plain.substring(1);
    }
}
