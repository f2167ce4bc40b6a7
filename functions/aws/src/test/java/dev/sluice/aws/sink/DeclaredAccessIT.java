package dev.sluice.aws.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.aws.access.Access;
import dev.sluice.aws.access.RecordedCalls;
import dev.sluice.core.event.DeadLetter;
import dev.sluice.core.event.InboundRecord;
import dev.sluice.core.event.Position;
import dev.sluice.core.event.ProcessedEvent;
import dev.sluice.core.event.ReasonCode;
import dev.sluice.core.stage.SinkException;
import dev.sluice.core.window.AggregateFunction;
import dev.sluice.core.window.TumblingWindows;
import dev.sluice.emulators.FaultInjector;
import dev.sluice.emulators.FaultInjector.Fault;
import dev.sluice.emulators.LocalAws;
import dev.sluice.emulators.LocalAwsExtension;
import dev.sluice.emulators.ResourceNames;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.retry.RetryMode;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * Every AWS call each adapter makes is one its declaration ({@code access(...)}) grants: the adapters
 * run their paths (first writes, replays, refused writes, a crash before the lake object, claim checks)
 * against the emulators through clients that record every SDK operation; each operation's IAM action
 * (from the IAM Service Authorization Reference, {@link RecordedCalls#ACTIONS}) must be declared on
 * the resource the request names. infra-cdk grants exactly the declarations, so an undeclared call
 * here would be an AccessDenied in AWS.
 */
@ExtendWith(LocalAwsExtension.class)
class DeclaredAccessIT {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final ExecutorService WRITERS = Executors.newFixedThreadPool(4);

    private final RecordedCalls recorded = new RecordedCalls();
    private LocalAws aws;

    @AfterAll
    static void stopWriters() {
        WRITERS.shutdownNow();
    }

    @BeforeEach
    void emulators(LocalAws aws) {
        this.aws = aws;
    }

    /** A bound resource: what a physical name is in the declarations (the actions are not read). */
    private static Access bound(Access.Target target, String name) {
        return new Access(target, name, "", List.of("test:Bound"));
    }

    private List<String> operations() {
        return recorded.calls().stream()
                .map(RecordedCalls.Call::operation)
                .distinct()
                .toList();
    }

    @Test
    void deduplicatingTableSinkCallsOnlyWhatItDeclares() throws SinkException {
        String table = Tables.create(aws, "declared-dedup-" + System.nanoTime(), "pk");
        DynamoDbStateSink sink = new DynamoDbStateSink(dynamoDb(), table, "eventId", WRITERS, true);
        List<ProcessedEvent> first = SinksIT.batch(0, 5, "2026-11-30T10");
        ProcessedEvent resent = SinksIT.event("shardId-000000000000", 2000, "pay-3", "cust-0", "2026-11-30T10:03:00Z");

        sink.writeAndGate(first);
        sink.writeAndGate(List.of(resent)); // a producer re-send: refused put, then the stored position is read

        assertThat(operations()).containsExactlyInAnyOrder("PutItem", "GetItem");
        assertThat(recorded.undeclared(
                        DynamoDbStateSink.access("payments-by-id", true),
                        Map.of(table, bound(Access.Target.TABLE, "payments-by-id"))))
                .isEmpty();
    }

    @Test
    void aggregateSinkCallsOnlyWhatItDeclares() throws SinkException {
        String table = Tables.create(aws, "declared-agg-" + System.nanoTime(), DynamoDbAggregateSink.PARTITION_KEY);
        DynamoDbAggregateSink sink = new DynamoDbAggregateSink(dynamoDb(), table, WRITERS);
        TumblingWindows windows = new TumblingWindows(
                "spend", Duration.ofHours(1), Duration.ofHours(24), EnumSet.allOf(AggregateFunction.class));
        TumblingWindows.Batch batch = windows.startBatch();
        Instant hour = Instant.parse("2026-11-30T10:00:00Z");
        for (int i = 1; i <= 5; i++) {
            batch.add(
                    "EUR",
                    hour.plusSeconds(i),
                    BigDecimal.valueOf(i),
                    hour.plusSeconds(i + 1),
                    "shardId-000000000000",
                    Integer.toString(1000 + i));
        }
        var partials = batch.finish();

        sink.write(partials);
        sink.write(partials); // a replay

        assertThat(operations()).contains("GetItem", "UpdateItem");
        assertThat(recorded.undeclared(
                        DynamoDbAggregateSink.access("spend-per-currency-hourly"),
                        Map.of(table, bound(Access.Target.TABLE, "spend-per-currency-hourly"))))
                .isEmpty();
    }

    @Test
    void lakeSinkAndLedgerCallOnlyWhatTheyDeclareEvenRecoveringFromACrash(ResourceNames names) throws Exception {
        String bucket = names.name("lake");
        aws.s3().createBucket(b -> b.bucket(bucket));
        String ledger = SinksIT.ledger(aws, names);
        String prefix = "payments/";
        // the first PUT never leaves: the next attempt finds an open intent and HEADs a missing object
        FaultInjector crash = new FaultInjector().on("PutObject", 1, Fault.NOT_SENT);
        S3LakeSink crashing = new S3LakeSink(s3(crash), bucket, prefix, dynamoDb(), ledger);
        assertThatThrownBy(() -> crashing.write(SinksIT.batch(0, 10, "2026-11-30T10")))
                .isInstanceOf(SinkException.class);

        S3LakeSink lake = new S3LakeSink(s3(), bucket, prefix, dynamoDb(), ledger);
        lake.write(SinksIT.batch(0, 10, "2026-11-30T10"));
        lake.write(SinksIT.batch(0, 10, "2026-11-30T10")); // a replay

        assertThat(operations()).contains("PutObject", "HeadObject", "GetItem", "UpdateItem");
        assertThat(recorded.undeclared(
                        S3LakeSink.access(prefix),
                        Map.of(
                                bucket, bound(Access.Target.OBJECTS, ""),
                                ledger, bound(Access.Target.LEDGER, ""))))
                .isEmpty();
    }

    @Test
    void streamSinkCallsOnlyWhatItDeclares(ResourceNames names) throws SinkException {
        String stream = names.name("by-merchant");
        aws.kinesis().createStream(b -> b.streamName(stream).shardCount(1));
        aws.kinesisWaiter().waitUntilStreamExists(b -> b.streamName(stream));
        KinesisStreamSink sink = new KinesisStreamSink(kinesis(), stream, "key");

        sink.write(SinksIT.batch(0, 5, "2026-11-30T10"));

        assertThat(operations()).containsExactly("PutRecords");
        assertThat(recorded.undeclared(
                        KinesisStreamSink.access("clicks-by-page"),
                        Map.of(stream, bound(Access.Target.STREAM, "clicks-by-page"))))
                .isEmpty();
    }

    @Test
    void deadLetterSinkCallsOnlyWhatItDeclaresClaimChecksIncluded(ResourceNames names) throws Exception {
        String bucket = names.name("lake");
        aws.s3().createBucket(b -> b.bucket(bucket));
        String queue =
                aws.sqs().createQueue(b -> b.queueName(names.name("dlq"))).queueUrl();
        SqsDeadLetterSink dlq =
                new SqsDeadLetterSink(sqs(), queue, "payments", "validate", MAPPER, s3(), bucket, "payments-dlq");
        byte[] large = new byte[600 * 1024];
        Arrays.fill(large, (byte) '{');

        dlq.send(List.of(letter(0, large), letter(1, "{oops".getBytes(StandardCharsets.UTF_8))));

        assertThat(operations()).contains("SendMessageBatch", "PutObject");
        assertThat(recorded.undeclared(
                        SqsDeadLetterSink.access("payments-dlq", DeadLetter.claimCheckPrefix("payments-dlq")),
                        Map.of(
                                queue, bound(Access.Target.QUEUE, "payments-dlq"),
                                bucket, bound(Access.Target.OBJECTS, ""))))
                .isEmpty();
    }

    @Test
    void referenceLoadersCallOnlyWhatTheyDeclare(ResourceNames names) throws Exception {
        String table = Tables.create(aws, names.name("pages"), "pageId");
        aws.dynamoDb().putItem(b -> b.tableName(table).item(Map.of("pageId", AttributeValue.fromS("p-1"))));
        String bucket = names.name("lake");
        aws.s3().createBucket(b -> b.bucket(bucket));
        aws.s3()
                .putObject(
                        b -> b.bucket(bucket).key("reference/merchants.jsonl"),
                        RequestBody.fromString("{\"merchantId\":\"m-1\"}\n"));

        new DynamoDbReferenceLoader(dynamoDb(), table, "pageId", MAPPER).loadAll();
        List<String> tableCalls = recorded.undeclared(
                DynamoDbReferenceLoader.access("page-catalogue"),
                Map.of(table, bound(Access.Target.TABLE, "page-catalogue")));
        assertThat(operations()).containsExactly("Scan");
        recorded.clear();
        new S3ReferenceLoader(s3(), bucket, "reference/merchants.jsonl", "merchantId", MAPPER).loadAll();

        assertThat(tableCalls).isEmpty();
        assertThat(operations()).containsExactly("GetObject");
        assertThat(recorded.undeclared(
                        S3ReferenceLoader.access("reference/merchants.jsonl"),
                        Map.of(bucket, bound(Access.Target.OBJECTS, ""))))
                .isEmpty();
    }

    @Test
    void aCallTheDeclarationLacksIsReported() throws SinkException {
        String table = Tables.create(aws, "declared-lacking-" + System.nanoTime(), "pk");
        DynamoDbStateSink sink = new DynamoDbStateSink(dynamoDb(), table, "eventId", WRITERS, true);
        List<ProcessedEvent> first = SinksIT.batch(0, 2, "2026-11-30T10");
        sink.writeAndGate(first);
        sink.writeAndGate(
                List.of(SinksIT.event("shardId-000000000000", 2000, "pay-1", "cust-1", "2026-11-30T10:01:00Z")));

        // what grantWriteData gave the dedup table: every write, no GetItem
        List<Access> writesOnly = List.of(Access.table(
                "payments-by-id",
                "dynamodb:PutItem",
                "dynamodb:UpdateItem",
                "dynamodb:DeleteItem",
                "dynamodb:BatchWriteItem"));

        assertThat(recorded.undeclared(writesOnly, Map.of(table, bound(Access.Target.TABLE, "payments-by-id"))))
                .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
                .contains("dynamodb:GetItem is not declared on TABLE payments-by-id");
    }

    private static DeadLetter letter(int sequence, byte[] data) {
        return new DeadLetter(
                new InboundRecord(
                        "payments-raw",
                        Position.of("shardId-000000000001", Integer.toString(700 + sequence)),
                        "cust-" + sequence,
                        data,
                        Instant.parse("2026-12-01T10:00:00Z")),
                ReasonCode.MALFORMED_JSON,
                "broken");
    }

    private DynamoDbClient dynamoDb() {
        return DynamoDbClient.builder()
                .endpointOverride(aws.dynamoDbEndpoint())
                .region(aws.region())
                .credentialsProvider(aws.credentialsProvider())
                .httpClient(UrlConnectionHttpClient.create())
                .overrideConfiguration(c -> c.addExecutionInterceptor(recorded))
                .build();
    }

    private S3Client s3(ExecutionInterceptor... more) {
        return S3Client.builder()
                .endpointOverride(aws.s3Endpoint())
                .region(aws.region())
                .credentialsProvider(aws.credentialsProvider())
                .forcePathStyle(true)
                .httpClient(UrlConnectionHttpClient.create())
                .overrideConfiguration(c -> {
                    c.addExecutionInterceptor(recorded);
                    Arrays.stream(more).forEach(c::addExecutionInterceptor);
                    if (more.length > 0) {
                        c.retryStrategy(RetryMode.STANDARD)
                                .retryStrategy(software.amazon.awssdk.awscore.retry.AwsRetryStrategy.doNotRetry());
                    }
                })
                .build();
    }

    private KinesisClient kinesis() {
        return KinesisClient.builder()
                .endpointOverride(aws.kinesisEndpoint())
                .region(aws.region())
                .credentialsProvider(aws.credentialsProvider())
                .httpClient(UrlConnectionHttpClient.create())
                .overrideConfiguration(c -> c.addExecutionInterceptor(recorded))
                .build();
    }

    private SqsClient sqs() {
        return SqsClient.builder()
                .endpointOverride(aws.sqsEndpoint())
                .region(aws.region())
                .credentialsProvider(aws.credentialsProvider())
                .httpClient(UrlConnectionHttpClient.create())
                .overrideConfiguration(c -> c.addExecutionInterceptor(recorded))
                .build();
    }
}
