package dev.sluice.emulators.iam;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hc.client5.http.classic.methods.HttpUriRequestBase;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.http.io.SocketConfig;
import org.apache.hc.core5.http.io.entity.ByteArrayEntity;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.util.TimeValue;
import org.apache.hc.core5.util.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An HTTP front in front of one emulator: every request is mapped to the IAM authorizations AWS
 * makes for it ({@link RequestMapper}), the {@link AccessControl} decides, and the request is either
 * forwarded unchanged or answered as AWS answers a denied one — {@code AccessDeniedException} (400,
 * JSON or CBOR) for Kinesis, DynamoDB and SQS, 403 {@code AccessDenied} XML for S3, {@code
 * KMSAccessDeniedException} / {@code KmsAccessDenied} when the implied KMS call was denied, {@code
 * UnrecognizedClientException} / {@code InvalidAccessKeyId} for an unknown key — so that the SDK
 * raises its usual typed exception. Keep-alive HTTP/1.1 on a loopback port.
 */
public final class AccessGate implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(AccessGate.class);
    private static final Set<String> HOP_BY_HOP = Set.of(
            "host",
            "connection",
            "content-length",
            "expect",
            "upgrade",
            "transfer-encoding",
            "keep-alive",
            "te",
            "trailer",
            "proxy-connection",
            "http2-settings");
    private static final AtomicInteger THREADS = new AtomicInteger();

    static {
        // the JDK server writes a response's headers and body apart: with Nagle's algorithm and the
        // client's delayed ACK every answer waited about 40 ms (20 requests/s through a gate instead
        // of 170); read once, when the first server of the JVM is made
        if (System.getProperty("sun.net.httpserver.nodelay") == null) {
            System.setProperty("sun.net.httpserver.nodelay", "true");
        }
    }

    private static final int ITERATORS_KEPT = 200_000;
    /** Connections the gate keeps open to its emulator at most (callers beyond it wait for one). */
    private static final int FORWARD_CONNECTIONS = 512;

    private final AwsService service;
    private final String region;
    private final AccessControl control;
    private final RequestMapper mapper;
    private final HttpServer server;
    private final ExecutorService executor;
    private final CloseableHttpClient client;
    private final Map<String, String> iteratorStreams =
            Collections.synchronizedMap(new LinkedHashMap<>(1024, 0.75f, false) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
                    return size() > ITERATORS_KEPT;
                }
            });
    private volatile int backendPort = -1;
    private volatile KinesisLimitGate limits;
    private volatile SqsLimitGate sqsLimits;
    private volatile java.util.function.ToLongBiFunction<AwsService, String> latency;

    private AccessGate(AwsService service, String region, String account, AccessControl control) throws IOException {
        this.service = service;
        this.region = region;
        this.control = control;
        this.mapper = new RequestMapper(region, account);
        this.server = dev.sluice.emulators.http.LoopbackHttpServer.bind(128);
        this.executor = Executors.newCachedThreadPool(runnable -> {
            Thread thread = new Thread(runnable, "access-gate-" + service.prefix() + "-" + THREADS.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        this.client = forwardingClient();
        server.setExecutor(executor);
        server.createContext("/", this::handle);
    }

    /**
     * Binds a gate on a free loopback port; it answers 503 until {@link #backendPort(int)} names the
     * emulator behind it.
     */
    public static AccessGate bind(AwsService service, String region, String account, AccessControl control) {
        try {
            AccessGate gate = new AccessGate(service, region, account, control);
            gate.server.start();
            return gate;
        } catch (IOException e) {
            throw new IllegalStateException("cannot bind the " + service + " access gate: " + e.getMessage(), e);
        }
    }

    /** Sets the emulator's port. */
    public void backendPort(int port) {
        this.backendPort = port;
    }

    /**
     * Enforces Kinesis's per-shard quotas at this (Kinesis) gate, or stops enforcing them (null).
     *
     * @throws IllegalStateException if this gate is not Kinesis's
     */
    public void limits(dev.sluice.emulators.limits.KinesisLimits limits) {
        if (service != AwsService.KINESIS) {
            throw new IllegalStateException("only the Kinesis gate enforces the per-shard quotas");
        }
        this.limits = limits == null ? null : new KinesisLimitGate(limits);
    }

    /**
     * Enforces SQS's message size limit at this (SQS) gate, or stops enforcing it (null).
     *
     * @throws IllegalStateException if this gate is not SQS's
     */
    public void sqsLimits(dev.sluice.emulators.limits.SqsLimits limits) {
        if (service != AwsService.SQS) {
            throw new IllegalStateException("only the SQS gate enforces the message size limit");
        }
        this.sqsLimits = limits == null ? null : new SqsLimitGate(limits);
    }

    /**
     * Delays every request by a time the caller chooses per service and operation, in nanoseconds
     * (0: none), before it is handled — a latency model of the real service — or stops delaying
     * (null). The delay adds to the emulator's own time. The gate knows nothing of the model.
     */
    public void latency(java.util.function.ToLongBiFunction<AwsService, String> nanosPerCall) {
        this.latency = nanosPerCall;
    }

    /** The SQS message size limits this gate enforces, or null. */
    public dev.sluice.emulators.limits.SqsLimits sqsLimits() {
        SqsLimitGate gate = sqsLimits;
        return gate == null ? null : gate.limits();
    }

    /** The Kinesis quotas this gate enforces, or null. */
    public dev.sluice.emulators.limits.KinesisLimits limits() {
        KinesisLimitGate gate = limits;
        return gate == null ? null : gate.limits();
    }

    /**
     * The open shards of a stream, as the emulator lists them (ListShards as the stack's
     * administrator).
     */
    public dev.sluice.emulators.limits.ShardMap listShards(String stream, String adminKeyId) {
        java.util.List<dev.sluice.emulators.limits.ShardMap.Range> open = new java.util.ArrayList<>();
        String token = null;
        do {
            ObjectNode body = RequestMapper.JSON.createObjectNode();
            if (token == null) {
                body.put("StreamName", stream);
            } else {
                body.put("NextToken", token);
            }
            String date = java.time.format.DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'")
                    .withZone(java.time.ZoneOffset.UTC)
                    .format(java.time.Instant.now());
            Map<String, String> headers = new LinkedHashMap<>();
            headers.put("Content-Type", "application/x-amz-json-1.1");
            headers.put("X-Amz-Target", "Kinesis_20131202.ListShards");
            headers.put("X-Amz-Date", date);
            headers.put(
                    "Authorization",
                    "AWS4-HMAC-SHA256 Credential=" + adminKeyId + "/" + date.substring(0, 8) + "/" + region
                            + "/kinesis/aws4_request, SignedHeaders=host;x-amz-date, Signature=0");
            try {
                Answer response =
                        send(new GateRequest("POST", "/", null, headers, RequestMapper.JSON.writeValueAsBytes(body)));
                if (response == null || response.statusCode() != 200) {
                    return new dev.sluice.emulators.limits.ShardMap(open);
                }
                com.fasterxml.jackson.databind.JsonNode answer = RequestMapper.JSON.readTree(response.body());
                for (com.fasterxml.jackson.databind.JsonNode shard : answer.path("Shards")) {
                    if (shard.path("SequenceNumberRange").hasNonNull("EndingSequenceNumber")) {
                        continue; // closed
                    }
                    open.add(new dev.sluice.emulators.limits.ShardMap.Range(
                            shard.path("ShardId").asText(),
                            new java.math.BigInteger(shard.path("HashKeyRange")
                                    .path("StartingHashKey")
                                    .asText()),
                            new java.math.BigInteger(shard.path("HashKeyRange")
                                    .path("EndingHashKey")
                                    .asText())));
                }
                token = answer.path("NextToken").asText(null);
            } catch (IOException e) {
                LOG.debug("ListShards of {} failed", stream, e);
                return new dev.sluice.emulators.limits.ShardMap(open);
            }
        } while (token != null);
        return new dev.sluice.emulators.limits.ShardMap(open);
    }

    /** The gate's port on 127.0.0.1. */
    public int port() {
        return server.getAddress().getPort();
    }

    public AwsService service() {
        return service;
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            byte[] body;
            try (InputStream in = exchange.getRequestBody()) {
                body = in.readAllBytes();
            }
            Map<String, String> headers = new LinkedHashMap<>();
            exchange.getRequestHeaders().forEach((name, values) -> headers.put(name, values.get(0)));
            URI uri = exchange.getRequestURI();
            GateRequest request =
                    new GateRequest(exchange.getRequestMethod(), uri.getRawPath(), uri.getRawQuery(), headers, body);
            ServiceCall call = mapper.map(service, request, iteratorStreams::get);
            Duration hold = control.cutHold(request.accessKeyId(), call);
            if (hold != null) {
                // a partition: no answer while it lasts (at most the cut's hold), then the connection is
                // dropped unanswered; the request never reaches the emulator
                if (!hold.isZero()) {
                    control.holdWhileCut(request.accessKeyId(), call, hold);
                }
                throw new IOException("partitioned: " + service + " " + call.operation() + " dropped unanswered");
            }
            AccessControl.Held held = control.heldBy(request.accessKeyId(), call);
            if (held != null && !held.await(call)) {
                throw new IOException(
                        "held: " + service + " " + call.operation() + " dropped unanswered (never released)");
            }
            delay(call);
            Decision decision = control.authorize(signed(exchange, request), region, call);
            KinesisLimitGate kinesisLimits = this.limits;
            SqsLimitGate sqsLimitGate = this.sqsLimits;
            if (decision instanceof Decision.Allowed
                    && service == AwsService.KINESIS
                    && call.operation().equals("SubscribeToShard")) {
                // an event stream of up to five minutes: streamed as it comes, not buffered
                forwardStreaming(exchange, request);
            } else if (decision instanceof Decision.Allowed && kinesisLimits != null) {
                kinesisLimits.handle(exchange, request, call, this);
            } else if (decision instanceof Decision.Allowed && sqsLimitGate != null) {
                sqsLimitGate.handle(exchange, request, call, this);
            } else if (decision instanceof Decision.Allowed && held != null) {
                forwardLate(exchange, request, call, held);
            } else if (decision instanceof Decision.Allowed) {
                forward(exchange, request, call);
            } else {
                if (held != null) {
                    held.landed(call, 0, "AccessDenied");
                }
                deny(exchange, request, decision);
            }
        } catch (IOException | RuntimeException e) {
            LOG.debug("{} gate: request failed", service, e);
            throw e;
        }
    }

    /**
     * The request as its signature covers it: a header sent on several lines is one canonical header
     * of its values joined by commas, in order (the SDK's S3 client sends {@code Content-Encoding:
     * gzip} and {@code Content-Encoding: aws-chunked}).
     */
    static GateRequest signed(HttpExchange exchange, GateRequest request) {
        Map<String, String> joined = new LinkedHashMap<>();
        boolean multiple = false;
        for (Map.Entry<String, java.util.List<String>> header :
                exchange.getRequestHeaders().entrySet()) {
            multiple |= header.getValue().size() > 1;
            joined.put(header.getKey(), String.join(",", header.getValue()));
        }
        return multiple
                ? new GateRequest(request.method(), request.rawPath(), request.rawQuery(), joined, request.body())
                : request;
    }

    private void delay(ServiceCall call) {
        java.util.function.ToLongBiFunction<AwsService, String> model = latency;
        long nanos = model == null ? 0 : model.applyAsLong(service, call.operation());
        if (nanos > 0) {
            java.util.concurrent.locks.LockSupport.parkNanos(nanos);
        }
    }

    // ---- forwarding ----------------------------------------------------------------------------

    /**
     * Forwards a request unchanged and replies with the emulator's answer, which it returns (null
     * when the emulator is not started).
     */
    Answer forward(HttpExchange exchange, GateRequest request, ServiceCall call) throws IOException {
        Map<String, java.util.List<String>> headers = new LinkedHashMap<>();
        exchange.getRequestHeaders().forEach(headers::put);
        Answer response = send(request, headers);
        if (response != null && service == AwsService.KINESIS && response.statusCode() == 200) {
            rememberIterators(call, request, response.body());
        }
        reply(exchange, request, response);
        return response;
    }

    /**
     * Forwards a request unchanged and streams the emulator's answer to the caller as it arrives
     * (chunked): SubscribeToShard's event stream, which lasts up to five minutes.
     */
    private void forwardStreaming(HttpExchange exchange, GateRequest request) throws IOException {
        int port = backendPort;
        if (port < 0) {
            reply(exchange, request, null);
            return;
        }
        HttpUriRequestBase forwarded = new HttpUriRequestBase(
                request.method(),
                URI.create("http://127.0.0.1:" + port + request.rawPath()
                        + (request.rawQuery() == null ? "" : "?" + request.rawQuery())));
        exchange.getRequestHeaders().forEach((name, values) -> {
            if (!HOP_BY_HOP.contains(name.toLowerCase(Locale.ROOT))) {
                values.forEach(value -> forwarded.addHeader(name, value));
            }
        });
        forwarded.setEntity(new ByteArrayEntity(request.body(), null));
        try (org.apache.hc.core5.http.ClassicHttpResponse answer = client.executeOpen(null, forwarded, null)) {
            Headers out = exchange.getResponseHeaders();
            for (Header header : answer.getHeaders()) {
                String lower = header.getName().toLowerCase(Locale.ROOT);
                if (!HOP_BY_HOP.contains(lower) && !lower.equals("date")) {
                    out.add(header.getName(), header.getValue());
                }
            }
            exchange.sendResponseHeaders(answer.getCode(), 0);
            HttpEntity entity = answer.getEntity();
            try (OutputStream os = exchange.getResponseBody()) {
                if (entity != null) {
                    try (InputStream in = entity.getContent()) {
                        byte[] buffer = new byte[16 * 1024];
                        int read;
                        while ((read = in.read(buffer)) >= 0) {
                            os.write(buffer, 0, read);
                            os.flush();
                        }
                    }
                }
            }
        }
    }

    /**
     * Forwards a request a hold kept ({@link AccessControl#hold}) and records the emulator's answer
     * before replying: its caller may have given up waiting, and the answer is what tells whether
     * the late request took effect.
     */
    private void forwardLate(HttpExchange exchange, GateRequest request, ServiceCall call, AccessControl.Held held)
            throws IOException {
        Answer answer;
        try {
            answer = exchange(request, call);
        } catch (IOException e) {
            held.landed(call, 0, e.getClass().getSimpleName());
            throw e;
        }
        held.landed(call, answer == null ? 0 : answer.statusCode(), answer == null ? null : errorCode(answer));
        reply(exchange, request, answer);
    }

    /**
     * The error code of a refusal: DynamoDB's and Kinesis's {@code __type} (after its {@code #}), or
     * the {@code <Code>} of S3's and SQS's XML; null for a success or a body without one.
     */
    static String errorCode(Answer answer) {
        if (answer.statusCode() < 300) {
            return null;
        }
        String body = new String(answer.body(), StandardCharsets.UTF_8);
        java.util.regex.Matcher json = java.util.regex.Pattern.compile("\"__type\"\\s*:\\s*\"(?:[^\"#]*#)?([^\"]+)\"")
                .matcher(body);
        if (json.find()) {
            return json.group(1);
        }
        java.util.regex.Matcher xml =
                java.util.regex.Pattern.compile("<Code>([^<]+)</Code>").matcher(body);
        return xml.find() ? xml.group(1) : null;
    }

    /**
     * Sends a request to the emulator and returns its answer without replying (the iterators it hands
     * out remembered, as {@link #forward} does); null when the emulator is not started.
     */
    Answer exchange(GateRequest request, ServiceCall call) throws IOException {
        Answer response = send(request);
        if (response != null && service == AwsService.KINESIS && response.statusCode() == 200) {
            rememberIterators(call, request, response.body());
        }
        return response;
    }

    /** Sends a request (its headers) to the emulator; null when the emulator is not started. */
    Answer send(GateRequest request) throws IOException {
        Map<String, java.util.List<String>> headers = new LinkedHashMap<>();
        request.headers().forEach((name, value) -> headers.put(name, java.util.List.of(value)));
        return send(request, headers);
    }

    private Answer send(GateRequest request, Map<String, java.util.List<String>> headers) throws IOException {
        int port = backendPort;
        if (port < 0) {
            return null;
        }
        String target = "http://127.0.0.1:" + port + request.rawPath()
                + (request.rawQuery() == null ? "" : "?" + request.rawQuery());
        HttpUriRequestBase forwarded = new HttpUriRequestBase(request.method(), URI.create(target));
        headers.forEach((name, values) -> {
            if (!HOP_BY_HOP.contains(name.toLowerCase(Locale.ROOT))) {
                values.forEach(value -> forwarded.addHeader(name, value));
            }
        });
        if (request.body().length > 0
                || request.header("content-length") != null
                || request.header("transfer-encoding") != null) {
            // no content type of its own: the caller's Content-Type header goes as it came; the client
            // sets Content-Length (0 for an empty body that came with one)
            forwarded.setEntity(new ByteArrayEntity(request.body(), null));
        }
        return client.execute(forwarded, answer -> {
            Map<String, java.util.List<String>> answerHeaders = new LinkedHashMap<>();
            for (Header header : answer.getHeaders()) {
                answerHeaders
                        .computeIfAbsent(header.getName(), ignored -> new java.util.ArrayList<>())
                        .add(header.getValue());
            }
            HttpEntity entity = answer.getEntity();
            byte[] body = entity == null ? new byte[0] : EntityUtils.toByteArray(entity);
            return new Answer(answer.getCode(), HttpHeaders.of(answerHeaders, (name, value) -> true), body);
        });
    }

    /**
     * The client that forwards allowed requests: blocking HTTP/1.1 on pooled keep-alive connections,
     * run on the gate's own request thread. It changes nothing on the way: no retries (a request
     * reaches the emulator at most once, as the caller sent it), no redirects, no content
     * (de)compression, no cookies; an idle connection is checked before reuse (the emulators close
     * idle keep-alive connections). The JDK's asynchronous {@code HttpClient} did the same with a
     * selector thread and a hand-off between threads per request: about a third of a gate's CPU.
     */
    private static CloseableHttpClient forwardingClient() {
        PoolingHttpClientConnectionManager connections = PoolingHttpClientConnectionManagerBuilder.create()
                .setMaxConnTotal(FORWARD_CONNECTIONS)
                .setMaxConnPerRoute(FORWARD_CONNECTIONS)
                .setDefaultConnectionConfig(ConnectionConfig.custom()
                        .setConnectTimeout(Timeout.ofSeconds(2))
                        .setSocketTimeout(Timeout.ofMinutes(2))
                        .setValidateAfterInactivity(TimeValue.ofMilliseconds(500))
                        .build())
                .setDefaultSocketConfig(
                        SocketConfig.custom().setTcpNoDelay(true).build())
                .build();
        return HttpClients.custom()
                .setConnectionManager(connections)
                .setDefaultRequestConfig(RequestConfig.custom()
                        .setResponseTimeout(Timeout.ofMinutes(2))
                        .setConnectionRequestTimeout(Timeout.ofMinutes(2))
                        .build())
                .disableAutomaticRetries()
                .disableRedirectHandling()
                .disableContentCompression()
                .disableCookieManagement()
                .disableAuthCaching()
                .build();
    }

    /**
     * The emulator's answer to a forwarded request: its status, headers (names as sent, looked up
     * without regard to case) and whole body (empty, never null, when it sent none).
     */
    record Answer(int statusCode, HttpHeaders headers, byte[] body) {}

    /** Replies with the emulator's answer (503 when there was none: the emulator is not started). */
    void reply(HttpExchange exchange, GateRequest request, Answer response) throws IOException {
        if (response == null) {
            send(exchange, 503, "text/plain", "the emulator is not started".getBytes(StandardCharsets.UTF_8), Map.of());
            return;
        }
        Headers out = exchange.getResponseHeaders();
        response.headers().map().forEach((name, values) -> {
            String lower = name.toLowerCase(Locale.ROOT);
            if (!HOP_BY_HOP.contains(lower) && !lower.equals("date") && !lower.equals(":status")) {
                out.put(name, values);
            }
        });
        int status = response.statusCode();
        byte[] bytes = response.body();
        boolean head = request.method().equalsIgnoreCase("HEAD");
        if (head || status == 204 || status == 304) {
            response.headers()
                    .firstValue("content-length")
                    .filter(ignored -> head)
                    .ifPresent(length -> out.set("Content-Length", length));
            exchange.sendResponseHeaders(status, -1);
            return;
        }
        exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
        if (bytes.length > 0) {
            try (OutputStream os = exchange.getResponseBody()) {
                os.write(bytes);
            }
        }
    }

    /** Answers with a body the gate made (a merged partial failure). */
    void answer(HttpExchange exchange, int status, String contentType, byte[] body) throws IOException {
        send(
                exchange,
                status,
                contentType,
                body,
                Map.of("x-amzn-RequestId", UUID.randomUUID().toString()));
    }

    /** Remembers the stream of each shard iterator handed out (GetRecords names only its iterator). */
    private void rememberIterators(ServiceCall call, GateRequest request, byte[] body) {
        if (!call.operation().equals("GetShardIterator") && !call.operation().equals("GetRecords")) {
            return;
        }
        String stream = call.requests().get(0).resource();
        String type = request.header("content-type");
        ObjectMapper mapper = type != null && type.contains("cbor") ? RequestMapper.CBOR : RequestMapper.JSON;
        try (JsonParser parser = mapper.getFactory().createParser(body)) {
            int depth = 0;
            JsonToken token;
            while ((token = parser.nextToken()) != null) {
                if (token == JsonToken.START_OBJECT || token == JsonToken.START_ARRAY) {
                    depth++;
                } else if (token == JsonToken.END_OBJECT || token == JsonToken.END_ARRAY) {
                    depth--;
                } else if (token == JsonToken.FIELD_NAME && depth == 1) {
                    String name = parser.currentName();
                    JsonToken value = parser.nextToken();
                    if ((name.equals("ShardIterator") || name.equals("NextShardIterator"))
                            && value == JsonToken.VALUE_STRING) {
                        iteratorStreams.put(parser.getText(), stream);
                    } else if (value == JsonToken.START_OBJECT || value == JsonToken.START_ARRAY) {
                        parser.skipChildren();
                    }
                }
            }
        } catch (IOException e) {
            LOG.debug("could not read the iterators of a {} response", call.operation(), e);
        }
    }

    // ---- denials -------------------------------------------------------------------------------

    private void deny(HttpExchange exchange, GateRequest request, Decision decision) throws IOException {
        String requestId = UUID.randomUUID().toString();
        switch (service) {
            case S3 -> denyS3(exchange, request, decision, requestId);
            case SQS -> denySqs(exchange, request, decision, requestId);
            case KINESIS -> denyJson(exchange, request, decision, requestId, "application/x-amz-json-1.1", "");
            case DYNAMODB ->
                denyJson(
                        exchange,
                        request,
                        decision,
                        requestId,
                        "application/x-amz-json-1.0",
                        "com.amazon.coral.service#");
        }
    }

    private void denyJson(
            HttpExchange exchange,
            GateRequest request,
            Decision decision,
            String requestId,
            String contentType,
            String typePrefix)
            throws IOException {
        String type;
        String message;
        if (decision instanceof Decision.Denied denied) {
            message = denied.message();
            type = denied.kms() && service == AwsService.KINESIS ? "KMSAccessDeniedException" : "AccessDeniedException";
            if (denied.kms() && service == AwsService.KINESIS) {
                message = message + " (Service: AWSKMS; Status Code: 400; Error Code: AccessDeniedException)";
            }
        } else if (decision instanceof Decision.BadSignature bad) {
            type = switch (bad.failure()) {
                case INCOMPLETE, UNSUPPORTED -> "IncompleteSignatureException";
                default -> "InvalidSignatureException";
            };
            message = bad.message();
        } else if (decision instanceof Decision.UnknownKey unknown && unknown.accessKeyId() == null) {
            type = "MissingAuthenticationTokenException";
            message = "Missing Authentication Token";
        } else {
            type = "UnrecognizedClientException";
            message = "The security token included in the request is invalid.";
        }
        jsonError(exchange, request, requestId, contentType, typePrefix, type, message);
    }

    /** Answers a Kinesis request with a 400 error of the given type (JSON or CBOR as asked). */
    void answerJsonError(HttpExchange exchange, GateRequest request, String type, String message) throws IOException {
        jsonError(exchange, request, UUID.randomUUID().toString(), "application/x-amz-json-1.1", "", type, message);
    }

    private static void jsonError(
            HttpExchange exchange,
            GateRequest request,
            String requestId,
            String contentType,
            String typePrefix,
            String type,
            String message)
            throws IOException {
        ObjectNode error = RequestMapper.JSON.createObjectNode();
        error.put("__type", typePrefix + type);
        error.put("message", message);
        String requestType = request.header("content-type");
        boolean cbor = requestType != null && requestType.contains("cbor");
        byte[] bytes = cbor ? RequestMapper.CBOR.writeValueAsBytes(error) : RequestMapper.JSON.writeValueAsBytes(error);
        send(
                exchange,
                400,
                cbor ? "application/x-amz-cbor-1.1" : contentType,
                bytes,
                Map.of("x-amzn-RequestId", requestId, "x-amzn-ErrorType", type));
    }

    private void denySqs(HttpExchange exchange, GateRequest request, Decision decision, String requestId)
            throws IOException {
        String code;
        String jsonType;
        String message;
        int status;
        if (decision instanceof Decision.Denied denied) {
            message = denied.message();
            if (denied.kms()) {
                code = "KMS.AccessDeniedException";
                jsonType = "com.amazonaws.sqs#KmsAccessDenied";
                status = 400;
            } else {
                code = "AccessDenied";
                jsonType = "com.amazon.coral.service#AccessDeniedException";
                status = 403;
            }
        } else if (decision instanceof Decision.BadSignature bad) {
            boolean incomplete = bad.failure() == SignatureVerifier.Failure.INCOMPLETE
                    || bad.failure() == SignatureVerifier.Failure.UNSUPPORTED;
            code = incomplete ? "IncompleteSignature" : "SignatureDoesNotMatch";
            jsonType = "com.amazon.coral.service#"
                    + (incomplete ? "IncompleteSignatureException" : "SignatureDoesNotMatch");
            message = bad.message();
            status = incomplete ? 400 : 403;
            // SQS answers a refused signature 403 in both protocols
            sqsError(exchange, request, requestId, status, code, jsonType, message, true);
            return;
        } else if (decision instanceof Decision.UnknownKey unknown && unknown.accessKeyId() == null) {
            code = "MissingAuthenticationToken";
            jsonType = "com.amazon.coral.service#MissingAuthenticationTokenException";
            message = "Request is missing Authentication Token";
            status = 403;
        } else {
            code = "InvalidClientTokenId";
            jsonType = "com.amazon.coral.service#InvalidClientTokenId";
            message = "The security token included in the request is invalid.";
            status = 403;
        }
        sqsError(exchange, request, requestId, status, code, jsonType, message, false);
    }

    /**
     * Answers an SQS request with a sender's error as SQS gives it: 400, JSON ({@code __type} and the
     * {@code x-amzn-query-error} code the SDK reads) or query-protocol XML, as the request was.
     */
    void answerSqsError(HttpExchange exchange, GateRequest request, String code, String jsonType, String message)
            throws IOException {
        sqsError(exchange, request, UUID.randomUUID().toString(), 400, code, jsonType, message, false);
    }

    private static void sqsError(
            HttpExchange exchange,
            GateRequest request,
            String requestId,
            int status,
            String code,
            String jsonType,
            String message,
            boolean keepStatus)
            throws IOException {
        if (request.header("x-amz-target") != null) {
            ObjectNode error = RequestMapper.JSON.createObjectNode();
            error.put("__type", jsonType);
            error.put("message", message);
            send(
                    exchange,
                    status == 403 && !keepStatus ? 400 : status,
                    "application/x-amz-json-1.0",
                    RequestMapper.JSON.writeValueAsBytes(error),
                    Map.of("x-amzn-RequestId", requestId, "x-amzn-query-error", code + ";Sender"));
            return;
        }
        String xml = "<?xml version=\"1.0\"?><ErrorResponse xmlns=\"http://queue.amazonaws.com/doc/2012-11-05/\">"
                + "<Error><Type>Sender</Type><Code>" + code + "</Code><Message>" + escape(message)
                + "</Message><Detail/></Error><RequestId>" + requestId + "</RequestId></ErrorResponse>";
        send(exchange, status, "text/xml", xml.getBytes(StandardCharsets.UTF_8), Map.of("x-amzn-RequestId", requestId));
    }

    private void denyS3(HttpExchange exchange, GateRequest request, Decision decision, String requestId)
            throws IOException {
        String code;
        String message;
        String extra = "";
        int status = 403;
        if (decision instanceof Decision.Denied denied) {
            code = "AccessDenied";
            message = denied.message();
        } else if (decision instanceof Decision.BadSignature bad) {
            message = bad.message();
            String key = bad.accessKeyId() == null ? "" : escape(bad.accessKeyId());
            switch (bad.failure()) {
                case EXPIRED -> {
                    code = "RequestTimeTooSkewed";
                    message = "The difference between the request time and the current time is too large.";
                    extra = "<RequestTime>" + escape(String.valueOf(request.header("x-amz-date"))) + "</RequestTime>"
                            + "<ServerTime>" + java.time.Instant.now() + "</ServerTime>"
                            + "<MaxAllowedSkewMilliseconds>900000</MaxAllowedSkewMilliseconds>";
                }
                case CONTENT_SHA256_MISMATCH -> {
                    code = "XAmzContentSHA256Mismatch";
                    status = 400;
                    extra = "<ClientComputedContentSHA256>"
                            + escape(String.valueOf(request.header("x-amz-content-sha256")))
                            + "</ClientComputedContentSHA256><S3ComputedContentSHA256>"
                            + SignatureVerifier.sha256Hex(request.body()) + "</S3ComputedContentSHA256>";
                }
                case INCOMPLETE -> {
                    code = "AuthorizationHeaderMalformed";
                    status = 400;
                }
                case UNSUPPORTED -> {
                    code = "InvalidRequest";
                    status = 400;
                }
                default -> {
                    code = "SignatureDoesNotMatch";
                    extra = "<AWSAccessKeyId>" + key + "</AWSAccessKeyId>";
                }
            }
        } else {
            code = "InvalidAccessKeyId";
            message = "The AWS Access Key Id you provided does not exist in our records.";
            String key = decision instanceof Decision.UnknownKey u ? u.accessKeyId() : null;
            if (key == null) {
                code = "AccessDenied";
                message = "Access Denied";
            } else {
                extra = "<AWSAccessKeyId>" + escape(key) + "</AWSAccessKeyId>";
            }
        }
        String xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>" + code + "</Code><Message>"
                + escape(message) + "</Message>" + extra + "<RequestId>" + requestId + "</RequestId><HostId>"
                + requestId + "</HostId></Error>";
        byte[] bytes = xml.getBytes(StandardCharsets.UTF_8);
        if (exchange.getRequestMethod().equalsIgnoreCase("HEAD")) {
            exchange.getResponseHeaders().set("x-amz-request-id", requestId);
            exchange.sendResponseHeaders(status, -1);
            return;
        }
        send(
                exchange,
                status,
                "application/xml",
                bytes,
                Map.of("x-amz-request-id", requestId, "x-amz-id-2", requestId));
    }

    private static void send(HttpExchange exchange, int status, String type, byte[] body, Map<String, String> headers)
            throws IOException {
        exchange.getResponseHeaders().set("Content-Type", type);
        headers.forEach((name, value) -> exchange.getResponseHeaders().set(name, value));
        exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
        if (body.length > 0) {
            try (OutputStream os = exchange.getResponseBody()) {
                os.write(body);
            }
        }
    }

    private static String escape(String text) {
        return text.replace("&", "&amp;")
                .replace("<", "&lt;")
                .replace(">", "&gt;")
                .replace("\"", "&quot;");
    }

    /** The region the gate's ARNs name. */
    public String region() {
        return region;
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
        try {
            client.close();
        } catch (IOException e) {
            LOG.debug("closing the {} gate's forwarding client failed", service, e);
        }
    }
}
