package dev.sluice.aws;

import dev.sluice.core.ConfigurationException;
import java.net.URI;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.client.builder.AwsClientBuilder;
import software.amazon.awssdk.core.retry.RetryMode;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * SDK clients configured from a function's environment: region, credentials and (for emulators)
 * endpoint overrides, read from the same variables the SDK itself reads ({@code AWS_REGION},
 * {@code AWS_ACCESS_KEY_ID}, {@code AWS_ENDPOINT_URL_DYNAMODB}, ...). One HTTP client is shared.
 * Every client retries in the SDK's standard mode: throttling, 5xx and I/O errors get up to three
 * attempts with exponential backoff and jitter.
 *
 * <p>The HTTP client is the SDK's Apache 5 client ({@code apache5-client}), with a pool of up to
 * {@link #MAX_CONNECTIONS} kept-alive connections. Not the JDK's URL connection: every call of
 * DynamoDB, Kinesis, SQS and Secrets Manager is a POST of known length, and before each one it sends
 * on a kept-alive connection, the JDK checks that the connection is still open by reading it with a
 * one-millisecond timeout. That is a millisecond of every call's latency, and an exception thrown
 * and caught, on every item a sink writes (load-tests/README.md, "Which HTTP client the functions
 * use").
 */
public final class AwsClients implements AutoCloseable {

    private final Map<String, String> environment;
    private final SdkHttpClient http;
    private final Region region;
    private final AwsCredentialsProvider credentials;

    /**
     * Connections the shared client keeps open, across hosts. The table sink writes a batch's items on
     * 8 threads while the lake and the dead-letter queue write too: with fewer kept connections than
     * concurrent calls, every batch would close the extra ones when it ended and open them again, a
     * TLS handshake each in AWS.
     */
    static final int MAX_CONNECTIONS = 32;

    public AwsClients(Map<String, String> environment) {
        this.environment = Map.copyOf(environment);
        this.http = httpClient();
        this.region = Region.of(Optional.ofNullable(environment.get("AWS_REGION"))
                .or(() -> Optional.ofNullable(environment.get("AWS_DEFAULT_REGION")))
                .orElseThrow(() -> new ConfigurationException("AWS_REGION is not set")));
        this.credentials = credentials(environment);
    }

    /**
     * A new HTTP client as every SDK client of these shares (see the class comment); priming builds one
     * the same way ({@code StagePriming}), so that its requests take the stage's own request path.
     */
    public static SdkHttpClient httpClient() {
        return Apache5HttpClient.builder().maxConnections(MAX_CONNECTIONS).build();
    }

    public DynamoDbClient dynamoDb() {
        return configure(DynamoDbClient.builder(), "DYNAMODB").build();
    }

    public S3Client s3() {
        boolean emulated = endpoint("S3").isPresent();
        return configure(S3Client.builder(), "S3").forcePathStyle(emulated).build();
    }

    public SqsClient sqs() {
        return configure(SqsClient.builder(), "SQS").build();
    }

    public KinesisClient kinesis() {
        return configure(KinesisClient.builder(), "KINESIS").build();
    }

    public SecretsManagerClient secretsManager() {
        return configure(SecretsManagerClient.builder(), "SECRETSMANAGER").build();
    }

    private <
                    B extends
                            AwsClientBuilder<B, ?>
                                    & software.amazon.awssdk.awscore.client.builder.AwsSyncClientBuilder<B, ?>>
            B configure(B builder, String service) {
        builder.region(region)
                .credentialsProvider(credentials)
                .httpClient(http)
                // throttling, 5xx and I/O failures are retried by the SDK: three attempts, exponential
                // backoff with jitter; what still fails reaches the sink, which asks for redelivery
                .overrideConfiguration(c -> c.retryStrategy(RetryMode.STANDARD));
        endpoint(service).ifPresent(builder::endpointOverride);
        return builder;
    }

    /** The region every client uses. */
    public Region region() {
        return region;
    }

    /** The credentials every client uses (static from the environment, else the default chain). */
    public AwsCredentialsProvider credentialsProvider() {
        return credentials;
    }

    /**
     * The endpoint override of a service ({@code AWS_ENDPOINT_URL_<SERVICE>}, else {@code
     * AWS_ENDPOINT_URL}), for clients built elsewhere (the KCL worker's asynchronous ones).
     */
    public Optional<URI> endpoint(String service) {
        return Optional.ofNullable(environment.get("AWS_ENDPOINT_URL_" + service))
                .or(() -> Optional.ofNullable(environment.get("AWS_ENDPOINT_URL")))
                .map(URI::create);
    }

    private static AwsCredentialsProvider credentials(Map<String, String> environment) {
        String key = environment.get("AWS_ACCESS_KEY_ID");
        String secret = environment.get("AWS_SECRET_ACCESS_KEY");
        if (key == null || secret == null) {
            return DefaultCredentialsProvider.builder().build();
        }
        String token = environment.get("AWS_SESSION_TOKEN");
        return StaticCredentialsProvider.create(
                token == null
                        ? AwsBasicCredentials.create(key, secret)
                        : AwsSessionCredentials.create(key, secret, token));
    }

    @Override
    public void close() {
        http.close();
    }
}
