package dev.sluice.emulators.iam;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.emulators.LocalAws;
import dev.sluice.emulators.LocalAwsOptions;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;

/**
 * The gates verify every request's SigV4 signature with the SDK's own signer, against the real
 * emulators: per service a request signed with the right secret goes through, and one signed with a
 * wrong secret, one whose date is 20 minutes old and one whose body was altered after signing are
 * refused with the error AWS gives — Kinesis and DynamoDB 400 {@code InvalidSignatureException}, S3
 * 403 {@code SignatureDoesNotMatch} / {@code RequestTimeTooSkewed} (400 {@code
 * XAmzContentSHA256Mismatch} for a body that is not its declared hash), SQS 403 {@code
 * SignatureDoesNotMatch}.
 */
class SignatureVerificationIT {

    private static final String KEY = "AKIASIGV4PERSONA0001";
    private static final String SECRET = "persona-secret-0001";
    private static final StaticCredentialsProvider PERSONA =
            StaticCredentialsProvider.create(AwsBasicCredentials.create(KEY, SECRET));
    private static final StaticCredentialsProvider WRONG =
            StaticCredentialsProvider.create(AwsBasicCredentials.create(KEY, "not-the-secret"));
    private static final HttpClient HTTP =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private static LocalAws aws;
    private static String bucket;

    @BeforeAll
    static void start() {
        aws = LocalAws.start(LocalAwsOptions.builder().accessGates(true).build());
        // a persona that may do everything: only its signature is under test
        aws.accessControl().authorizer(new Authorizer() {
            @Override
            public Decision authorize(String accessKeyId, ServiceCall call) {
                return Set.of(KEY, LocalAws.ACCESS_KEY_ID).contains(accessKeyId)
                        ? Decision.ALLOWED
                        : new Decision.UnknownKey(accessKeyId);
            }

            @Override
            public String secretAccessKey(String accessKeyId) {
                return KEY.equals(accessKeyId) ? SECRET : null;
            }
        });
        bucket = "sigv4-" + Long.toHexString(System.nanoTime());
        aws.s3().createBucket(r -> r.bucket(bucket));
    }

    @AfterAll
    static void stop() {
        if (aws != null) {
            aws.close();
        }
    }

    // ---- the right secret, through the SDK clients ----------------------------------------------

    @Test
    void aRequestSignedWithTheRightSecretIsServedByEveryService() {
        assertThat(aws.kinesis(PERSONA).listStreams().hasStreamNames()).isTrue();
        assertThat(aws.dynamoDb(PERSONA).listTables().hasTableNames()).isTrue();
        assertThat(aws.sqs(PERSONA).listQueues().sdkHttpResponse().isSuccessful())
                .isTrue();
        // S3's default upload: aws-chunked with a trailing checksum, the seed signature verified
        aws.s3(PERSONA).putObject(r -> r.bucket(bucket).key("a/b c.json"), RequestBody.fromString("{\"a\":1}"));
        assertThat(aws.s3(PERSONA)
                        .getObjectAsBytes(r -> r.bucket(bucket).key("a/b c.json"))
                        .asUtf8String())
                .isEqualTo("{\"a\":1}");
        // as the lake sink puts: Content-Encoding gzip, which the SDK sends beside aws-chunked on two lines
        aws.s3(PERSONA)
                .putObject(
                        r -> r.bucket(bucket)
                                .key("a/dt=2026-12-06/part.gz")
                                .ifNoneMatch("*")
                                .contentEncoding("gzip")
                                .contentType("application/x-ndjson")
                                .metadata(java.util.Map.of("record-count", "1")),
                        RequestBody.fromBytes(new byte[] {31, -117, 8, 0}));
        assertThat(aws.s3(PERSONA)
                        .listObjectsV2(r -> r.bucket(bucket).prefix("a/"))
                        .keyCount())
                .isEqualTo(2);
    }

    // ---- a wrong secret, through the SDK clients -----------------------------------------------

