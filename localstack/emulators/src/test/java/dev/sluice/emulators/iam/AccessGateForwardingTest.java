package dev.sluice.emulators.iam;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What an allowed request and its answer look like on the far side of the gate: the emulator gets
 * the caller's method, path, query, headers and body as they were sent, exactly once, with nothing
 * added that could change its answer (no {@code Accept-Encoding}, no retry); the caller gets the
 * emulator's status, headers and body as the emulator gave them.
 */
class AccessGateForwardingTest {

    private static final String KEY = "AKIAEXAMPLEPRINCIPAL";
    private static final String TARGET = "DynamoDB_20120810.PutItem";

    /** A request as the emulator saw it. */
    private record Seen(String method, String uri, Map<String, List<String>> headers, byte[] body) {}

    private final List<Seen> seen = new CopyOnWriteArrayList<>();
    private final AtomicInteger dropped = new AtomicInteger();
    private HttpServer emulator;
    private AccessGate gate;

    @BeforeEach
    void start() throws IOException {
        emulator = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        emulator.createContext("/", this::answer);
        emulator.start();
        AccessControl control = new AccessControl("admin");
        control.authorizer((key, call) -> Decision.ALLOWED);
        gate = AccessGate.bind(AwsService.DYNAMODB, "us-east-1", "000000000000", control);
        gate.backendPort(emulator.getAddress().getPort());
    }

    @AfterEach
    void stop() {
        gate.close();
        emulator.stop(0);
    }

    /** The emulator: records the request; answers as the path says. */
    private void answer(HttpExchange exchange) throws IOException {
        try (exchange;
                InputStream in = exchange.getRequestBody()) {
            byte[] body = in.readAllBytes();
            seen.add(new Seen(
                    exchange.getRequestMethod(),
                    exchange.getRequestURI().toString(),
                    Map.copyOf(exchange.getRequestHeaders()),
                    body));
            String path = exchange.getRequestURI().getPath();
            if (path.equals("/drop")) {
                dropped.incrementAndGet();
                throw new IOException("the emulator drops the connection unanswered");
            }
            if (path.equals("/empty")) {
                exchange.getResponseHeaders().add("x-amzn-RequestId", "r-204");
                exchange.sendResponseHeaders(204, -1);
                return;
            }
            byte[] answer = "{\"__type\":\"com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException\"}"
                    .getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/x-amz-json-1.0");
            exchange.getResponseHeaders().add("x-amz-crc32", "12345");
            exchange.getResponseHeaders().add("x-multi", "one");
            exchange.getResponseHeaders().add("x-multi", "two");
            exchange.sendResponseHeaders(400, answer.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(answer);
            }
        }
    }

    private HttpURLConnection post(String pathAndQuery, byte[] body) throws IOException {
        return send("POST", pathAndQuery, body);
    }

    private HttpURLConnection send(String method, String pathAndQuery, byte[] body) throws IOException {
        HttpURLConnection connection = (HttpURLConnection) URI.create("http://127.0.0.1:" + gate.port() + pathAndQuery)
                .toURL()
                .openConnection();
        connection.setRequestMethod(method);
        connection.setRequestProperty("Content-Type", "application/x-amz-json-1.0");
        connection.setRequestProperty("X-Amz-Target", TARGET);
        connection.setRequestProperty("X-Amz-Date", "20261202T120000Z");
        connection.setRequestProperty(
                "Authorization",
                "AWS4-HMAC-SHA256 Credential=" + KEY + "/20261202/us-east-1/dynamodb/aws4_request,"
                        + " SignedHeaders=host;x-amz-date;x-amz-target, Signature=abc");
        connection.setDoOutput(true);
        connection.setFixedLengthStreamingMode(body.length);
        try (OutputStream out = connection.getOutputStream()) {
            out.write(body);
        }
        return connection;
    }

    @Test
    void anAllowedRequestReachesTheEmulatorAsSentAndItsAnswerReachesTheCallerAsGiven() throws IOException {
        byte[] body =
                "{\"TableName\":\"payments-by-id\",\"Item\":{\"id\":{\"S\":\"é1\"}}}".getBytes(StandardCharsets.UTF_8);

        HttpURLConnection connection = post("/some/path?a=b%20c&d", body);

        assertThat(connection.getResponseCode()).isEqualTo(400);
        assertThat(connection.getHeaderField("Content-Type")).isEqualTo("application/x-amz-json-1.0");
        assertThat(connection.getHeaderField("x-amz-crc32")).isEqualTo("12345");
        assertThat(connection.getHeaderFields().entrySet().stream()
                        .filter(header -> "x-multi".equalsIgnoreCase(header.getKey()))
                        .flatMap(header -> header.getValue().stream()))
                .containsExactlyInAnyOrder("one", "two");
        try (InputStream error = connection.getErrorStream()) {
            assertThat(new String(error.readAllBytes(), StandardCharsets.UTF_8))
                    .isEqualTo("{\"__type\":\"com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException\"}");
        }

        assertThat(seen).hasSize(1);
        Seen request = seen.get(0);
        assertThat(request.method()).isEqualTo("POST");
        assertThat(request.uri()).isEqualTo("/some/path?a=b%20c&d");
        assertThat(request.body()).isEqualTo(body);
        assertThat(request.headers().get("Content-type")).containsExactly("application/x-amz-json-1.0");
        assertThat(request.headers().get("X-amz-target")).containsExactly(TARGET);
        assertThat(request.headers().get("Authorization").get(0)).contains("Credential=" + KEY + "/");
        assertThat(request.headers().get("Content-length")).containsExactly(Integer.toString(body.length));
        assertThat(request.headers())
                .as("nothing that asks the emulator for another encoding of its answer")
                .doesNotContainKeys("Accept-encoding", "Te", "Expect");
    }

    @Test
    void anEmptyAnswerStaysEmptyAndAnEmptyBodyIsSentWithItsLength() throws IOException {
        HttpURLConnection connection = post("/empty", new byte[0]);

        assertThat(connection.getResponseCode()).isEqualTo(204);
        assertThat(connection.getHeaderField("x-amzn-RequestId")).isEqualTo("r-204");
        assertThat(seen).hasSize(1);
        assertThat(seen.get(0).body()).isEmpty();
        assertThat(seen.get(0).headers().get("Content-length")).containsExactly("0");
    }

    @Test
    void aRequestTheEmulatorLeavesUnansweredIsNotSentAgain() throws IOException {
        // a PUT (S3's PutObject): HTTP calls it idempotent, and a client that retries would send it again
        HttpURLConnection connection = send("PUT", "/drop", "{\"TableName\":\"t\"}".getBytes(StandardCharsets.UTF_8));

        try {
            connection.getResponseCode();
        } catch (IOException expected) {
            // the gate drops the caller's connection too
        }
        assertThat(dropped)
                .as("the emulator saw the request once: a retry could apply a write twice")
                .hasValue(1);
    }
}
