package dev.sluice.aws.priming;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.aws.AwsClients;
import dev.sluice.aws.StageRuntime;
import dev.sluice.core.definition.EnvironmentNames;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.definition.SinkDefinition;
import dev.sluice.core.definition.StageDefinition;
import dev.sluice.core.definition.StepType;
import dev.sluice.core.enrich.ReferenceCache;
import dev.sluice.core.enrich.ReferenceLoader;
import dev.sluice.core.event.InboundRecord;
import dev.sluice.core.event.Position;
import dev.sluice.core.schema.SchemaCatalog;
import dev.sluice.core.stage.AggregateSink;
import dev.sluice.core.stage.BatchProcessor;
import dev.sluice.core.stage.BatchResult;
import dev.sluice.core.stage.EventSink;
import dev.sluice.core.stage.SinkReport;
import dev.sluice.core.stage.StageChain;
import dev.sluice.core.stage.StageServices;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.client.builder.AwsClientBuilder;
import software.amazon.awssdk.awscore.client.builder.AwsSyncClientBuilder;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.retries.DefaultRetryStrategy;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.PutRecordsRequestEntry;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;

/**
 * Primes a stage with no AWS endpoint and no credentials: compiles the stage's chain with a
 * throw-away key and empty reference data, runs a synthetic batch built from the input schema through
 * it into sinks that keep nothing (Jackson, the validators, masking, CEL and the aggregator run their
 * real code), and has each SDK client type the stage uses send one request of each kind (DynamoDB,
 * S3, SQS, and Kinesis or Secrets Manager when the stage writes a stream or masks) through the stage's
 * own HTTP client implementation to {@link LoopbackAws}, a server on 127.0.0.1 inside this JVM that
 * answers as the services do. The Lambda function runs it before its SnapStart
 * snapshot ({@code SnapStartPriming}); a KCL worker before its scheduler starts, so that it takes no
 * lease before its classes are loaded and its first batch is not a cold one.
 */
public final class StagePriming {

    private static final Logger LOG = LoggerFactory.getLogger(StagePriming.class);

    /** Records in the priming batch. */
    public static final int PRIMING_RECORDS = 8;

    private final PipelineDefinition pipeline;
    private final String stageName;
    private final Map<String, String> environment;
    private final SecureRandom random;

    /** @param random the source of the throw-away tokenization key */
    public StagePriming(
            PipelineDefinition pipeline, String stageName, Map<String, String> environment, SecureRandom random) {
        this.pipeline = pipeline;
        this.stageName = stageName;
        this.environment = Map.copyOf(environment);
        this.random = random;
    }

    /**
     * What priming did.
     *
     * @param records synthetic records run through the chain
     * @param accepted of which the chain accepted (the rest were dead-lettered, which primes that path)
     * @param sdkCalls the requests the SDK clients sent through the stage's HTTP client to {@link
     *     LoopbackAws} on 127.0.0.1, as it answered them ({@code X-Amz-Target}, or {@code S3 PUT})
     * @param sdkErrors the calls whose answer the SDK did not accept (none, unless an answer's shape
     *     is off: then that call's response path was not primed)
     * @param deadLetters the dead-lettered records' reasons
     */
    public record Primed(
            int records, int accepted, List<String> sdkCalls, List<String> sdkErrors, List<String> deadLetters) {

        /** Requests sent and answered. */
        public int sdkRequests() {
            return sdkCalls.size();
        }
    }

    /** Runs the priming. */
    public Primed prime() {
        ObjectMapper mapper = StageRuntime.mapper();
        StageDefinition stage = pipeline.stage(stageName);
        SchemaCatalog schemas = environment.containsKey(EnvironmentNames.SCHEMAS_DIR)
                ? SchemaCatalog.fromDirectory(Path.of(environment.get(EnvironmentNames.SCHEMAS_DIR)), mapper)
                : SchemaCatalog.fromClasspath(StagePriming.class.getClassLoader(), mapper);
        Clock clock = Clock.systemUTC();
        byte[] key = new byte[32];
        random.nextBytes(key);
        Map<String, ReferenceCache> references = new LinkedHashMap<>();
        stage.steps().stream()
                .filter(step -> step.type() == StepType.ENRICH)
                .map(step -> step.option("reference"))
                .distinct()
                .forEach(name ->
                        references.put(name, new ReferenceCache(name, EMPTY_REFERENCE, 16, Duration.ofDays(1), clock)));
        StageChain chain = StageChain.compile(
                pipeline, stageName, new StageServices(schemas, mapper, clock, name -> key.clone(), references));
        Map<String, EventSink> sinks = new LinkedHashMap<>();
        for (SinkDefinition sink : stage.sinks()) {
            sinks.put(sink.target(), new DiscardingSink(sink.target()));
        }
        AggregateSink aggregates = chain.aggregates() ? new DiscardingAggregates() : null;
        List<String> deadLetters = new ArrayList<>();
        BatchProcessor processor = new BatchProcessor(
                chain,
                sinks,
                aggregates,
                letters -> letters.forEach(l -> deadLetters.add(l.code() + ": " + l.detail())),
                null,
                Runnable::run);

        String stream = stage.input();
        byte[] event = new SyntheticEvent(clock.instant())
                .bytes(schemas.schema(pipeline.stream(stream).schema()).document(), mapper);
        List<InboundRecord> records = new ArrayList<>();
        Instant now = clock.instant();
        for (int i = 0; i < PRIMING_RECORDS; i++) {
            records.add(new InboundRecord(
                    stream,
                    Position.of("shardId-000000000000", String.format("49%054d", i + 1)),
                    "priming",
                    // one malformed record primes the dead-letter path as well
                    i == PRIMING_RECORDS - 1 ? "{not json".getBytes(StandardCharsets.UTF_8) : event,
                    now));
        }
        BatchResult result = processor.process(records);
        List<String> sdkErrors = new ArrayList<>();
        List<String> sdkCalls = primeSdk(stage, event, sdkErrors);
        return new Primed(
                result.received(), result.accepted(), sdkCalls, List.copyOf(sdkErrors), List.copyOf(deadLetters));
    }

