package dev.sluice.emulators;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.kinesis.model.PutRecordResponse;
import software.amazon.awssdk.services.kinesis.model.Record;
import software.amazon.awssdk.services.kinesis.model.ShardIteratorType;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

@ExtendWith(LocalAwsExtension.class)
class LocalAwsIT {

    private static final Set<String> SUFFIXES = ConcurrentHashMap.newKeySet();
    private static final List<String> TESTS = new ArrayList<>();

    private ResourceNames namesBeforeEach;

    @BeforeEach
    void rememberNames(ResourceNames names) {
        namesBeforeEach = names;
    }

    @AfterEach
    void collectNames(ResourceNames names) {
        assertThat(names).isSameAs(namesBeforeEach);
        SUFFIXES.add(names.suffix());
        synchronized (TESTS) {
            TESTS.add(names.suffix());
        }
    }

    @AfterAll
    static void everyTestHadItsOwnNames() {
        assertThat(TESTS).hasSizeGreaterThanOrEqualTo(2);
        assertThat(SUFFIXES).hasSameSizeAs(TESTS);
    }

    @Test
    void kinesisRecordRoundTrip(LocalAws aws, ResourceNames names) {
        assertThat(names).isSameAs(namesBeforeEach);
        String stream = names.name("orders");
        var kinesis = aws.kinesis();
        kinesis.createStream(r -> r.streamName(stream).shardCount(1));
        aws.kinesisWaiter().waitUntilStreamExists(r -> r.streamName(stream));
        var summary = kinesis.describeStreamSummary(r -> r.streamName(stream)).streamDescriptionSummary();
        assertThat(summary.streamARN())
                .isEqualTo("arn:aws:kinesis:" + aws.region().id() + ":" + aws.accountId() + ":stream/" + stream);

        byte[] data = "{\"order\":42}".getBytes(StandardCharsets.UTF_8);
        PutRecordResponse put =
                kinesis.putRecord(r -> r.streamName(stream).partitionKey("42").data(SdkBytes.fromByteArray(data)));
        String iterator = kinesis.getShardIterator(r ->
                        r.streamName(stream).shardId(put.shardId()).shardIteratorType(ShardIteratorType.TRIM_HORIZON))
                .shardIterator();

        List<Record> records = new ArrayList<>();
        String[] next = {iterator};
        // 4 reads a second at most: a shard takes 5 GetRecords a second, the local stack as AWS
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(250))
                .until(() -> {
                    var got = kinesis.getRecords(r -> r.shardIterator(next[0]));
                    next[0] = got.nextShardIterator();
                    records.addAll(got.records());
                    return !records.isEmpty();
                });
        assertThat(records).hasSize(1);
        Record record = records.get(0);
        assertThat(record.data().asByteArray()).isEqualTo(data);
        assertThat(record.sequenceNumber()).isEqualTo(put.sequenceNumber());
        assertThat(record.partitionKey()).isEqualTo("42");
        assertThat(record.approximateArrivalTimestamp()).isNotNull();
    }

    @Test
    void dynamoDbConditionalPut(LocalAws aws, ResourceNames names) {
        String table = names.name("ledger");
        var dynamo = aws.dynamoDb();
        dynamo.createTable(r -> r.tableName(table)
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .attributeDefinitions(AttributeDefinition.builder()
                        .attributeName("id")
                        .attributeType(ScalarAttributeType.S)
                        .build())
                .keySchema(KeySchemaElement.builder()
                        .attributeName("id")
                        .keyType(KeyType.HASH)
                        .build()));
        aws.dynamoDbWaiter().waitUntilTableExists(r -> r.tableName(table));

        Map<String, AttributeValue> first =
                Map.of("id", AttributeValue.fromS("tx-1"), "amount", AttributeValue.fromN("10"));
        Map<String, AttributeValue> second =
                Map.of("id", AttributeValue.fromS("tx-1"), "amount", AttributeValue.fromN("99"));
        dynamo.putItem(r -> r.tableName(table).item(first).conditionExpression("attribute_not_exists(id)"));
        assertThatThrownBy(() -> dynamo.putItem(
                        r -> r.tableName(table).item(second).conditionExpression("attribute_not_exists(id)")))
                .isInstanceOf(ConditionalCheckFailedException.class);

        var stored = dynamo.getItem(r -> r.tableName(table)
                        .key(Map.of("id", AttributeValue.fromS("tx-1")))
                        .consistentRead(true))
                .item();
        assertThat(stored).isEqualTo(first);
    }

    @Test
    void s3PutIfNoneMatch(LocalAws aws, ResourceNames names) {
        String bucket = names.name("archive");
        var s3 = aws.s3();
        s3.createBucket(r -> r.bucket(bucket));
        s3.putObject(r -> r.bucket(bucket).key("batch/1.json").ifNoneMatch("*"), RequestBody.fromString("first"));

        assertThatThrownBy(() -> s3.putObject(
                        r -> r.bucket(bucket).key("batch/1.json").ifNoneMatch("*"), RequestBody.fromString("second")))
                .isInstanceOfSatisfying(
                        S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(412));
        assertThat(s3.getObjectAsBytes(r -> r.bucket(bucket).key("batch/1.json"))
                        .asUtf8String())
                .isEqualTo("first");
    }

    @Test
    void s3ListsOnlyObjectsWhosePutCompleted(LocalAws aws, ResourceNames names) throws Exception {
        String bucket = names.name("lake");
        var s3 = aws.s3();
        s3.createBucket(r -> r.bucket(bucket));
        int objects = 40;
        byte[] body = new byte[512 * 1024];
        var writer = java.util.concurrent.Executors.newSingleThreadExecutor();
        try {
            var writes = writer.submit(() -> {
                for (int i = 0; i < objects; i++) {
                    String key = "dt=2026-12-07/batch-" + i + ".jsonl.gz";
                    s3.putObject(r -> r.bucket(bucket).key(key), RequestBody.fromBytes(body));
                }
            });
            // a reconciler polling the lake while it is written: every key a listing names can be read
            List<String> unreadable = new ArrayList<>();
            int listings = 0;
            while (!writes.isDone()) {
                listings++;
                for (var object :
                        s3.listObjectsV2Paginator(r -> r.bucket(bucket)).contents()) {
                    try {
                        s3.headObject(r -> r.bucket(bucket).key(object.key()));
                    } catch (S3Exception e) {
                        unreadable.add(object.key() + " (" + e.statusCode() + ")");
                    }
                }
            }
            writes.get();
            assertThat(listings).isPositive();
            assertThat(unreadable).isEmpty();
            assertThat(s3.listObjectsV2(r -> r.bucket(bucket)).keyCount()).isEqualTo(objects);
        } finally {
            writer.shutdownNow();
        }
    }

    @Test
    void sqsSendAndReceive(LocalAws aws, ResourceNames names) {
        String queue = names.name("dlq");
        var sqs = aws.sqs();
        String url = sqs.createQueue(r -> r.queueName(queue)).queueUrl();
        assertThat(url).endsWith("/" + aws.accountId() + "/" + queue);
        String arn = sqs.getQueueAttributes(r -> r.queueUrl(url).attributeNames(QueueAttributeName.QUEUE_ARN))
                .attributes()
                .get(QueueAttributeName.QUEUE_ARN);
        assertThat(arn).isEqualTo("arn:aws:sqs:" + aws.region().id() + ":" + aws.accountId() + ":" + queue);

        sqs.sendMessage(r -> r.queueUrl(url).messageBody("hello"));
        List<Message> received = new ArrayList<>();
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            received.addAll(sqs.receiveMessage(
                            r -> r.queueUrl(url).maxNumberOfMessages(10).waitTimeSeconds(1))
                    .messages());
            return !received.isEmpty();
        });
        assertThat(received).extracting(Message::body).containsExactly("hello");
        sqs.deleteMessage(r -> r.queueUrl(url).receiptHandle(received.get(0).receiptHandle()));
    }

    @Test
    void lambdaEnvironmentPointsAtTheEmulators(LocalAws aws) {
        assertThat(aws.lambdaEnvironment())
                .containsEntry("AWS_REGION", "us-east-1")
                .containsEntry("AWS_DEFAULT_REGION", "us-east-1")
                .containsEntry("AWS_ACCESS_KEY_ID", LocalAws.ACCESS_KEY_ID)
                .containsEntry("AWS_SECRET_ACCESS_KEY", LocalAws.SECRET_ACCESS_KEY)
                .containsEntry("AWS_ENDPOINT_URL_KINESIS", aws.kinesisEndpoint().toString())
                .containsEntry(
                        "AWS_ENDPOINT_URL_DYNAMODB", aws.dynamoDbEndpoint().toString())
                .containsEntry("AWS_ENDPOINT_URL_S3", aws.s3Endpoint().toString())
                .containsEntry("AWS_ENDPOINT_URL_SQS", aws.sqsEndpoint().toString());
        assertThat(aws.startupMillis()).containsOnlyKeys(Emulator.values());
    }

    /**
     * One PutRecords call spread over several shards puts each entry into the shard its response
     * names, in call order. Guards the patch of kinesis-mock's PutRecords grouping
     * ({@code localstack/patches}): grouping by shard alone must still append every group to its
     * own shard.
     */
    @Test
    void putRecordsOverSeveralShardsLandsEachEntryInItsShardInOrder(LocalAws aws, ResourceNames names) {
        String stream = names.name("spread");
        var kinesis = aws.kinesis();
        kinesis.createStream(r -> r.streamName(stream).shardCount(4));
        aws.kinesisWaiter().waitUntilStreamExists(r -> r.streamName(stream));

        Map<String, List<String>> putByShard = new java.util.TreeMap<>();
        for (int call = 0; call < 2; call++) {
            List<software.amazon.awssdk.services.kinesis.model.PutRecordsRequestEntry> entries = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                String body = call + "-" + i;
                entries.add(software.amazon.awssdk.services.kinesis.model.PutRecordsRequestEntry.builder()
                        .partitionKey("key-" + (i % 37))
                        .data(SdkBytes.fromUtf8String(body))
                        .build());
            }
            var response = kinesis.putRecords(r -> r.streamName(stream).records(entries));
            assertThat(response.failedRecordCount()).isZero();
            for (int i = 0; i < entries.size(); i++) {
                putByShard
                        .computeIfAbsent(response.records().get(i).shardId(), k -> new ArrayList<>())
                        .add(entries.get(i).data().asUtf8String());
            }
        }
        assertThat(putByShard).hasSizeGreaterThanOrEqualTo(3);

        Map<String, List<String>> readByShard = new java.util.TreeMap<>();
        for (String shard : putByShard.keySet()) {
            String iterator = kinesis.getShardIterator(
                            r -> r.streamName(stream).shardId(shard).shardIteratorType(ShardIteratorType.TRIM_HORIZON))
                    .shardIterator();
            List<Record> records = kinesis.getRecords(
                            r -> r.shardIterator(iterator).limit(1000))
                    .records();
            readByShard.put(
                    shard, records.stream().map(x -> x.data().asUtf8String()).toList());
            for (int i = 1; i < records.size(); i++) {
                assertThat(new java.math.BigInteger(records.get(i).sequenceNumber()))
                        .isGreaterThan(
                                new java.math.BigInteger(records.get(i - 1).sequenceNumber()));
            }
        }
        assertThat(readByShard).isEqualTo(putByShard);
    }
}
