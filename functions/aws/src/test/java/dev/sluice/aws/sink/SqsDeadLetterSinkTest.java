package dev.sluice.aws.sink;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.event.DeadLetter;
import dev.sluice.core.event.ReasonCode;
import dev.sluice.core.testing.Records;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequest;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResponse;

/** What the dead-letter sink asks of SQS: requests SQS takes, whatever the records. */
class SqsDeadLetterSinkTest {

    /** SQS's limit for a message and for a whole batch request. */
    private static final int SQS_LIMIT = 256 * 1024;

    /** Records the batch requests; SQS's checks are asserted by the tests. */
    private static final class RecordingSqs implements SqsClient {
        final List<SendMessageBatchRequest> requests = new ArrayList<>();

        @Override
        public SendMessageBatchResponse sendMessageBatch(SendMessageBatchRequest request) {
            requests.add(request);
            return SendMessageBatchResponse.builder().build();
        }

        @Override
        public String serviceName() {
            return "sqs";
        }

        @Override
        public void close() {}

        List<SendMessageBatchRequestEntry> entries() {
            return requests.stream().flatMap(r -> r.entries().stream()).toList();
        }
    }

    private static final Records RAW = Records.on("payments-raw").arrivedAt(Instant.parse("2026-12-01T10:00:00Z"));

    private static DeadLetter letter(int sequence, byte[] data, String partitionKey) {
        return new DeadLetter(
                RAW.partitionKey(partitionKey).at(100 + sequence, data),
                ReasonCode.SCHEMA_INVALID,
                "$.payload.merchant.name: must be at most 128 characters long (maxLength)");
    }

    private static int bytes(String body) {
        return body.getBytes(StandardCharsets.UTF_8).length;
    }

    private final RecordingSqs sqs = new RecordingSqs();
    private final SqsDeadLetterSink sink =
            new SqsDeadLetterSink(sqs, "queue", "payments", "validate", new ObjectMapper());

    @Test
    void textOfThreeByteCharactersTooLargeForAMessageIsNotSentInline() throws Exception {
        // 100,000 characters: under the old 200 Ki-character test, but 300,000 bytes of UTF-8
        byte[] data =
                "{\"name\":\"".concat("\u6c34".repeat(100_000)).concat("\"}").getBytes(StandardCharsets.UTF_8);

        sink.send(List.of(letter(0, data, "cust-1")));

        assertThat(sqs.entries())
                .singleElement()
                .satisfies(entry -> assertThat(bytes(entry.messageBody())).isLessThanOrEqualTo(SQS_LIMIT));
    }

    @Test
    void batchRequestsStayWithinSqsLimitsAndCarryEveryLetter() throws Exception {
        List<DeadLetter> letters = new ArrayList<>();
        for (int i = 0; i < 25; i++) {
            letters.add(letter(i, "a".repeat(60 * 1024).getBytes(StandardCharsets.UTF_8), "cust-" + i));
        }

        sink.send(letters);

        assertThat(sqs.requests).allSatisfy(request -> {
            assertThat(request.entries()).hasSizeLessThanOrEqualTo(10);
            assertThat(request.entries().stream()
                            .mapToInt(e -> bytes(e.messageBody()))
                            .sum())
                    .isLessThanOrEqualTo(SQS_LIMIT);
            assertThat(request.entries().stream().map(SendMessageBatchRequestEntry::id))
                    .doesNotHaveDuplicates();
        });
        assertThat(sqs.entries()).hasSize(25);
    }

    @Test
    void charactersSqsRefusesAreSentAsJsonEscapesOfTheSameValue() throws Exception {
        String payload = "{\"name\":\"a\uffffb\"}";

        sink.send(List.of(letter(0, payload.getBytes(StandardCharsets.UTF_8), "cust-\ufffe")));

        String body = sqs.entries().get(0).messageBody();
        // SQS takes #x9, #xA, #xD, #x20-#xD7FF, #xE000-#xFFFD and #x10000-#x10FFFF only
        assertThat(body.chars()
                        .filter(c -> c == 0xfffe || c == 0xffff || Character.isSurrogate((char) c))
                        .count())
                .isZero();
        JsonNode json = new ObjectMapper().readTree(body);
        assertThat(json.path("partitionKey").asText()).isEqualTo("cust-\ufffe");
        assertThat(json.path("payload").asText()).isEqualTo(payload);
    }

    @Test
    void escapingLeavesPairedSurrogatesAndPlainTextAlone() {
        assertThat(SqsDeadLetterSink.sqsSafe("{\"a\":\"\ud83d\ude00 caf\u00e9\"}"))
                .isEqualTo("{\"a\":\"\ud83d\ude00 caf\u00e9\"}");
        assertThat(SqsDeadLetterSink.sqsSafe("{\"a\":\"x\ud800\"}")).isEqualTo("{\"a\":\"x\\ud800\"}");
    }
}
