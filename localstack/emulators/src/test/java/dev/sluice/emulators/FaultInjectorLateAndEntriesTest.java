package dev.sluice.emulators;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.PutRecordsRequestEntry;
import software.amazon.awssdk.services.kinesis.model.PutRecordsResponse;

/**
 * The two faults that let a request through changed: a late call (held until released, then sent and
 * answered to nobody) and a partly failed {@code PutRecords} (refused entries never reach the
 * service). A small HTTP service records what really arrives.
 */
class FaultInjectorLateAndEntriesTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final FaultInjector faults = new FaultInjector();
    private final List<JsonNode> received = new CopyOnWriteArrayList<>();
    private HttpServer server;

    @BeforeEach
    void serve() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            JsonNode body = JSON.readTree(exchange.getRequestBody().readAllBytes());
            received.add(body);
            ObjectNode answer = JSON.createObjectNode();
            if (body.has("Records")) {
                answer.put("FailedRecordCount", 0);
                ArrayNode records = answer.putArray("Records");
                for (int i = 0; i < body.get("Records").size(); i++) {
                    records.addObject()
                            .put("SequenceNumber", Integer.toString(received.size() * 1000 + i))
                            .put("ShardId", "shardId-000000000000");
                }
            }
            byte[] bytes = answer.toString().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/x-amz-json-1.1");
            exchange.sendResponseHeaders(200, bytes.length);
            exchange.getResponseBody().write(bytes);
            exchange.close();
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    @Test
    void aLateCallIsSentOnlyOnceReleasedAndItsCallerNeverSeesTheAnswer() {
        AtomicBoolean release = new AtomicBoolean();
        faults.late("PutItem", "orders", 2, () -> release::get, Duration.ofSeconds(30));
        try (DynamoDbClient dynamoDb = DynamoDbClient.builder()
                .endpointOverride(endpoint())
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .httpClient(UrlConnectionHttpClient.create())
                .overrideConfiguration(
                        c -> c.addExecutionInterceptor(faults).retryStrategy(AwsRetryStrategy.doNotRetry()))
                .build()) {
            dynamoDb.putItem(b -> b.tableName("orders").item(Map.of("pk", AttributeValue.fromS("first"))));
            CompletableFuture<Void> late = CompletableFuture.runAsync(() ->
                    dynamoDb.putItem(b -> b.tableName("orders").item(Map.of("pk", AttributeValue.fromS("late")))));
            Awaitility.await().until(() -> faults.calls("PutItem@orders") == 2); // the late call is held
            dynamoDb.putItem(b -> b.tableName("orders").item(Map.of("pk", AttributeValue.fromS("overtaking"))));

            assertThat(received).extracting(r -> r.at("/Item/pk/S").asText()).containsExactly("first", "overtaking");
            assertThat(faults.fired()).isEmpty();

            release.set(true);

            assertThatThrownBy(late::join).hasCauseInstanceOf(FaultInjector.InjectedCrash.class);
            assertThat(received)
                    .extracting(r -> r.at("/Item/pk/S").asText())
                    .containsExactly("first", "overtaking", "late");
            assertThat(faults.fired()).extracting(FaultInjector.Rule::fault).containsExactly(FaultInjector.Fault.LATE);
        }
    }

    @Test
    void refusedEntriesNeverReachTheStreamAndComeBackAsFailedEntries() {
        System.setProperty("aws.cborEnabled", "false");
        faults.failEntries("clicks", 1, 3);
        try (KinesisClient kinesis = KinesisClient.builder()
                .endpointOverride(endpoint())
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .httpClient(UrlConnectionHttpClient.create())
                .overrideConfiguration(c -> c.addExecutionInterceptor(faults))
                .build()) {
            List<PutRecordsRequestEntry> entries = IntStream.range(0, 7)
                    .mapToObj(i -> PutRecordsRequestEntry.builder()
                            .partitionKey("k" + i)
                            .data(SdkBytes.fromUtf8String("e" + i))
                            .build())
                    .toList();

            PutRecordsResponse first =
                    kinesis.putRecords(b -> b.streamName("clicks").records(entries));
            PutRecordsResponse second =
                    kinesis.putRecords(b -> b.streamName("clicks").records(entries));

            assertThat(first.failedRecordCount()).isEqualTo(3);
            assertThat(first.records()).hasSize(7);
            assertThat(first.records())
                    .extracting(r -> r.errorCode() != null)
                    .containsExactly(true, false, false, true, false, false, true);
            assertThat(first.records().get(0).errorCode()).isEqualTo("ProvisionedThroughputExceededException");
            assertThat(first.records().get(3).errorCode()).isEqualTo("InternalFailure");
            assertThat(first.records().get(1).sequenceNumber()).isNotNull();
            assertThat(received.get(0).get("Records"))
                    .extracting(r -> r.get("PartitionKey").asText())
                    .containsExactly("k1", "k2", "k4", "k5");
            assertThat(second.failedRecordCount()).isZero();
            assertThat(received.get(1).get("Records")).hasSize(7);
            assertThat(faults.failedEntries()).isEqualTo(3);
            assertThat(faults.fired())
                    .extracting(FaultInjector.Rule::fault)
                    .containsExactly(FaultInjector.Fault.ENTRIES_FAILED);
        } finally {
            System.clearProperty("aws.cborEnabled");
        }
    }
}