    @Test
    void kinesisRefusesAWrongSecretWithInvalidSignatureException() {
        assertThatThrownBy(() -> aws.kinesis(WRONG).listStreams())
                .isInstanceOfSatisfying(AwsServiceException.class, e -> {
                    assertThat(e.statusCode()).isEqualTo(400);
                    assertThat(e.awsErrorDetails().errorCode()).isEqualTo("InvalidSignatureException");
                    assertThat(e.awsErrorDetails().errorMessage())
                            .startsWith(
                                    "The request signature we calculated does not match the signature you provided");
                });
    }

    @Test
    void dynamoDbRefusesAWrongSecretWithInvalidSignatureException() {
        assertThatThrownBy(() -> aws.dynamoDb(WRONG).listTables())
                .isInstanceOfSatisfying(AwsServiceException.class, e -> {
                    assertThat(e.statusCode()).isEqualTo(400);
                    assertThat(e.awsErrorDetails().errorCode()).isEqualTo("InvalidSignatureException");
                    assertThat(e.awsErrorDetails().errorMessage())
                            .startsWith(
                                    "The request signature we calculated does not match the signature you provided");
                });
    }

    @Test
    void s3RefusesAWrongSecretWith403SignatureDoesNotMatch() {
        assertThatThrownBy(() -> aws.s3(WRONG).listObjectsV2(r -> r.bucket(bucket)))
                .isInstanceOfSatisfying(AwsServiceException.class, e -> {
                    assertThat(e.statusCode()).isEqualTo(403);
                    assertThat(e.awsErrorDetails().errorCode()).isEqualTo("SignatureDoesNotMatch");
                });
        assertThatThrownBy(
                        () -> aws.s3(WRONG).putObject(r -> r.bucket(bucket).key("wrong"), RequestBody.fromString("x")))
                .isInstanceOfSatisfying(
                        AwsServiceException.class,
                        e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("SignatureDoesNotMatch"));
        assertThat(aws.s3().listObjectsV2(r -> r.bucket(bucket).prefix("wrong")).keyCount())
                .isZero();
    }

    @Test
    void sqsRefusesAWrongSecretWith403SignatureDoesNotMatch() {
        assertThatThrownBy(() -> aws.sqs(WRONG).listQueues()).isInstanceOfSatisfying(AwsServiceException.class, e -> {
            assertThat(e.statusCode()).isEqualTo(403);
            assertThat(e.awsErrorDetails().errorCode()).isEqualTo("SignatureDoesNotMatch");
        });
    }

