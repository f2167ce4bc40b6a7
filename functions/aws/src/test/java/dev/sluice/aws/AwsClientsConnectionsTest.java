package dev.sluice.aws;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The functions' shared HTTP client against a local HTTP server that answers every DynamoDB call
 * with an empty item: what it opens, what it keeps, and which client it is. The server tells the
 * connections apart by their client ports.
 */
class AwsClientsConnectionsTest {

    private static final int WRITERS = 8;

    private HttpServer server;
    private final Set<Integer> clientPorts = ConcurrentHashMap.newKeySet();
    private final AtomicInteger calls = new AtomicInteger();

    @BeforeEach
    void serve() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
        server.setExecutor(Executors.newFixedThreadPool(WRITERS * 2));
        server.createContext("/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            clientPorts.add(exchange.getRemoteAddress().getPort());
            calls.incrementAndGet();
            byte[] body = "{}".getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/x-amz-json-1.0");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private AwsClients clients() {
        return new AwsClients(Map.of(
                "AWS_REGION", "eu-west-1",
                "AWS_ACCESS_KEY_ID", "AKIAEXAMPLE",
                "AWS_SECRET_ACCESS_KEY", "secret",
                "AWS_ENDPOINT_URL_DYNAMODB",
                        "http://127.0.0.1:" + server.getAddress().getPort()));
    }

    /** Each of {@link #WRITERS} threads puts {@code each} items, all threads starting together. */
    private void putConcurrently(DynamoDbClient dynamoDb, int each) throws Exception {
        ExecutorService writers = Executors.newFixedThreadPool(WRITERS);
        try {
            CyclicBarrier start = new CyclicBarrier(WRITERS);
            List<Future<?>> done = new ArrayList<>();
            for (int w = 0; w < WRITERS; w++) {
                int writer = w;
                done.add(writers.submit(() -> {
                    start.await();
                    for (int i = 0; i < each; i++) {
                        String key = writer + "-" + i;
                        dynamoDb.putItem(b -> b.tableName("t").item(Map.of("pk", AttributeValue.fromS(key))));
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            writers.shutdownNow();
        }
    }

    @Test
    void theTableSinksEightWritersKeepTheirConnectionsFromOneBatchToTheNext() throws Exception {
        try (AwsClients clients = clients();
                DynamoDbClient dynamoDb = clients.dynamoDb()) {
            putConcurrently(dynamoDb, 10);
            Set<Integer> firstBatch = Set.copyOf(clientPorts);
            putConcurrently(dynamoDb, 10);
            putConcurrently(dynamoDb, 10);

            assertThat(calls).hasValue(3 * WRITERS * 10);
            assertThat(firstBatch)
                    .as("one connection per concurrent writer at most")
                    .hasSizeLessThanOrEqualTo(WRITERS);
            assertThat(clientPorts)
                    .as("the next batches reuse the first batch's connections, none is closed and reopened")
                    .isEqualTo(firstBatch);
        }
    }

    @Test
    void theClientIsTheSdksApacheFiveClientNotTheJdksUrlConnection() {
        // the JDK's URL connection waits a millisecond before every POST on a kept-alive connection
        // (AwsClients' class comment); going back to it is a decision to measure first
        try (var http = AwsClients.httpClient()) {
            assertThat(http.clientName()).isEqualTo("Apache5");
        }
    }
}
