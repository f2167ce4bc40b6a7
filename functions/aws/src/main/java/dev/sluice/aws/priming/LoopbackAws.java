package dev.sluice.aws.priming;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.cbor.databind.CBORMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * An HTTP server on the loopback interface that answers the calls priming sends as the AWS services
 * would in shape (status, content type, the headers the SDK reads, a body its unmarshaller accepts),
 * so that the stage's real HTTP client goes through its whole request path before a snapshot or a
 * first lease: a connection from its pool, the request line, headers and body written, the response
 * read and parsed. Plain HTTP: the TLS handshake of the first call to AWS is not primed (it needs a
 * certificate the client trusts).
 *
 * <p>JSON protocols (DynamoDB, Kinesis, SQS, Secrets Manager) are told apart by {@code X-Amz-Target},
 * and answered in CBOR when the request is CBOR (the Kinesis client's default); anything else is
 * taken as S3 REST ({@code PUT} answers {@code 200} with an {@code ETag}).
 */
public final class LoopbackAws implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ObjectMapper CBOR = new CBORMapper();

    /** The content type of the SDK's CBOR protocol, which its Kinesis client speaks by default. */
    public static final String CBOR_TYPE = "application/x-amz-cbor-1.1";

    /** Whether a request with this {@code Content-Type} speaks CBOR (else JSON). */
    public static boolean isCbor(String contentType) {
        return CBOR_TYPE.equals(contentType);
    }

    /**
     * The mapper that reads and writes a JSON protocol's bodies in the encoding a request used: CBOR
     * (blobs as byte strings, which {@code JsonNode.binaryValue()} reads as it reads JSON's base64)
     * or JSON. For loopback servers that answer the SDK as AWS would, here and in the benchmarks' stub.
     */
    public static ObjectMapper protocolMapper(boolean cbor) {
        return cbor ? CBOR : JSON;
    }

    private final HttpServer server;
    private final ExecutorService executor;
    private final List<String> answered = new ArrayList<>();

    private LoopbackAws(HttpServer server, ExecutorService executor) {
        this.server = server;
        this.executor = executor;
    }

    /** Starts a server on an ephemeral port of 127.0.0.1. */
    public static LoopbackAws start() {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "sluice-priming-loopback");
                t.setDaemon(true);
                return t;
            });
            LoopbackAws loopback = new LoopbackAws(server, executor);
            server.createContext("/", loopback::answer);
            server.setExecutor(executor);
            server.start();
            return loopback;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open a loopback port for priming", e);
        }
    }

    /** Where the priming clients send their calls. */
    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    /** The calls answered so far, as {@code X-Amz-Target} or {@code S3 METHOD}, in order. */
    public synchronized List<String> answered() {
        return List.copyOf(answered);
    }

    private void answer(HttpExchange exchange) throws IOException {
        try (exchange;
                InputStream body = exchange.getRequestBody()) {
            body.readAllBytes();
            String target = exchange.getRequestHeaders().getFirst("X-Amz-Target");
            String call = target != null ? target : "S3 " + exchange.getRequestMethod();
            synchronized (this) {
                answered.add(call);
            }
            exchange.getResponseHeaders().add("x-amzn-RequestId", "priming");
            if (target == null) {
                exchange.getResponseHeaders().add("x-amz-request-id", "priming");
                exchange.getResponseHeaders().add("ETag", "\"priming\"");
                exchange.sendResponseHeaders(200, -1);
                return;
            }
            // the Kinesis client speaks CBOR unless told not to: answer in the protocol asked
            boolean cbor = isCbor(exchange.getRequestHeaders().getFirst("Content-Type"));
            Object answer = JSON.readValue(jsonAnswer(target), Object.class);
            byte[] bytes = protocolMapper(cbor).writeValueAsBytes(answer);
            exchange.getResponseHeaders().add("Content-Type", cbor ? CBOR_TYPE : contentType(target));
            exchange.sendResponseHeaders(200, bytes.length);
            exchange.getResponseBody().write(bytes);
        }
    }

    /** The smallest answer each operation's unmarshaller reads without an error. */
    private static String jsonAnswer(String target) {
        return switch (target) {
            case "Kinesis_20131202.PutRecords" ->
                "{\"FailedRecordCount\":0,\"Records\":[{\"SequenceNumber\":"
                        + "\"49000000000000000000000000000000000000000000000000000001\",\"ShardId\":"
                        + "\"shardId-000000000000\"}]}";
            case "AmazonSQS.SendMessageBatch" -> "{\"Successful\":[],\"Failed\":[]}";
            case "secretsmanager.GetSecretValue" ->
                "{\"ARN\":\"arn:aws:secretsmanager:us-east-1:000000000000:secret:"
                        + "priming-AbCdEf\",\"Name\":\"priming\",\"SecretString\":\"priming\"}";
            default -> "{}";
        };
    }

    private static String contentType(String target) {
        String service = target.substring(0, Math.max(0, target.indexOf('.'))).toLowerCase(Locale.ROOT);
        // DynamoDB and SQS speak JSON 1.0, Kinesis and Secrets Manager 1.1
        return service.startsWith("dynamodb") || service.equals("amazonsqs")
                ? "application/x-amz-json-1.0"
                : "application/x-amz-json-1.1";
    }

    /** Stops the server at once: nothing it served stays open across a snapshot. */
    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
