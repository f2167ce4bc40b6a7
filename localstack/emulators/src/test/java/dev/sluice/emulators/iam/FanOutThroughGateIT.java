package dev.sluice.emulators.iam;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.emulators.LocalAws;
import dev.sluice.emulators.LocalAwsOptions;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.http.Protocol;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.services.kinesis.KinesisAsyncClient;
import software.amazon.awssdk.services.kinesis.model.KinesisException;
import software.amazon.awssdk.services.kinesis.model.ShardIteratorType;
import software.amazon.awssdk.services.kinesis.model.SubscribeToShardEvent;
import software.amazon.awssdk.services.kinesis.model.SubscribeToShardResponseHandler;

/**
 * Enhanced fan-out goes through the Kinesis gate: SubscribeToShard, as a fan-out KCL worker sends
 * it locally (the SDK's Netty client, HTTP/1.1 to the gate's plain endpoint), is signature-checked
 * and authorized like every other call, and its event stream is streamed through. A consumer whose
 * role lacks {@code kinesis:SubscribeToShard} is refused with AccessDeniedException; one that holds
 * it receives the shard's records.
 */
class FanOutThroughGateIT {

    private static final String READER = "AKIAFANOUTREADER0001";
    private static final String NO_SUBSCRIBE = "AKIAFANOUTNOSUBSCRIB";
    private static final String SECRET = "fan-out-secret";

