package dev.sluice.emulators.iam;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.KinesisException;
import software.amazon.awssdk.services.kinesis.model.KmsAccessDeniedException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.SqsException;

/**
 * The gate as the AWS SDK sees it, with no emulator behind it: the requests the real SDK clients
 * send are mapped to the IAM authorizations AWS makes (recorded by the authorizer), and a denial
 * reaches the caller as the SDK's usual typed exception with AWS's error code and message.
 */
class AccessGateTest {

    private static final String REGION = "us-east-1";
    private static final String ACCOUNT = "000000000000";
    private static final String KEY = "AKIAEXAMPLEPRINCIPAL";

    private final List<String> seenKeys = new CopyOnWriteArrayList<>();
    private final List<ServiceCall> calls = new CopyOnWriteArrayList<>();
    private final List<AccessGate> gates = new ArrayList<>();
    private final List<AutoCloseable> clients = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable client : clients) {
            client.close();
        }
        gates.forEach(AccessGate::close);
    }

    /** A gate whose authorizer records every call and denies it as {@code decision} says. */
    private URI gate(AwsService service, Decision decision) {
        AccessControl control = new AccessControl("test");
        control.authorizer((key, call) -> {
            seenKeys.add(String.valueOf(key));
            calls.add(call);
            return decision;
        });
        AccessGate gate = AccessGate.bind(service, REGION, ACCOUNT, control);
        gates.add(gate);
        return URI.create("http://127.0.0.1:" + gate.port());
    }

    private static Decision.Denied denied(String action, String resource, boolean kms) {
        return new Decision.Denied(
                "arn:aws:sts::" + ACCOUNT + ":assumed-role/stage-role/local",
                action,
                resource,
                "no identity-based policy allows the " + action + " action",
                kms);
    }

    private <T extends AutoCloseable> T track(T client) {
        clients.add(client);
        return client;
    }

    private static StaticCredentialsProvider credentials() {
        return StaticCredentialsProvider.create(AwsBasicCredentials.create(KEY, "secret"));
    }

    private KinesisClient kinesis(URI endpoint) {
        return track(KinesisClient.builder()
                .region(Region.of(REGION))
                .credentialsProvider(credentials())
                .endpointOverride(endpoint)
                .httpClientBuilder(UrlConnectionHttpClient.builder())
                .overrideConfiguration(o -> o.retryStrategy(r -> r.maxAttempts(1)))
                .build());
    }

    @Test
    void kinesisPutRecordsInCborIsPutRecordsOnTheStreamWithItsKeyAndADenialIsAccessDeniedException() {
        String arn = "arn:aws:kinesis:us-east-1:000000000000:stream/payments-raw";
        KinesisClient kinesis = kinesis(gate(AwsService.KINESIS, denied("kinesis:PutRecords", arn, false)));

        assertThatThrownBy(() -> kinesis.putRecords(b -> b.streamName("payments-raw")
                        .records(r -> r.partitionKey("k").data(SdkBytes.fromUtf8String("{}")))))
                .isInstanceOfSatisfying(KinesisException.class, e -> {
                    assertThat(e.awsErrorDetails().errorCode()).isEqualTo("AccessDeniedException");
                    assertThat(e.statusCode()).isEqualTo(400);
                    assertThat(e.awsErrorDetails().errorMessage())
                            .isEqualTo("User: arn:aws:sts::000000000000:assumed-role/stage-role/local is not"
                                    + " authorized to perform: kinesis:PutRecords on resource: " + arn
                                    + " because no identity-based policy allows the kinesis:PutRecords action");
                });
        assertThat(seenKeys).containsExactly(KEY);
        assertThat(calls.get(0).requests())
                .containsExactly(AccessRequest.of("kinesis:PutRecords", arn, KeyUse.ENCRYPT));
    }

    @Test
    void kinesisDeniedByTheStreamsKeyIsKmsAccessDeniedException() {
        String key = "arn:aws:kms:us-east-1:000000000000:key/1234";
        KinesisClient kinesis = kinesis(gate(AwsService.KINESIS, denied("kms:GenerateDataKey", key, true)));

        assertThatThrownBy(() -> kinesis.putRecord(
                        b -> b.streamName("payments-raw").partitionKey("k").data(SdkBytes.fromUtf8String("{}"))))
                .isInstanceOf(KmsAccessDeniedException.class)
                .hasMessageContaining("kms:GenerateDataKey on resource: " + key);
    }

    @Test
    void dynamoDbBatchWriteIsOneAuthorizationPerTableAndADenialIsDynamoDbExceptionAccessDenied() {
        String table = "arn:aws:dynamodb:us-east-1:000000000000:table/payments-by-id";
        DynamoDbClient dynamo = track(DynamoDbClient.builder()
                .region(Region.of(REGION))
                .credentialsProvider(credentials())
                .endpointOverride(gate(AwsService.DYNAMODB, denied("dynamodb:BatchWriteItem", table, false)))
                .httpClientBuilder(UrlConnectionHttpClient.builder())
                .overrideConfiguration(o -> o.retryStrategy(r -> r.maxAttempts(1)))
                .build());

        assertThatThrownBy(() -> dynamo.batchWriteItem(b -> b.requestItems(java.util.Map.of(
                        "payments-by-id",
                        List.of(software.amazon.awssdk.services.dynamodb.model.WriteRequest.builder()
                                .putRequest(p -> p.item(java.util.Map.of("id", AttributeValue.fromS("1"))))
                                .build()),
                        "spend",
                        List.of(software.amazon.awssdk.services.dynamodb.model.WriteRequest.builder()
                                .putRequest(p -> p.item(java.util.Map.of("id", AttributeValue.fromS("2"))))
                                .build())))))
                .isInstanceOfSatisfying(DynamoDbException.class, e -> {
                    assertThat(e.awsErrorDetails().errorCode()).isEqualTo("AccessDeniedException");
                    assertThat(e.awsErrorDetails().errorMessage())
                            .contains("is not authorized to perform: dynamodb:BatchWriteItem on resource: " + table);
                });
        assertThat(calls.get(0).requests())
                .extracting(AccessRequest::resource)
                .containsExactlyInAnyOrder(table, "arn:aws:dynamodb:us-east-1:000000000000:table/spend");

        calls.clear();
        assertThatThrownBy(() -> dynamo.query(b -> b.tableName("leases")
                        .indexName("LeaseOwnerToLeaseKeyIndex")
                        .keyConditionExpression("leaseOwner = :o")
                        .expressionAttributeValues(java.util.Map.of(":o", AttributeValue.fromS("w")))))
                .isInstanceOf(DynamoDbException.class);
        assertThat(calls.get(0).requests())
                .containsExactly(AccessRequest.of(
                        "dynamodb:Query",
                        "arn:aws:dynamodb:us-east-1:000000000000:table/leases/index/LeaseOwnerToLeaseKeyIndex",
                        KeyUse.DECRYPT));
    }

    @Test
    void everyRequestAsksTheLatencyModelForItsServiceAndOperationBeforeItIsAnswered() {
        String table = "arn:aws:dynamodb:us-east-1:000000000000:table/payments-by-id";
        URI endpoint = gate(AwsService.DYNAMODB, denied("dynamodb:GetItem", table, false));
        List<String> asked = new CopyOnWriteArrayList<>();
        gates.get(0).latency((service, operation) -> {
            // calls.size(): how many requests the authorizer had decided when the model was asked
            asked.add(service + " " + operation + " decided=" + calls.size());
            return 1_000; // 1 µs
        });
        DynamoDbClient dynamo = track(DynamoDbClient.builder()
                .region(Region.of(REGION))
                .credentialsProvider(credentials())
                .endpointOverride(endpoint)
                .httpClientBuilder(UrlConnectionHttpClient.builder())
                .overrideConfiguration(o -> o.retryStrategy(r -> r.maxAttempts(1)))
                .build());

        assertThatThrownBy(() -> dynamo.getItem(
                        b -> b.tableName("payments-by-id").key(java.util.Map.of("id", AttributeValue.fromS("1")))))
                .isInstanceOf(DynamoDbException.class);
        assertThat(asked).containsExactly("DYNAMODB GetItem decided=0");

        gates.get(0).latency(null);
        assertThatThrownBy(() -> dynamo.getItem(
                        b -> b.tableName("payments-by-id").key(java.util.Map.of("id", AttributeValue.fromS("1")))))
                .isInstanceOf(DynamoDbException.class);
        assertThat(asked).as("no model: nothing asked").hasSize(1);
    }

    @Test
    void sqsSendMessageBatchIsSendMessageOnTheQueueAndADenialIsAccessDenied() {
        String queue = "arn:aws:sqs:us-east-1:000000000000:payments-dlq";
        URI endpoint = gate(AwsService.SQS, denied("sqs:SendMessage", queue, false));
        SqsClient sqs = track(SqsClient.builder()
                .region(Region.of(REGION))
                .credentialsProvider(credentials())
                .endpointOverride(endpoint)
                .httpClientBuilder(UrlConnectionHttpClient.builder())
                .overrideConfiguration(o -> o.retryStrategy(r -> r.maxAttempts(1)))
                .build());

        assertThatThrownBy(() -> sqs.sendMessageBatch(b -> b.queueUrl(endpoint + "/000000000000/payments-dlq")
                        .entries(e -> e.id("1").messageBody("x"))))
                .isInstanceOfSatisfying(SqsException.class, e -> {
                    assertThat(e.awsErrorDetails().errorCode()).isEqualTo("AccessDenied");
                    assertThat(e.awsErrorDetails().errorMessage()).contains("sqs:SendMessage on resource: " + queue);
                });
        assertThat(calls.get(0).operation()).isEqualTo("SendMessageBatch");
        assertThat(calls.get(0).requests()).containsExactly(AccessRequest.of("sqs:SendMessage", queue, KeyUse.ENCRYPT));
    }

    @Test
    void s3ListObjectsV2IsListBucketWithItsPrefixAndADenialIs403AccessDenied() {
        S3Client s3 = track(S3Client.builder()
                .region(Region.of(REGION))
                .credentialsProvider(credentials())
                .endpointOverride(gate(AwsService.S3, denied("s3:ListBucket", "arn:aws:s3:::lake", false)))
                .forcePathStyle(true)
                .httpClientBuilder(UrlConnectionHttpClient.builder())
                .overrideConfiguration(o -> o.retryStrategy(r -> r.maxAttempts(1)))
                .build());

        assertThatThrownBy(() -> s3.listObjectsV2(b -> b.bucket("lake").prefix("payments/dt=2026-12-01/")))
                .isInstanceOfSatisfying(S3Exception.class, e -> {
                    assertThat(e.statusCode()).isEqualTo(403);
                    assertThat(e.awsErrorDetails().errorCode()).isEqualTo("AccessDenied");
                    assertThat(e.awsErrorDetails().errorMessage())
                            .contains("s3:ListBucket on resource: arn:aws:s3:::lake");
                });
        assertThat(calls.get(0).requests())
                .containsExactly(new AccessRequest(
                        "s3:ListBucket",
                        "arn:aws:s3:::lake",
                        java.util.Map.of("s3:prefix", List.of("payments/dt=2026-12-01/")),
                        KeyUse.NONE));

        calls.clear();
        assertThatThrownBy(() -> s3.headObject(b -> b.bucket("lake").key("payments/a b+c.jsonl")))
                .isInstanceOfSatisfying(
                        S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(403));
        assertThat(calls.get(0).requests())
                .containsExactly(AccessRequest.of("s3:GetObject", "arn:aws:s3:::lake/payments/a b+c.jsonl"));

        calls.clear();
        assertThatThrownBy(() -> s3.putObject(
                        b -> b.bucket("lake").key("payments/x.jsonl"),
                        software.amazon.awssdk.core.sync.RequestBody.fromString("{}")))
                .isInstanceOf(S3Exception.class);
        assertThat(calls.get(0).requests())
                .containsExactly(
                        AccessRequest.of("s3:PutObject", "arn:aws:s3:::lake/payments/x.jsonl", KeyUse.ENCRYPT));
    }

    @Test
    void anUnknownKeyIsRefusedAsAwsRefusesIt() {
        KinesisClient kinesis = kinesis(gate(AwsService.KINESIS, new Decision.UnknownKey(KEY)));
        assertThatThrownBy(() -> kinesis.listStreams())
                .isInstanceOfSatisfying(
                        KinesisException.class,
                        e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("UnrecognizedClientException"));

        S3Client s3 = track(S3Client.builder()
                .region(Region.of(REGION))
                .credentialsProvider(credentials())
                .endpointOverride(gate(AwsService.S3, new Decision.UnknownKey(KEY)))
                .forcePathStyle(true)
                .httpClientBuilder(UrlConnectionHttpClient.builder())
                .build());
        assertThatThrownBy(() -> s3.getObject(b -> b.bucket("lake").key("k")))
                .isInstanceOfSatisfying(
                        S3Exception.class,
                        e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("InvalidAccessKeyId"));
    }
}