    @Test
    void anUnknownKeyAndAnUnsignedRequestAreStillRefusedAsBefore() throws Exception {
        assertThatThrownBy(() -> aws.kinesis(StaticCredentialsProvider.create(
                                AwsBasicCredentials.create("AKIANOBODY0000000000", "x")))
                        .listStreams())
                .isInstanceOfSatisfying(
                        AwsServiceException.class,
                        e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("UnrecognizedClientException"));
        HttpResponse<String> unsigned = HTTP.send(
                HttpRequest.newBuilder(aws.dynamoDbEndpoint())
                        .header("Content-Type", "application/x-amz-json-1.0")
                        .header("X-Amz-Target", "DynamoDB_20120810.ListTables")
                        .POST(HttpRequest.BodyPublishers.ofString("{}"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(unsigned.statusCode()).isEqualTo(400);
        assertThat(unsigned.body()).contains("MissingAuthenticationTokenException");
    }

    // ---- raw requests signed by the SDK's signer: stale date, altered body ---------------------

    @Test
    void aStaleDateIsRefusedAsExpiredByEveryService() throws Exception {
        Clock stale = Clock.offset(Clock.systemUTC(), Duration.ofMinutes(-20));
        HttpResponse<String> kinesis = kinesis("{}", "{}", stale);
        assertThat(kinesis.statusCode()).isEqualTo(400);
        assertThat(kinesis.body()).contains("InvalidSignatureException").contains("Signature expired");
        HttpResponse<String> dynamo = dynamoDb("{}", "{}", stale);
        assertThat(dynamo.statusCode()).isEqualTo(400);
        assertThat(dynamo.body()).contains("InvalidSignatureException").contains("Signature expired");
        HttpResponse<String> sqs = sqs("{}", "{}", stale);
        assertThat(sqs.statusCode()).isEqualTo(403);
        assertThat(sqs.headers().firstValue("x-amzn-query-error")).hasValue("SignatureDoesNotMatch;Sender");
        assertThat(sqs.body()).contains("Signature expired");
        HttpResponse<String> s3 = s3Put("stale", "x", "x", stale, null);
        assertThat(s3.statusCode()).isEqualTo(403);
        assertThat(s3.body()).contains("<Code>RequestTimeTooSkewed</Code>");
        // and a date 20 minutes ahead
        HttpResponse<String> ahead = kinesis("{}", "{}", Clock.offset(Clock.systemUTC(), Duration.ofMinutes(20)));
        assertThat(ahead.body()).contains("InvalidSignatureException").contains("Signature not yet current");
    }

    @Test
    void aBodyAlteredAfterSigningIsRefusedByEveryService() throws Exception {
        Clock now = Clock.systemUTC();
        assertThat(kinesis("{}", "{}", now).statusCode()).isEqualTo(200);
        HttpResponse<String> kinesis = kinesis("{\"Limit\":1}", "{\"Limit\":2}", now);
        assertThat(kinesis.statusCode()).isEqualTo(400);
        assertThat(kinesis.body()).contains("InvalidSignatureException");

        assertThat(dynamoDb("{}", "{}", now).statusCode()).isEqualTo(200);
        HttpResponse<String> dynamo = dynamoDb("{\"Limit\":1}", "{\"Limit\":2}", now);
        assertThat(dynamo.statusCode()).isEqualTo(400);
        assertThat(dynamo.body()).contains("InvalidSignatureException");

        assertThat(sqs("{}", "{}", now).statusCode()).isEqualTo(200);
        HttpResponse<String> sqs = sqs("{\"QueueNamePrefix\":\"a\"}", "{\"QueueNamePrefix\":\"b\"}", now);
        assertThat(sqs.statusCode()).isEqualTo(403);
        assertThat(sqs.body()).contains("SignatureDoesNotMatch");

        assertThat(s3Put("signed", "original", "original", now, null).statusCode())
                .isEqualTo(200);
        // the same length, another body: not the hash the request declares
        HttpResponse<String> declared = s3Put("altered", "original", "origina!", now, null);
        assertThat(declared.statusCode()).isEqualTo(400);
        assertThat(declared.body()).contains("<Code>XAmzContentSHA256Mismatch</Code>");
        // the declared hash changed with the body, after signing
        HttpResponse<String> rehashed = s3Put(
                "altered",
                "original",
                "origina!",
                now,
                SignatureVerifier.sha256Hex("origina!".getBytes(StandardCharsets.UTF_8)));
        assertThat(rehashed.statusCode()).isEqualTo(403);
        assertThat(rehashed.body()).contains("<Code>SignatureDoesNotMatch</Code>");
        assertThat(aws.s3()
                        .listObjectsV2(r -> r.bucket(bucket).prefix("altered"))
                        .keyCount())
                .isZero();
    }

    /** A JSON-protocol service the gates front, and one harmless read of it. */
    private enum JsonRead {
        KINESIS("kinesis", "application/x-amz-json-1.1", "Kinesis_20131202.ListStreams"),
        DYNAMODB("dynamodb", "application/x-amz-json-1.0", "DynamoDB_20120810.ListTables"),
        SQS("sqs", "application/x-amz-json-1.0", "AmazonSQS.ListQueues");

        final String service;
        final String type;
        final String target;

        JsonRead(String service, String type, String target) {
            this.service = service;
            this.type = type;
            this.target = target;
        }

        URI endpoint() {
            return switch (this) {
                case KINESIS -> aws.kinesisEndpoint();
                case DYNAMODB -> aws.dynamoDbEndpoint();
                case SQS -> aws.sqsEndpoint();
            };
        }
    }

    private static HttpResponse<String> kinesis(String signedBody, String sentBody, Clock clock) throws Exception {
        return json(JsonRead.KINESIS, signedBody, sentBody, clock);
    }

    private static HttpResponse<String> dynamoDb(String signedBody, String sentBody, Clock clock) throws Exception {
        return json(JsonRead.DYNAMODB, signedBody, sentBody, clock);
    }

    private static HttpResponse<String> sqs(String signedBody, String sentBody, Clock clock) throws Exception {
        return json(JsonRead.SQS, signedBody, sentBody, clock);
    }

    private static HttpResponse<String> json(JsonRead read, String signedBody, String sentBody, Clock clock)
            throws Exception {
        SdkHttpRequest request = SdkHttpRequest.builder()
                .method(SdkHttpMethod.POST)
                .uri(URI.create(read.endpoint() + "/"))
                .putHeader("Content-Type", read.type)
                .putHeader("X-Amz-Target", read.target)
                .putHeader("Content-Length", Integer.toString(signedBody.getBytes(StandardCharsets.UTF_8).length))
                .build();
        Map<String, String> headers = sign(request, signedBody, read.service, clock, false);
        return send("POST", request.getUri(), headers, sentBody);
    }

    private static HttpResponse<String> s3Put(
            String key, String signedBody, String sentBody, Clock clock, String sha256) throws Exception {
        byte[] signed = signedBody.getBytes(StandardCharsets.UTF_8);
        SdkHttpRequest request = SdkHttpRequest.builder()
                .method(SdkHttpMethod.PUT)
                .uri(URI.create(aws.s3Endpoint() + "/" + bucket + "/" + key))
                .putHeader("Content-Type", "text/plain")
                .putHeader("x-amz-content-sha256", SignatureVerifier.sha256Hex(signed))
                .build();
        Map<String, String> headers = sign(request, signedBody, "s3", clock, true);
        if (sha256 != null) {
            headers.put("x-amz-content-sha256", sha256);
        }
        return send("PUT", request.getUri(), headers, sentBody);
    }

    private static Map<String, String> sign(
            SdkHttpRequest request, String body, String service, Clock clock, boolean s3) {
        SignedRequest signed = AwsV4HttpSigner.create()
                .sign(r -> r.identity(AwsCredentialsIdentity.create(KEY, SECRET))
                        .request(request)
                        .payload(ContentStreamProvider.fromUtf8String(body))
                        .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, service)
                        .putProperty(AwsV4HttpSigner.REGION_NAME, aws.region().id())
                        .putProperty(AwsV4HttpSigner.DOUBLE_URL_ENCODE, !s3)
                        .putProperty(AwsV4HttpSigner.NORMALIZE_PATH, !s3)
                        .putProperty(AwsV4HttpSigner.PAYLOAD_SIGNING_ENABLED, true)
                        .putProperty(HttpSigner.SIGNING_CLOCK, clock));
        Map<String, String> headers = new LinkedHashMap<>();
        signed.request().forEachHeader((name, values) -> headers.put(name, values.get(0)));
        return headers;
    }

    private static HttpResponse<String> send(String method, URI uri, Map<String, String> headers, String body)
            throws Exception {
        HttpRequest.Builder builder =
                HttpRequest.newBuilder(uri).method(method, HttpRequest.BodyPublishers.ofString(body));
        // the JDK client sets Host and Content-Length itself (the same values)
        headers.forEach((name, value) -> {
            String lower = name.toLowerCase(Locale.ROOT);
            if (!lower.equals("host") && !lower.equals("content-length")) {
                builder.header(name, value);
            }
        });
        return HTTP.send(builder.build(), HttpResponse.BodyHandlers.ofString());
    }
}
