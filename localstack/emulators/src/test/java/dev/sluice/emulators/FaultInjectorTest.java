package dev.sluice.emulators;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.emulators.FaultInjector.Fault;
import java.net.URI;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;

/**
 * Faults struck before a request is sent, on a client whose endpoint nobody listens on: the fault,
 * not the network, decides what the caller sees.
 */
class FaultInjectorTest {

    private final FaultInjector faults = new FaultInjector();
    private DynamoDbClient client;

    @AfterEach
    void close() {
        if (client != null) {
            client.close();
        }
    }

    private DynamoDbClient client(FaultInjector injector) {
        client = DynamoDbClient.builder()
                .endpointOverride(URI.create("http://127.0.0.1:9"))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .httpClient(UrlConnectionHttpClient.create())
                .overrideConfiguration(
                        c -> c.addExecutionInterceptor(injector).retryStrategy(AwsRetryStrategy.doNotRetry()))
                .build();
        return client;
    }

    private static PutItemRequest put(String table) {
        return PutItemRequest.builder()
                .tableName(table)
                .item(Map.of("pk", AttributeValue.fromS("k")))
                .build();
    }

    @Test
    void faultsLookLikeTheServiceErrorsTheyStandFor() {
        faults.on("PutItem", "orders", 1, Fault.THROTTLED)
                .on("PutItem", "orders", 2, Fault.SERVER_ERROR)
                .on("PutItem", "orders", 3, Fault.REJECTED)
                .on("PutItem", "orders", 4, Fault.NOT_SENT);
        DynamoDbClient dynamoDb = client(faults);

        assertThatThrownBy(() -> dynamoDb.putItem(put("orders")))
                .isInstanceOfSatisfying(AwsServiceException.class, e -> {
                    assertThat(e.isThrottlingException()).isTrue();
                    assertThat(e.statusCode()).isEqualTo(400);
                });
        assertThatThrownBy(() -> dynamoDb.putItem(put("orders")))
                .isInstanceOfSatisfying(
                        AwsServiceException.class,
                        e -> assertThat(e.statusCode()).isEqualTo(500));
        assertThatThrownBy(() -> dynamoDb.putItem(put("orders")))
                .isInstanceOfSatisfying(AwsServiceException.class, e -> {
                    assertThat(e.statusCode()).isEqualTo(400);
                    assertThat(e.isThrottlingException()).isFalse();
                    assertThat(e.awsErrorDetails().errorCode()).isEqualTo("ValidationException");
                });
        assertThatThrownBy(() -> dynamoDb.putItem(put("orders")))
                .isInstanceOf(SdkClientException.class)
                .hasMessageContaining("injected fault: NOT_SENT on PutItem@orders call 4");
        assertThat(faults.fired())
                .extracting(FaultInjector.Rule::fault)
                .containsExactly(Fault.THROTTLED, Fault.SERVER_ERROR, Fault.REJECTED, Fault.NOT_SENT);
    }

    @Test
    void callsAreCountedPerResourceSoOtherTablesAreNotHit() {
        faults.on("PutItem", "orders", 2, Fault.THROTTLED);
        DynamoDbClient dynamoDb = client(faults);

        // calls to another table reach the (absent) network: a connection error, not the fault
        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(() -> dynamoDb.putItem(put("customers")))
                    .isInstanceOf(SdkClientException.class)
                    .hasMessageNotContaining("injected");
        }
        assertThatThrownBy(() -> dynamoDb.putItem(put("orders"))).hasMessageNotContaining("injected");
        assertThatThrownBy(() -> dynamoDb.putItem(put("orders"))).hasMessageContaining("injected fault: THROTTLED");

        assertThat(faults.calls("PutItem")).isEqualTo(5);
        assertThat(faults.fired())
                .singleElement()
                .isEqualTo(new FaultInjector.Rule("PutItem", "orders", 2, Fault.THROTTLED));
    }

    @Test
    void anInstalledInjectorReachesClientsBuiltWithoutIt() {
        faults.on("PutItem", "orders", 1, Fault.SERVER_ERROR);
        DynamoDbClient plain = client(new FaultInjector());

        try (GlobalFaults.Installation installed = faults.install()) {
            assertThatThrownBy(() -> plain.putItem(put("orders"))).hasMessageContaining("injected fault: SERVER_ERROR");
            assertThatThrownBy(() -> new FaultInjector().install())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("another fault injector is installed");
        }
        assertThatThrownBy(() -> plain.putItem(put("orders"))).hasMessageNotContaining("injected");
        assertThat(faults.fired()).hasSize(1);
    }
}