    /**
     * Sends one request of each kind the stage's sinks send through the stage's own HTTP client
     * implementation ({@link AwsClients#httpClient()}) to a {@link LoopbackAws} server: marshalling,
     * signing, the connection pool, writing the request and parsing the answer all run. The clients,
     * their connections and the server are closed before this returns.
     */
    private List<String> primeSdk(StageDefinition stage, byte[] event, List<String> errors) {
        Region region = Region.of(environment.getOrDefault("AWS_REGION", "us-east-1"));
        try (LoopbackAws loopback = LoopbackAws.start();
                SdkHttpClient http = AwsClients.httpClient();
                DynamoDbClient dynamoDb = configure(DynamoDbClient.builder(), http, loopback, region)
                        .build();
                S3Client s3 = configure(S3Client.builder(), http, loopback, region)
                        .forcePathStyle(true)
                        .build();
                SqsClient sqs =
                        configure(SqsClient.builder(), http, loopback, region).build()) {
            quietly(
                    errors,
                    () -> dynamoDb.putItem(b -> b.tableName("priming")
                            .item(Map.of(
                                    "pk",
                                    AttributeValue.fromS("priming"),
                                    "body",
                                    AttributeValue.fromB(SdkBytes.fromByteArray(event))))
                            .conditionExpression("attribute_not_exists(pk) OR #p < :p")
                            .expressionAttributeNames(Map.of("#p", "position"))
                            .expressionAttributeValues(Map.of(":p", AttributeValue.fromS("1")))));
            quietly(
                    errors,
                    () -> dynamoDb.updateItem(b -> b.tableName("priming")
                            .key(Map.of("pk", AttributeValue.fromS("priming")))
                            .updateExpression("ADD #c :one")
                            .expressionAttributeNames(Map.of("#c", "count"))
                            .expressionAttributeValues(Map.of(":one", AttributeValue.fromN("1")))));
            quietly(
                    errors,
                    () -> dynamoDb.getItem(b -> b.tableName("priming")
                            .key(Map.of("pk", AttributeValue.fromS("priming")))
                            .consistentRead(true)));
            quietly(
                    errors,
                    () -> s3.putObject(
                            b -> b.bucket("priming").key("priming/priming.json").ifNoneMatch("*"),
                            RequestBody.fromBytes(event)));
            quietly(
                    errors,
                    () -> sqs.sendMessageBatch(b -> b.queueUrl(loopback.endpoint() + "/000000000000/priming")
                            .entries(SendMessageBatchRequestEntry.builder()
                                    .id("0")
                                    .messageBody(new String(event, StandardCharsets.UTF_8))
                                    .build())));
            if (stage.sinks().stream().anyMatch(s -> s.kind() == SinkDefinition.Kind.STREAM)) {
                try (KinesisClient kinesis = configure(KinesisClient.builder(), http, loopback, region)
                        .build()) {
                    quietly(
                            errors,
                            () -> kinesis.putRecords(b -> b.streamName("priming")
                                    .records(PutRecordsRequestEntry.builder()
                                            .partitionKey("priming")
                                            .data(SdkBytes.fromByteArray(event))
                                            .build())));
                }
            }
            if (stage.steps().stream().anyMatch(step -> step.type() == StepType.MASK)) {
                try (SecretsManagerClient secrets = configure(SecretsManagerClient.builder(), http, loopback, region)
                        .build()) {
                    quietly(errors, () -> secrets.getSecretValue(b -> b.secretId("priming")));
                }
            }
            return loopback.answered();
        }
    }

    private static <B extends AwsClientBuilder<B, ?> & AwsSyncClientBuilder<B, ?>> B configure(
            B builder, SdkHttpClient http, LoopbackAws loopback, Region region) {
        builder.region(region)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("priming", "priming")))
                .httpClient(http)
                .endpointOverride(loopback.endpoint())
                // one attempt: an answer the operation cannot use must not be retried with back-off
                .overrideConfiguration(c -> c.retryStrategy(DefaultRetryStrategy.doNotRetry()));
        return builder;
    }

    /** An SDK call whose loopback answer the operation may not accept: the request path is what counts. */
    private static void quietly(List<String> errors, Runnable call) {
        try {
            call.run();
        } catch (RuntimeException e) {
            LOG.debug("priming call answered with {}", e.toString());
            errors.add(e.toString());
        }
    }

    private static final ReferenceLoader EMPTY_REFERENCE = new ReferenceLoader() {
        @Override
        public Map<String, com.fasterxml.jackson.databind.JsonNode> loadAll() {
            return Map.of();
        }

        @Override
        public String describe() {
            return "priming (no reference data)";
        }
    };

    private record DiscardingSink(String name) implements EventSink {
        @Override
        public SinkReport write(List<dev.sluice.core.event.ProcessedEvent> events) {
            return new SinkReport(events.size(), 0);
        }
    }

    private static final class DiscardingAggregates implements AggregateSink {
        @Override
        public String name() {
            return "priming";
        }

        @Override
        public SinkReport write(List<dev.sluice.core.window.PartialAggregate> partials) {
            return new SinkReport(partials.size(), 0);
        }
    }
}
