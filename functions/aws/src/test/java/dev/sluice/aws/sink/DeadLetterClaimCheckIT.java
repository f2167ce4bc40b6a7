package dev.sluice.aws.sink;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.event.DeadLetter;
import dev.sluice.core.event.ReasonCode;
import dev.sluice.core.testing.Records;
import dev.sluice.emulators.LocalAws;
import dev.sluice.emulators.LocalAwsExtension;
import dev.sluice.emulators.ResourceNames;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.services.sqs.model.Message;

/** The dead-letter sink against the S3 and SQS emulators: large records by claim check, nothing truncated. */
@ExtendWith(LocalAwsExtension.class)
class DeadLetterClaimCheckIT {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private static final Records RAW =
            Records.on("payments-raw").shard("shardId-000000000001").arrivedAt(Instant.parse("2026-12-01T10:00:00Z"));

    private static DeadLetter letter(int sequence, byte[] data, String partitionKey) {
        return new DeadLetter(
                RAW.partitionKey(partitionKey).at(700 + sequence, data),
                ReasonCode.MALFORMED_JSON,
                "Unexpected character ('x' (code 120)) at byte " + (data.length - 1));
    }

    private static byte[] bytes(int size, int fill) {
        byte[] data = new byte[size];
        Arrays.fill(data, (byte) fill);
        return data;
    }

    @Test
    void recordTooLargeForAMessageIsKeptWholeInTheBucketOnceAndReferencedFromItsMessage(
            LocalAws aws, ResourceNames names) throws Exception {
        String bucket = names.name("lake");
        aws.s3().createBucket(b -> b.bucket(bucket));
        String queue =
                aws.sqs().createQueue(b -> b.queueName(names.name("dlq"))).queueUrl();
        SqsDeadLetterSink dlq = new SqsDeadLetterSink(
                aws.sqs(), queue, "payments", "validate", MAPPER, aws.s3(), bucket, "payments-dlq");
        byte[] large = bytes(600 * 1024, '{'); // UTF-8 text, far beyond an SQS message
        byte[] binary = bytes(300 * 1024, 0xff); // not UTF-8: base64 would be 400 KiB
        // mid-size records: each fits a message, ten of them do not fit one batch request
        List<DeadLetter> letters = new ArrayList<>(List.of(letter(0, large, "cust-1"), letter(1, binary, "cust-2")));
        for (int i = 2; i < 14; i++) {
            letters.add(letter(i, bytes(100 * 1024, 'a'), "cust-" + i));
        }
        // characters SQS refuses in a message body, in a partition key and a payload
        letters.add(letter(14, "{\"x\":\"\uffff\"}".getBytes(StandardCharsets.UTF_8), "cust-\ufffe"));

        dlq.send(letters);
        dlq.send(letters.subList(0, 2)); // a redelivered batch

        List<JsonNode> bodies = new ArrayList<>();
        for (List<Message> page = receive(aws, queue); !page.isEmpty(); page = receive(aws, queue)) {
            for (Message m : page) {
                assertThat(m.body().getBytes(StandardCharsets.UTF_8).length)
                        .isLessThanOrEqualTo(SqsDeadLetterSink.MAX_MESSAGE_BYTES);
                bodies.add(MAPPER.readTree(m.body()));
            }
        }
        assertThat(bodies).hasSize(letters.size() + 2);
        assertThat(bodies).noneMatch(b -> b.path("payloadTruncated").asBoolean());

        String key = "sluice-dead-letters/payments-dlq/validate/payments-raw/shardId-000000000001/700";
        List<JsonNode> largeOnes = bodies.stream()
                .filter(b -> b.path("sequenceNumber").asText().equals("700"))
                .toList();
        assertThat(largeOnes).hasSize(2).allSatisfy(b -> {
            assertThat(b.path("payloadS3").path("bucket").asText()).isEqualTo(bucket);
            assertThat(b.path("payloadS3").path("key").asText()).isEqualTo(key);
            assertThat(b.path("payloadBytes").asInt()).isEqualTo(large.length);
            assertThat(b.path("payloadSha256").asText())
                    .isEqualTo(HexFormat.of()
                            .formatHex(MessageDigest.getInstance("SHA-256").digest(large)));
            assertThat(b.has("payload")).isFalse();
        });
        assertThat(aws.s3().getObjectAsBytes(b -> b.bucket(bucket).key(key)).asByteArray())
                .isEqualTo(large);
        assertThat(aws.s3()
                        .getObjectAsBytes(b -> b.bucket(bucket).key(key.replace("/700", "/701")))
                        .asByteArray())
                .isEqualTo(binary);
        // one object per claim-checked record, whatever the redeliveries
        assertThat(aws.s3().listObjectsV2Paginator(b -> b.bucket(bucket)).contents().stream()
                        .map(S3Object::key)
                        .toList())
                .containsExactlyInAnyOrder(key, key.replace("/700", "/701"));

        JsonNode odd = bodies.stream()
                .filter(b -> b.path("sequenceNumber").asText().equals("714"))
                .findFirst()
                .orElseThrow();
        assertThat(odd.path("partitionKey").asText()).isEqualTo("cust-\ufffe");
        assertThat(odd.path("payload").asText()).isEqualTo("{\"x\":\"\uffff\"}");
        assertThat(bodies.stream()
                        .filter(b -> b.path("sequenceNumber").asText().equals("705"))
                        .findFirst()
                        .orElseThrow()
                        .path("payload")
                        .asText())
                .hasSize(100 * 1024);
    }

    private static List<Message> receive(LocalAws aws, String queue) {
        return aws.sqs()
                .receiveMessage(b -> b.queueUrl(queue).maxNumberOfMessages(10).visibilityTimeout(120))
                .messages();
    }
}
