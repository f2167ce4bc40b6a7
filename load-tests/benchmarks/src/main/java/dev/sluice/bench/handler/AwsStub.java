package dev.sluice.bench.handler;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.sluice.aws.kpl.ShardMap;
import dev.sluice.aws.priming.LoopbackAws;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Predicate;

/**
 * A loopback stand-in for the AWS APIs a Lambda stage calls, answering each call as AWS does —
 * status, headers, body shape — from in-memory state, on {@code 127.0.0.1} ({@code
 * com.sun.net.httpserver}, no emulator, no gate, no IAM): DynamoDB ({@code PutItem}, {@code
 * GetItem}, {@code UpdateItem}, {@code BatchWriteItem}; JSON 1.0, conditions evaluated on the stored
 * item and a failure answered {@code 400 ConditionalCheckFailedException}), S3 ({@code PutObject}
 * with {@code If-None-Match: *} → {@code 412 PreconditionFailed}, {@code GetObject}, {@code
 * HeadObject} → 404 without a body, {@code ListObjectsV2}; path-style, aws-chunked bodies decoded,
 * an MD5 {@code ETag}), SQS ({@code SendMessage}, {@code SendMessageBatch}; the JSON protocol the SDK
 * speaks, with the MD5 digests of body and attributes the SDK checks), Kinesis ({@code PutRecords}
 * and {@code ListShards}, in CBOR — the SDK Kinesis client's default — or JSON, whichever the request
 * used ({@link LoopbackAws#protocolMapper}); a stream's shards split the hash-key space evenly, as
 * {@code CreateStream} does ({@link #shards}, one unless set), and each record goes to the shard its
 * explicit hash key or partition key's MD5 falls in, with that shard's next sequence number) and
 * Secrets Manager ({@code GetSecretValue}). Signatures are not checked. Anything else is answered {@code 400
 * UnknownOperationException}, so that a handler calling what the stub does not know fails instead of
 * being measured against a lie.
 *
 * <p>It counts every request by service and operation ({@link #requests()}), can delay each answer
 * ({@link #latency}) so that concurrent calls overlap visibly in a call graph, and serves on its own
 * threads, named {@value #THREAD_PREFIX}…, plus the JDK server's dispatcher ({@value #DISPATCHER}),
 * so that a harness can leave their CPU time out.
 */
public final class AwsStub implements AutoCloseable {

    /** The stub's worker threads' name prefix. */
    public static final String THREAD_PREFIX = "aws-stub-";

    /** The JDK HTTP server's dispatcher thread. */
    public static final String DISPATCHER = "HTTP-Dispatcher";

    /** The account the stub answers for. */
    public static final String ACCOUNT = "123456789012";
    /** The region the stub answers for. */
    public static final String REGION = "eu-west-1";

    private static final String DDB_ERROR = "com.amazonaws.dynamodb.v20120810#";

    private static final boolean DEBUG = Boolean.getBoolean("sluice.bench.stub.debug");
    private final ObjectMapper json = new ObjectMapper();
    private final HttpServer server;
    private final ExecutorService workers;
    private final AtomicLong latencyNanos = new AtomicLong();
    private final ConcurrentMap<String, LongAdder> requests = new ConcurrentHashMap<>();
    private final AtomicLong requestId = new AtomicLong();

    private final ConcurrentMap<String, List<String>> keySchemas = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, ConcurrentMap<String, ObjectNode>> tables = new ConcurrentHashMap<>();
    /** Tables given their items up front (reference data): kept by {@link #reset}. */
    private final Set<String> seeded = ConcurrentHashMap.newKeySet();

    private final ConcurrentMap<String, ConcurrentMap<String, StoredObject>> buckets = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, List<Message>> queues = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, List<StreamRecord>> streams = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, Integer> shardCounts = new ConcurrentHashMap<>();
    /** Stream and shard → the last sequence number given there. */
    private final ConcurrentMap<String, AtomicLong> sequences = new ConcurrentHashMap<>();

    private final ConcurrentMap<String, String> secrets = new ConcurrentHashMap<>();

    /** An S3 object as stored: its decoded bytes and what {@code HeadObject} answers. */
    public record StoredObject(
            byte[] body, Map<String, String> metadata, String etag, String contentType, String contentEncoding) {}

    /** An SQS message as stored. */
    public record Message(String body, Map<String, String> attributes) {}