    private static LocalAws aws;
    private static String consumerArn;
    private static final List<KinesisAsyncClient> clients = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        aws = LocalAws.start(LocalAwsOptions.builder().accessGates(true).build());
        aws.accessControl().authorizer(new Authorizer() {
            @Override
            public Decision authorize(String accessKeyId, ServiceCall call) {
                if (LocalAws.ACCESS_KEY_ID.equals(accessKeyId) || READER.equals(accessKeyId)) {
                    return Decision.ALLOWED;
                }
                if (NO_SUBSCRIBE.equals(accessKeyId)) {
                    for (AccessRequest request : call.requests()) {
                        if (request.action().equals("kinesis:SubscribeToShard")) {
                            return new Decision.Denied(
                                    "arn:aws:sts::000000000000:assumed-role/no-subscribe/local",
                                    request.action(),
                                    request.resource(),
                                    "no identity-based policy allows the kinesis:SubscribeToShard action",
                                    false);
                        }
                    }
                    return Decision.ALLOWED;
                }
                return new Decision.UnknownKey(accessKeyId);
            }

            @Override
            public String secretAccessKey(String accessKeyId) {
                return READER.equals(accessKeyId) || NO_SUBSCRIBE.equals(accessKeyId) ? SECRET : null;
            }
        });
        String stream = "fan-out-" + Long.toHexString(System.nanoTime());
        aws.kinesis().createStream(r -> r.streamName(stream).shardCount(1));
        aws.kinesisWaiter().waitUntilStreamExists(r -> r.streamName(stream));
        String streamArn = aws.kinesis()
                .describeStreamSummary(r -> r.streamName(stream))
                .streamDescriptionSummary()
                .streamARN();
        aws.kinesis().putRecord(r -> r.streamName(stream).partitionKey("k").data(SdkBytes.fromUtf8String("hello")));
        consumerArn = aws.kinesis()
                .registerStreamConsumer(r -> r.streamARN(streamArn).consumerName("reader"))
                .consumer()
                .consumerARN();
        String consumer = consumerArn;
        org.awaitility.Awaitility.await("consumer " + consumer + " ACTIVE")
                .atMost(java.time.Duration.ofSeconds(20))
                .pollInterval(java.time.Duration.ofMillis(100))
                .until(() -> aws.kinesis()
                        .describeStreamConsumer(r -> r.consumerARN(consumer))
                        .consumerDescription()
                        .consumerStatusAsString()
                        .equals("ACTIVE"));
    }

    @AfterAll
    static void stop() {
        clients.forEach(KinesisAsyncClient::close);
        if (aws != null) {
            aws.close();
        }
    }

    /** The Kinesis client a local fan-out KCL worker builds: Netty, HTTP/1.1 to the gate. */
    private static KinesisAsyncClient client(String keyId) {
        KinesisAsyncClient client = KinesisAsyncClient.builder()
                .endpointOverride(aws.kinesisEndpoint())
                .region(aws.region())
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(keyId, SECRET)))
                .httpClientBuilder(NettyNioAsyncHttpClient.builder().protocol(Protocol.HTTP1_1))
                .build();
        clients.add(client);
        return client;
    }

    private static CompletableFuture<Void> subscribe(KinesisAsyncClient client, List<String> data) {
        CompletableFuture<Void> first = new CompletableFuture<>();
        SubscribeToShardResponseHandler handler = SubscribeToShardResponseHandler.builder()
                .onError(first::completeExceptionally)
                .subscriber(SubscribeToShardResponseHandler.Visitor.builder()
                        .onSubscribeToShardEvent((SubscribeToShardEvent event) -> {
                            event.records().forEach(r -> data.add(r.data().asUtf8String()));
                            if (!data.isEmpty()) {
                                first.complete(null);
                            }
                        })
                        .build())
                .build();
        CompletableFuture<Void> call = client.subscribeToShard(
                r -> r.consumerARN(consumerArn)
                        .shardId("shardId-000000000000")
                        .startingPosition(p -> p.type(ShardIteratorType.TRIM_HORIZON)),
                handler);
        call.whenComplete((ignored, error) -> {
            if (error != null) {
                first.completeExceptionally(error);
            }
        });
        return first;
    }

    @Test
    void aFanOutConsumerWithSubscribeToShardReadsTheShardThroughTheGate() throws Exception {
        List<String> data = new CopyOnWriteArrayList<>();
        subscribe(client(READER), data).get(30, TimeUnit.SECONDS);
        assertThat(data).contains("hello");
    }

    @Test
    void aFanOutConsumerWithoutSubscribeToShardIsRefusedWithAccessDenied() {
        long deniedBefore = aws.accessControl().denied();
        List<String> data = new CopyOnWriteArrayList<>();
        CompletableFuture<Void> refused = subscribe(client(NO_SUBSCRIBE), data);
        assertThat(refused)
                .failsWithin(30, TimeUnit.SECONDS)
                .withThrowableOfType(ExecutionException.class)
                .satisfies(e -> {
                    KinesisException kinesis = kinesisCause(e);
                    assertThat(kinesis.awsErrorDetails().errorCode()).isEqualTo("AccessDeniedException");
                    assertThat(kinesis.getMessage()).contains("kinesis:SubscribeToShard");
                });
        assertThat(data).isEmpty();
        assertThat(aws.accessControl().denied()).isGreaterThan(deniedBefore);
    }

    @Test
    void aFanOutConsumerWithAWrongSecretIsRefusedWithInvalidSignatureException() {
        KinesisAsyncClient wrong = KinesisAsyncClient.builder()
                .endpointOverride(aws.kinesisEndpoint())
                .region(aws.region())
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(READER, "wrong")))
                .httpClientBuilder(NettyNioAsyncHttpClient.builder().protocol(Protocol.HTTP1_1))
                .build();
        clients.add(wrong);
        assertThat(subscribe(wrong, new CopyOnWriteArrayList<>()))
                .failsWithin(30, TimeUnit.SECONDS)
                .withThrowableOfType(ExecutionException.class)
                .satisfies(e -> assertThat(kinesisCause(e).awsErrorDetails().errorCode())
                        .isEqualTo("InvalidSignatureException"));
    }

    /** The Kinesis error a failed subscription carries, wrapped as it may be; fails the test if none. */
    private static KinesisException kinesisCause(Throwable failure) {
        Throwable cause = failure.getCause();
        while (cause != null && !(cause instanceof KinesisException)) {
            cause = cause.getCause();
        }
        assertThat(cause).as("a KinesisException in the causes of " + failure).isInstanceOf(KinesisException.class);
        return (KinesisException) cause;
    }
}
