package dev.sluice.emulators.iam;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;

/**
 * The gate's partition hook as a worker's SDK client sees it: a cut key's requests to the cut table
 * get no answer (reset at once, or held until the cut heals) and never reach the authorizer or the
 * emulator, while other keys and other tables go through.
 */
class AccessGatePartitionTest {

    private static final String REGION = "us-east-1";
    private static final String ACCOUNT = "000000000000";
    private static final String CUT_KEY = "ASIACUTWORKER0000001";
    private static final String OTHER_KEY = "ASIAOTHERWORKER00002";
    private static final String LEASES = "arn:aws:dynamodb:us-east-1:000000000000:table/leases";

    private final AccessControl control = new AccessControl("admin");
    private final List<String> authorized = new CopyOnWriteArrayList<>();
    private AccessGate gate;
    private final List<DynamoDbClient> clients = new CopyOnWriteArrayList<>();

    @AfterEach
    void close() {
        clients.forEach(DynamoDbClient::close);
        if (gate != null) {
            gate.close();
        }
    }

    private DynamoDbClient client(String key) {
        if (gate == null) {
            control.authorizer((k, call) -> {
                authorized.add(k + " " + call.operation());
                return new Decision.Allowed();
            });
            gate = AccessGate.bind(AwsService.DYNAMODB, REGION, ACCOUNT, control);
        }
        DynamoDbClient client = DynamoDbClient.builder()
                .region(Region.of(REGION))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(key, "secret")))
                .endpointOverride(URI.create("http://127.0.0.1:" + gate.port()))
                .httpClientBuilder(UrlConnectionHttpClient.builder())
                .overrideConfiguration(o -> o.retryStrategy(r -> r.maxAttempts(1)))
                .build();
        clients.add(client);
        return client;
    }

    private static void getLease(DynamoDbClient client) {
        client.getItem(b -> b.tableName("leases").key(Map.of("leaseKey", AttributeValue.fromS("shard-0"))));
    }

    private static boolean touchesLeases(ServiceCall call) {
        return call.requests().stream().anyMatch(r -> r.resource().equals(LEASES));
    }

    @Test
    void aResetCutDropsTheCutKeysRequestsUnansweredAndLetsOthersThrough() throws Exception {
        DynamoDbClient cut = client(CUT_KEY);
        DynamoDbClient other = client(OTHER_KEY);
        AutoCloseable partition = control.cut(CUT_KEY, AccessGatePartitionTest::touchesLeases, Duration.ZERO);

        // no answer at all: a client-side failure, not an error the service sent
        assertThatThrownBy(() -> getLease(cut))
                .isInstanceOf(SdkClientException.class)
                .isNotInstanceOf(DynamoDbException.class);
        // another key, and the cut key's calls on other tables, reach the authorizer (and the
        // emulator, absent here: 503)
        assertThatThrownBy(() -> getLease(other)).isInstanceOf(DynamoDbException.class);
        assertThatThrownBy(() -> cut.getItem(b -> b.tableName("views").key(Map.of("pk", AttributeValue.fromS("p")))))
                .isInstanceOf(DynamoDbException.class);
        assertThat(authorized).containsExactly(OTHER_KEY + " GetItem", CUT_KEY + " GetItem");

        partition.close();
        assertThatThrownBy(() -> getLease(cut)).isInstanceOf(DynamoDbException.class);
        assertThat(authorized).hasSize(3);
    }

    /**
     * The dropped connection is what a late write looks like: the JDK's HTTP client sends a POST
     * whose reused connection closed unanswered once more, so the held request may reach the service
     * after the heal — never while the cut lasts.
     */
    @Test
    void aBlackHoledRequestIsHeldUntilTheCutHealsThenDroppedAndReachesTheServiceOnlyWhenSentAgain() throws Exception {
        DynamoDbClient cut = client(CUT_KEY);
        AutoCloseable partition = control.cut(CUT_KEY, AccessGatePartitionTest::touchesLeases);
        CompletableFuture<Throwable> held = CompletableFuture.supplyAsync(() -> {
            try {
                getLease(cut);
                return null;
            } catch (RuntimeException e) {
                return e;
            }
        });

        // held unanswered while the cut lasts (the SDK's own read timeout is 30 s), never authorized
        Awaitility.await()
                .during(Duration.ofMillis(500))
                .atMost(Duration.ofSeconds(5))
                .until(() -> !held.isDone() && authorized.isEmpty());
        partition.close();

        // the held request was dropped unanswered; if the client sent it again, that went through
        // (503: no emulator here)
        Throwable outcome = held.get();
        if (outcome instanceof DynamoDbException) {
            assertThat(authorized).containsExactly(CUT_KEY + " GetItem");
        } else {
            assertThat(outcome).isInstanceOf(SdkClientException.class).hasMessageContaining("Unexpected end of file");
            assertThat(authorized).isEmpty();
        }
        assertThat(control.cutHold(
                        CUT_KEY,
                        new ServiceCall(
                                AwsService.DYNAMODB, "GetItem", List.of(AccessRequest.of("dynamodb:GetItem", LEASES)))))
                .isNull();
    }

    @Test
    void overlappingCutsHoldAsLongAsTheLongest() throws Exception {
        ServiceCall call =
                new ServiceCall(AwsService.DYNAMODB, "PutItem", List.of(AccessRequest.of("dynamodb:PutItem", LEASES)));
        try (AutoCloseable reset = control.cut(CUT_KEY, c -> true, Duration.ZERO)) {
            assertThat(control.cutHold(CUT_KEY, call)).isEqualTo(Duration.ZERO);
            try (AutoCloseable blackHole = control.cut(CUT_KEY, AccessGatePartitionTest::touchesLeases)) {
                assertThat(control.cutHold(CUT_KEY, call)).isEqualTo(AccessControl.BLACK_HOLE);
                assertThat(control.cutHold(OTHER_KEY, call)).isNull();
            }
            assertThat(control.cutHold(CUT_KEY, call)).isEqualTo(Duration.ZERO);
        }
        assertThat(control.isCut(CUT_KEY, call)).isFalse();
    }

    /**
     * A hold delays instead of dropping: the held request waits unanswered and unauthorized while
     * other keys go through; released, it reaches the authorizer and the emulator (absent here: the
     * gate answers 503 and records no answer) as if it had just arrived.
     */
    @Test
    void aHeldRequestWaitsUntilReleasedThenLandsWithItsAnswerRecorded() throws Exception {
        DynamoDbClient held = client(CUT_KEY);
        DynamoDbClient other = client(OTHER_KEY);
        AccessControl.Held hold = control.hold(CUT_KEY, AccessGatePartitionTest::touchesLeases, Duration.ofMinutes(1));
        CompletableFuture<Throwable> late = CompletableFuture.supplyAsync(() -> {
            try {
                getLease(held);
                return null;
            } catch (RuntimeException e) {
                return e;
            }
        });
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> hold.waiting() == 1);
        assertThatThrownBy(() -> getLease(other)).isInstanceOf(DynamoDbException.class);
        assertThat(authorized).containsExactly(OTHER_KEY + " GetItem");
        assertThat(late).isNotDone();
        assertThat(hold.landed()).isEmpty();

        hold.release();

        assertThat(late.get(10, java.util.concurrent.TimeUnit.SECONDS)).isInstanceOf(DynamoDbException.class);
        assertThat(authorized).containsExactly(OTHER_KEY + " GetItem", CUT_KEY + " GetItem");
        assertThat(hold.held()).isEqualTo(1);
        assertThat(hold.operations()).containsExactly("GetItem");
        assertThat(hold.landed()).singleElement().satisfies(landed -> {
            assertThat(landed.operation()).isEqualTo("GetItem");
            // no emulator behind this gate: it answered nothing (the gate's own 503 is not recorded)
            assertThat(landed.status()).isZero();
            assertThat(landed.applied()).isFalse();
        });
        // released for good: the key's next request is not held
        assertThatThrownBy(() -> getLease(held)).isInstanceOf(DynamoDbException.class);
        assertThat(hold.held()).isEqualTo(1);
    }

    @Test
    void aLateWritesRefusalIsReadFromTheServicesErrorShape() {
        java.net.http.HttpHeaders none = java.net.http.HttpHeaders.of(Map.of(), (a, b) -> true);
        byte[] dynamo =
                "{\"__type\":\"com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException\",\"message\":\"x\"}"
                        .getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] s3 = "<Error><Code>PreconditionFailed</Code></Error>".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        assertThat(AccessGate.errorCode(new AccessGate.Answer(400, none, dynamo)))
                .isEqualTo("ConditionalCheckFailedException");
        assertThat(AccessGate.errorCode(new AccessGate.Answer(412, none, s3))).isEqualTo("PreconditionFailed");
        assertThat(AccessGate.errorCode(new AccessGate.Answer(200, none, dynamo)))
                .isNull();
    }
}