    /** A Kinesis record as stored: the shard it went to and the sequence number it got there. */
    public record StreamRecord(String partitionKey, byte[] data, String shardId, String sequenceNumber) {}

    public AwsStub() {
        // without it the JDK's server leaves Nagle's algorithm on: every answer waits ~40 ms for the
        // client's delayed ACK (read once, when the server's configuration class loads)
        System.setProperty("sun.net.httpserver.nodelay", "true");
        try {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the AWS stub's port", e);
        }
        AtomicInteger threads = new AtomicInteger();
        workers = Executors.newFixedThreadPool(24, runnable -> {
            Thread thread = new Thread(runnable, THREAD_PREFIX + threads.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        server.setExecutor(workers);
        server.createContext("/", this::handle);
        server.start();
    }

    /** {@code http://127.0.0.1:PORT}: every service's endpoint. */
    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    /** Delays every answer by this much from now on (0: none). */
    public void latency(long millis) {
        latencyNanos.set(TimeUnit.MILLISECONDS.toNanos(millis));
    }

    /** A table's key attributes ({@code pk} unless set). */
    public void keySchema(String table, String... attributes) {
        keySchemas.put(table, List.of(attributes));
    }

    /** A stream's shard count (1 unless set): its shards split the hash-key space evenly. */
    public void shards(String stream, int count) {
        if (count < 1) {
            throw new IllegalArgumentException("a stream has at least one shard");
        }
        shardCounts.put(stream, count);
    }

    /** A Secrets Manager secret's string value. */
    public void secret(String id, String value) {
        secrets.put(id, value);
    }

    /** Requests so far by {@code "SERVICE Operation"} (SERVICE as {@code AwsLatencyModel} names it). */
    public Map<String, Long> requests() {
        Map<String, Long> out = new TreeMap<>();
        requests.forEach((k, v) -> out.put(k, v.sum()));
        return out;
    }

    /** Forgets every table, bucket, queue and stream whose name (or queue URL) matches. */
    public void reset(Predicate<String> resource) {
        tables.keySet().removeIf(name -> resource.test(name) && !seeded.contains(name));
        buckets.keySet().removeIf(resource);
        queues.keySet().removeIf(resource);
        streams.keySet().removeIf(resource);
        sequences.keySet().removeIf(k -> resource.test(k.substring(0, k.indexOf('\u0000'))));
    }

    /**
     * Gives a table its items (DynamoDB JSON, {@code {"pageId": {"S": "p-000001"}, …}}), as reference
     * data a stage reads ({@code Scan}, {@code GetItem}); {@link #reset} keeps them.
     */
    public void seed(String table, List<ObjectNode> items) {
        seeded.add(table);
        items.forEach(item -> table(table).put(keyOf(table, item), item));
    }

    /** A table's items, by key (a copy). */
    public Map<String, ObjectNode> items(String table) {
        return new TreeMap<>(tables.getOrDefault(table, new ConcurrentHashMap<>()));
    }

    /** A bucket's objects, by key (a copy). */
    public Map<String, StoredObject> objects(String bucket) {
        return new TreeMap<>(buckets.getOrDefault(bucket, new ConcurrentHashMap<>()));
    }

    /** A queue's messages, in the order they were sent (a copy). */
    public List<Message> messages(String queueUrl) {
        List<Message> messages = queues.get(queueUrl);
        if (messages == null) {
            return List.of();
        }
        synchronized (messages) {
            return List.copyOf(messages);
        }
    }

    /** A stream's records, in order (a copy). */
    public List<StreamRecord> records(String stream) {
        List<StreamRecord> records = streams.get(stream);
        if (records == null) {
            return List.of();
        }
        synchronized (records) {
            return List.copyOf(records);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        workers.shutdownNow();
    }

    // ---- dispatch

    private record Answer(int status, Map<String, String> headers, byte[] body) {}

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            byte[] body = exchange.getRequestBody().readAllBytes();
            Headers headers = exchange.getRequestHeaders();
            String target = headers.getFirst("X-Amz-Target");
            String operation;
            Answer answer;
            try {
                if (target != null) {
                    int dot = target.indexOf('.');
                    String prefix = target.substring(0, dot);
                    operation = target.substring(dot + 1);
                    String service = service(prefix);
                    count(service, operation);
                    answer = switch (service) {
                        case "DYNAMODB" -> dynamoDb(operation, json.readTree(body));
                        case "SQS" -> sqs(operation, json.readTree(body));
                        case "SECRETSMANAGER" -> secretsManager(operation, json.readTree(body));
                        case "KINESIS" -> kinesis(operation, body, headers.getFirst("Content-Type"));
                        default -> jsonError(400, "com.amazon.coral.service#UnknownOperationException", target);
                    };
                } else {
                    answer = s3(exchange.getRequestMethod(), exchange.getRequestURI(), headers, body);
                }
            } catch (DynamoExpressions.ValidationException e) {
                answer = jsonError(400, DDB_ERROR + "ValidationException", e.getMessage());
            } catch (RuntimeException e) {
                answer = jsonError(500, "com.amazon.coral.service#InternalFailure", String.valueOf(e));
            }
            long delay = latencyNanos.get();
            if (delay > 0) {
                TimeUnit.NANOSECONDS.sleep(delay);
            }
            if (DEBUG) {
                System.err.println("STUB " + exchange.getRequestMethod() + " " + exchange.getRequestURI() + " "
                        + target + " -> " + answer.status() + " " + answer.body().length + " "
                        + new String(answer.body(), 0, Math.min(200, answer.body().length), StandardCharsets.UTF_8));
            }
            Headers out = exchange.getResponseHeaders();
            answer.headers().forEach(out::set);
            boolean head = exchange.getRequestMethod().equals("HEAD");
            if (head || answer.body().length == 0) {
                exchange.sendResponseHeaders(answer.status(), -1);
            } else {
                exchange.sendResponseHeaders(answer.status(), answer.body().length);
                try (OutputStream os = exchange.getResponseBody()) {
                    os.write(answer.body());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String service(String targetPrefix) {
        if (targetPrefix.startsWith("DynamoDB_")) {
            return "DYNAMODB";
        }
        if (targetPrefix.equals("AmazonSQS")) {
            return "SQS";
        }
        if (targetPrefix.equals("secretsmanager")) {
            return "SECRETSMANAGER";
        }
        if (targetPrefix.startsWith("Kinesis_")) {
            return "KINESIS";
        }
        return targetPrefix.toUpperCase(Locale.ROOT);
    }

    private void count(String service, String operation) {
        requests.computeIfAbsent(service + " " + operation, k -> new LongAdder())
                .increment();
    }

    private Map<String, String> jsonHeaders(String contentType) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Type", contentType);
        headers.put("x-amzn-RequestId", nextRequestId());
        return headers;
    }

    private String nextRequestId() {
        return new UUID(0x5106CE0000000000L, requestId.incrementAndGet()).toString();
    }

    private Answer jsonOk(JsonNode body) {
        return new Answer(200, jsonHeaders("application/x-amz-json-1.0"), bytes(body));
    }

    private Answer jsonError(int status, String type, String message) {
        ObjectNode body = json.createObjectNode().put("__type", type).put("message", message);
        Map<String, String> headers = jsonHeaders("application/x-amz-json-1.0");
        headers.put("x-amzn-ErrorType", type.substring(type.indexOf('#') + 1));
        return new Answer(status, headers, bytes(body));
    }

    private byte[] bytes(JsonNode node) {
        try {
            return json.writeValueAsBytes(node);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // ---- DynamoDB

    private Answer dynamoDb(String operation, JsonNode request) {
        return switch (operation) {
            case "PutItem" -> putItem(request);
            case "GetItem" -> getItem(request);
            case "UpdateItem" -> updateItem(request);
            case "BatchWriteItem" -> batchWriteItem(request);
            case "Scan" -> scan(request);
            default -> jsonError(400, "com.amazon.coral.service#UnknownOperationException", "DynamoDB " + operation);
        };
    }

    private ConcurrentMap<String, ObjectNode> table(String name) {
        return tables.computeIfAbsent(name, t -> new ConcurrentHashMap<>());
    }

    /** The canonical form of an item's key: its key attributes in key-schema order. */
    private String keyOf(String table, JsonNode itemOrKey) {
        StringBuilder key = new StringBuilder();
        for (String attribute : keySchemas.getOrDefault(table, List.of("pk"))) {
            JsonNode value = itemOrKey.get(attribute);
            if (value == null) {
                throw new DynamoExpressions.ValidationException(
                        "One of the required keys was not given a value (" + attribute + " of " + table + ")");
            }
            key.append(value.toString()).append('\u0000');
        }
        return key.toString();
    }

    /** Thrown inside a map's {@code compute} when a condition fails: nothing is written. */
    private static final class ConditionFailed extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ConditionFailed() {
            super(null, null, false, false);
        }
    }

    private Answer conditionalCheckFailed() {
        return jsonError(400, DDB_ERROR + "ConditionalCheckFailedException", "The conditional request failed");
    }

    private Answer putItem(JsonNode request) {
        String tableName = request.path("TableName").asText();
        ObjectNode item = (ObjectNode) request.get("Item");
        try {
            table(tableName).compute(keyOf(tableName, item), (k, old) -> {
                if (!DynamoExpressions.condition(
                        text(request, "ConditionExpression"),
                        request.get("ExpressionAttributeNames"),
                        request.get("ExpressionAttributeValues"),
                        old)) {
                    throw new ConditionFailed();
                }
                return item;
            });
        } catch (ConditionFailed e) {
            return conditionalCheckFailed();
        }
        return jsonOk(json.createObjectNode());
    }

    /**
     * Every item of the table in one page (AWS pages at 1 MB; the reference tables benched here are
     * smaller), in key order.
     */
    private Answer scan(JsonNode request) {
        String tableName = request.path("TableName").asText();
        ObjectNode response = json.createObjectNode();
        var items = response.putArray("Items");
        new TreeMap<>(table(tableName)).values().forEach(items::add);
        response.put("Count", items.size());
        response.put("ScannedCount", items.size());
        return jsonOk(response);
    }

    private Answer getItem(JsonNode request) {
        String tableName = request.path("TableName").asText();
        ObjectNode item = table(tableName).get(keyOf(tableName, request.get("Key")));
        ObjectNode response = json.createObjectNode();
        if (item != null) {
            String projection = text(request, "ProjectionExpression");
            if (projection == null) {
                response.set("Item", item);
            } else {
                ObjectNode projected = json.createObjectNode();
                JsonNode names = request.get("ExpressionAttributeNames");
                for (String path : projection.split(",")) {
                    String name = path.trim();
                    if (name.startsWith("#")) {
                        name = names.path(name).asText();
                    }
                    if (item.has(name)) {
                        projected.set(name, item.get(name));
                    }
                }
                response.set("Item", projected);
            }
        }
        return jsonOk(response);
    }

    private Answer updateItem(JsonNode request) {
        String tableName = request.path("TableName").asText();
        JsonNode key = request.get("Key");
        JsonNode names = request.get("ExpressionAttributeNames");
        JsonNode values = request.get("ExpressionAttributeValues");
        ObjectNode[] after = new ObjectNode[1];
        try {
            table(tableName).compute(keyOf(tableName, key), (k, old) -> {
                if (!DynamoExpressions.condition(text(request, "ConditionExpression"), names, values, old)) {
                    throw new ConditionFailed();
                }
                ObjectNode item = old == null ? ((ObjectNode) key).deepCopy() : old.deepCopy();
                DynamoExpressions.update(text(request, "UpdateExpression"), names, values, item);
                after[0] = item;
                return item;
            });
        } catch (ConditionFailed e) {
            return conditionalCheckFailed();
        }
        ObjectNode response = json.createObjectNode();
        String returnValues = text(request, "ReturnValues");
        if ("ALL_NEW".equals(returnValues)) {
            response.set("Attributes", after[0]);
        }
        return jsonOk(response);
    }

    private Answer batchWriteItem(JsonNode request) {
        request.path("RequestItems").fields().forEachRemaining(entry -> {
            String tableName = entry.getKey();
            for (JsonNode write : entry.getValue()) {
                if (write.has("PutRequest")) {
                    ObjectNode item = (ObjectNode) write.get("PutRequest").get("Item");
                    table(tableName).put(keyOf(tableName, item), item);
                } else if (write.has("DeleteRequest")) {
                    table(tableName)
                            .remove(keyOf(tableName, write.get("DeleteRequest").get("Key")));
                }
            }
        });
        ObjectNode response = json.createObjectNode();
        response.putObject("UnprocessedItems");
        return jsonOk(response);
    }

    private static String text(JsonNode request, String field) {
        JsonNode value = request.get(field);
        return value == null || value.isNull() ? null : value.asText();
    }

    // ---- SQS (JSON protocol)

    private Answer sqs(String operation, JsonNode request) {
        String queueUrl = request.path("QueueUrl").asText();
        List<Message> queue = queues.computeIfAbsent(queueUrl, q -> Collections.synchronizedList(new ArrayList<>()));
        switch (operation) {
            case "SendMessage" -> {
                ObjectNode response = json.createObjectNode();
                sent(queue, request, response);
                return new Answer(200, jsonHeaders("application/x-amz-json-1.0"), bytes(response));
            }
            case "SendMessageBatch" -> {
                ObjectNode response = json.createObjectNode();
                ArrayNode successful = response.putArray("Successful");
                response.putArray("Failed");
                for (JsonNode entry : request.path("Entries")) {
                    ObjectNode ok =
                            successful.addObject().put("Id", entry.path("Id").asText());
                    sent(queue, entry, ok);
                }
                return new Answer(200, jsonHeaders("application/x-amz-json-1.0"), bytes(response));
            }
            default -> {
                return jsonError(400, "com.amazonaws.sqs#UnsupportedOperation", "SQS " + operation);
            }
        }
    }

    private void sent(List<Message> queue, JsonNode entry, ObjectNode response) {
        String body = entry.path("MessageBody").asText();
        Map<String, String> attributes = new TreeMap<>();
        entry.path("MessageAttributes")
                .fields()
                .forEachRemaining(a -> attributes.put(
                        a.getKey(), a.getValue().path("StringValue").asText()));
        queue.add(new Message(body, attributes));
        response.put("MessageId", UUID.randomUUID().toString());
        response.put("MD5OfMessageBody", md5Hex(body.getBytes(StandardCharsets.UTF_8)));
        if (entry.has("MessageAttributes") && entry.get("MessageAttributes").size() > 0) {
            response.put("MD5OfMessageAttributes", attributesMd5(entry.get("MessageAttributes")));
        }
    }

    /** SQS's digest of message attributes: by name, each length-prefixed name, type, transport byte, value. */
    static String attributesMd5(JsonNode attributes) {
        TreeMap<String, JsonNode> sorted = new TreeMap<>();
        attributes.fields().forEachRemaining(e -> sorted.put(e.getKey(), e.getValue()));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Map.Entry<String, JsonNode> e : sorted.entrySet()) {
            lengthPrefixed(out, e.getKey().getBytes(StandardCharsets.UTF_8));
            lengthPrefixed(out, e.getValue().path("DataType").asText().getBytes(StandardCharsets.UTF_8));
            if (e.getValue().has("StringValue")) {
                out.write(1);
                lengthPrefixed(out, e.getValue().get("StringValue").asText().getBytes(StandardCharsets.UTF_8));
            } else {
                out.write(2);
                lengthPrefixed(
                        out,
                        Base64.getDecoder()
                                .decode(e.getValue().path("BinaryValue").asText()));
            }
        }
        return md5Hex(out.toByteArray());
    }

    private static void lengthPrefixed(ByteArrayOutputStream out, byte[] bytes) {
        out.writeBytes(ByteBuffer.allocate(4).putInt(bytes.length).array());
        out.writeBytes(bytes);
    }

    static String md5Hex(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    // ---- Secrets Manager

    private Answer secretsManager(String operation, JsonNode request) {
        if (!operation.equals("GetSecretValue")) {
            return jsonError(400, "com.amazon.coral.service#UnknownOperationException", "secretsmanager " + operation);
        }
        String id = request.path("SecretId").asText();
        String value = secrets.get(id);
        if (value == null) {
            return jsonError(
                    400,
                    "com.amazonaws.secretsmanager#ResourceNotFoundException",
                    "Secrets Manager can't find the specified secret.");
        }
        ObjectNode response = json.createObjectNode()
                .put("ARN", "arn:aws:secretsmanager:" + REGION + ":" + ACCOUNT + ":secret:" + id + "-AbCdEf")
                .put("Name", id)
                .put("VersionId", "00000000-0000-4000-8000-000000000001")
                .put("SecretString", value)
                .put("CreatedDate", 1.7e9);
        response.putArray("VersionStages").add("AWSCURRENT");
        return new Answer(200, jsonHeaders("application/x-amz-json-1.1"), bytes(response));
    }

    // ---- Kinesis (CBOR or JSON, as the request)

    private Answer kinesis(String operation, byte[] body, String contentType) throws IOException {
        boolean cbor = LoopbackAws.isCbor(contentType);
        ObjectMapper mapper = LoopbackAws.protocolMapper(cbor);
        JsonNode request = mapper.readTree(body);
        String stream = request.hasNonNull("StreamName")
                ? request.get("StreamName").asText()
                : request.path("StreamARN").asText().replaceFirst(".*:stream/", "");
        ObjectNode response = json.createObjectNode();
        switch (operation) {
            case "PutRecords" -> {
                int entries = request.path("Records").size();
                if (entries < 1 || entries > 500) {
                    return kinesisError(
                            cbor,
                            "ValidationException",
                            "1 validation error detected: Value at 'records' failed to satisfy constraint: Member"
                                    + " must have length less than or equal to 500 and greater than or equal to 1");
                }
                putRecords(stream, request, response);
            }
            case "ListShards" -> listShards(request.hasNonNull("NextToken") ? null : stream, response);
            default -> {
                return kinesisError(cbor, "UnknownOperationException", "Kinesis " + operation);
            }
        }
        return new Answer(
                200,
                jsonHeaders(cbor ? LoopbackAws.CBOR_TYPE : "application/x-amz-json-1.1"),
                encode(mapper, response));
    }

    private void putRecords(String stream, JsonNode request, ObjectNode response) throws IOException {
        List<StreamRecord> records =
                streams.computeIfAbsent(stream, s -> Collections.synchronizedList(new ArrayList<>()));
        ShardMap map = shardMap(stream);
        response.put("FailedRecordCount", 0);
        ArrayNode results = response.putArray("Records");
        synchronized (records) {
            for (JsonNode entry : request.path("Records")) {
                String partitionKey = entry.path("PartitionKey").asText();
                JsonNode explicit = entry.get("ExplicitHashKey");
                String shard = map.shardFor(ShardMap.hashKey(
                        partitionKey, explicit == null || explicit.isNull() ? null : explicit.asText()));
                long inShard = sequences
                        .computeIfAbsent(stream + "\u0000" + shard, k -> new AtomicLong())
                        .incrementAndGet();
                // 56 digits, increasing within a shard, as Kinesis's are
                String sequence = String.format("49%06d%048d", shardIndex(shard), inShard);
                records.add(new StreamRecord(partitionKey, entry.path("Data").binaryValue(), shard, sequence));
                results.addObject().put("SequenceNumber", sequence).put("ShardId", shard);
            }
        }
        // Sluice's streams are encrypted with their customer-managed key: Kinesis says so in each answer
        response.put("EncryptionType", "KMS");
    }

    /** The stream's open shards, all on one page ({@code stream} null: a next page, which is empty). */
    private void listShards(String stream, ObjectNode response) {
        ArrayNode shards = response.putArray("Shards");
        if (stream == null) {
            return;
        }
        int count = shardCounts.getOrDefault(stream, 1);
        for (int i = 0; i < count; i++) {
            ObjectNode shard = shards.addObject().put("ShardId", shardId(i));
            shard.putObject("HashKeyRange")
                    .put("StartingHashKey", startingHashKey(i, count).toString())
                    .put("EndingHashKey", endingHashKey(i, count).toString());
            shard.putObject("SequenceNumberRange").put("StartingSequenceNumber", String.format("49%06d%048d", i, 0));
        }
    }

    private ShardMap shardMap(String stream) {
        int count = shardCounts.getOrDefault(stream, 1);
        List<ShardMap.Range> ranges = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            ranges.add(new ShardMap.Range(shardId(i), startingHashKey(i, count), endingHashKey(i, count)));
        }
        return new ShardMap(ranges);
    }

    private static String shardId(int index) {
        return String.format("shardId-%012d", index);
    }

    private static int shardIndex(String shardId) {
        return Integer.parseInt(shardId.substring("shardId-".length()));
    }

    private static BigInteger startingHashKey(int index, int count) {
        return ShardMap.MAX_HASH_KEY
                .add(BigInteger.ONE)
                .divide(BigInteger.valueOf(count))
                .multiply(BigInteger.valueOf(index));
    }

    private static BigInteger endingHashKey(int index, int count) {
        return index == count - 1
                ? ShardMap.MAX_HASH_KEY
                : startingHashKey(index + 1, count).subtract(BigInteger.ONE);
    }

    private Answer kinesisError(boolean cbor, String code, String message) throws IOException {
        ObjectMapper mapper = LoopbackAws.protocolMapper(cbor);
        ObjectNode body = json.createObjectNode().put("__type", code).put("message", message);
        Map<String, String> headers = jsonHeaders(cbor ? LoopbackAws.CBOR_TYPE : "application/x-amz-json-1.1");
        headers.put("x-amzn-ErrorType", code);
        return new Answer(400, headers, encode(mapper, body));
    }

    private static byte[] encode(ObjectMapper mapper, JsonNode body) throws IOException {
        return mapper.writeValueAsBytes(body);
    }

    // ---- S3 (REST, path style)

    private Answer s3(String method, URI uri, Headers headers, byte[] body) {
        String path = uri.getRawPath();
        String[] parts = path.substring(1).split("/", 2);
        String bucket = decode(parts[0]);
        String key = parts.length > 1 ? decode(parts[1]) : "";
        String query = uri.getRawQuery() == null ? "" : uri.getRawQuery();
        ConcurrentMap<String, StoredObject> objects = buckets.computeIfAbsent(bucket, b -> new ConcurrentHashMap<>());
        if (key.isEmpty()) {
            if (method.equals("GET") && query.contains("list-type=2")) {
                count("S3", "ListObjectsV2");
                return listObjects(bucket, objects, query);
            }
            count("S3", method + "Bucket");
            return s3Error(400, "NotImplemented", "the stub does not implement " + method + " on a bucket");
        }
        switch (method) {
            case "PUT" -> {
                count("S3", "PutObject");
                return putObject(objects, key, headers, body);
            }
            case "GET" -> {
                count("S3", "GetObject");
                StoredObject object = objects.get(key);
                if (object == null) {
                    return s3Error(404, "NoSuchKey", "The specified key does not exist.");
                }
                Map<String, String> out = objectHeaders(object);
                return new Answer(200, out, object.body());
            }
            case "HEAD" -> {
                count("S3", "HeadObject");
                StoredObject object = objects.get(key);
                if (object == null) {
                    return new Answer(404, s3Headers(), new byte[0]);
                }
                return new Answer(200, objectHeaders(object), new byte[0]);
            }
            default -> {
                count("S3", method + "Object");
                return s3Error(400, "NotImplemented", "the stub does not implement " + method);
            }
        }
    }

    private Answer putObject(ConcurrentMap<String, StoredObject> objects, String key, Headers headers, byte[] body) {
        byte[] content = isChunked(headers) ? decodeChunks(body) : body;
        Map<String, String> metadata = new TreeMap<>();
        headers.forEach((name, values) -> {
            String lower = name.toLowerCase(Locale.ROOT);
            if (lower.startsWith("x-amz-meta-")) {
                metadata.put(lower.substring("x-amz-meta-".length()), values.get(0));
            }
        });
        String etag = "\"" + md5Hex(content) + "\"";
        StoredObject object = new StoredObject(
                content,
                Map.copyOf(metadata),
                etag,
                headers.getFirst("Content-Type"),
                contentEncoding(headers.getFirst("Content-Encoding")));
        if ("*".equals(headers.getFirst("If-None-Match"))) {
            if (objects.putIfAbsent(key, object) != null) {
                return s3Error(
                        412, "PreconditionFailed", "At least one of the pre-conditions you specified did not hold");
            }
        } else {
            objects.put(key, object);
        }
        Map<String, String> out = s3Headers();
        out.put("ETag", etag);
        return new Answer(200, out, new byte[0]);
    }

    /** The object's own content encoding, without the transfer's {@code aws-chunked}. */
    private static String contentEncoding(String header) {
        if (header == null) {
            return null;
        }
        List<String> kept = new ArrayList<>();
        for (String part : header.split(",")) {
            if (!part.trim().equalsIgnoreCase("aws-chunked") && !part.isBlank()) {
                kept.add(part.trim());
            }
        }
        return kept.isEmpty() ? null : String.join(",", kept);
    }

    private static boolean isChunked(Headers headers) {
        String sha = headers.getFirst("x-amz-content-sha256");
        String encoding = headers.getFirst("Content-Encoding");
        return (sha != null && sha.startsWith("STREAMING-"))
                || (encoding != null && encoding.toLowerCase(Locale.ROOT).contains("aws-chunked"));
    }

    /** An aws-chunked body ({@code hex-size[;chunk-signature=…]\r\n data \r\n … 0…\r\n trailers}) decoded. */
    static byte[] decodeChunks(byte[] body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(body.length);
        int i = 0;
        while (i < body.length) {
            int lineEnd = indexOfCrlf(body, i);
            String line = new String(body, i, lineEnd - i, StandardCharsets.US_ASCII);
            int semicolon = line.indexOf(';');
            int size = Integer.parseInt((semicolon < 0 ? line : line.substring(0, semicolon)).trim(), 16);
            i = lineEnd + 2;
            if (size == 0) {
                break; // trailers (checksums) follow
            }
            out.write(body, i, size);
            i += size + 2;
        }
        return out.toByteArray();
    }

    private static int indexOfCrlf(byte[] body, int from) {
        for (int i = from; i + 1 < body.length; i++) {
            if (body[i] == '\r' && body[i + 1] == '\n') {
                return i;
            }
        }
        throw new IllegalArgumentException("malformed aws-chunked body");
    }

    private Map<String, String> objectHeaders(StoredObject object) {
        Map<String, String> out = s3Headers();
        out.put("ETag", object.etag());
        out.put("Last-Modified", "Sat, 01 Mar 2025 08:00:00 GMT");
        out.put("Accept-Ranges", "bytes");
        if (object.contentType() != null) {
            out.put("Content-Type", object.contentType());
        }
        if (object.contentEncoding() != null) {
            out.put("Content-Encoding", object.contentEncoding());
        }
        object.metadata().forEach((k, v) -> out.put("x-amz-meta-" + k, v));
        return out;
    }

    private Map<String, String> s3Headers() {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put(
                "x-amz-request-id",
                Long.toHexString(requestId.incrementAndGet()).toUpperCase(Locale.ROOT));
        headers.put("x-amz-id-2", "c2x1aWNlLWJlbmNoLXN0dWI=");
        headers.put("Server", "AmazonS3");
        return headers;
    }

    private Answer s3Error(int status, String code, String message) {
        Map<String, String> headers = s3Headers();
        headers.put("Content-Type", "application/xml");
        String xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>" + code + "</Code><Message>"
                + message + "</Message><RequestId>" + headers.get("x-amz-request-id") + "</RequestId><HostId>"
                + headers.get("x-amz-id-2") + "</HostId></Error>";
        return new Answer(status, headers, xml.getBytes(StandardCharsets.UTF_8));
    }

    private Answer listObjects(String bucket, Map<String, StoredObject> objects, String query) {
        String prefix = "";
        for (String pair : query.split("&")) {
            if (pair.startsWith("prefix=")) {
                prefix = decode(pair.substring("prefix=".length()));
            }
        }
        StringBuilder xml = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                        + "<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Name>")
                .append(bucket)
                .append("</Name><Prefix>")
                .append(prefix)
                .append("</Prefix>");
        int count = 0;
        for (Map.Entry<String, StoredObject> e : new TreeMap<>(objects).entrySet()) {
            if (e.getKey().startsWith(prefix)) {
                count++;
                xml.append("<Contents><Key>")
                        .append(e.getKey())
                        .append("</Key><LastModified>2025-03-01T08:00:00.000Z</LastModified><ETag>")
                        .append(e.getValue().etag().replace("\"", "&quot;"))
                        .append("</ETag><Size>")
                        .append(e.getValue().body().length)
                        .append("</Size><StorageClass>STANDARD</StorageClass></Contents>");
            }
        }
        xml.append("<KeyCount>")
                .append(count)
                .append("</KeyCount><MaxKeys>1000</MaxKeys>")
                .append("<IsTruncated>false</IsTruncated></ListBucketResult>");
        Map<String, String> headers = s3Headers();
        headers.put("Content-Type", "application/xml");
        return new Answer(200, headers, xml.toString().getBytes(StandardCharsets.UTF_8));
    }

    private static String decode(String part) {
        return URLDecoder.decode(part.replace("+", "%2B"), StandardCharsets.UTF_8);
    }
}
