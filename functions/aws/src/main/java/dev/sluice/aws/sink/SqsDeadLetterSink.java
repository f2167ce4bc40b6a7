package dev.sluice.aws.sink;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.core.event.DeadLetter;
import dev.sluice.core.event.InboundRecord;
import dev.sluice.core.stage.DeadLetterSink;
import dev.sluice.core.stage.SinkException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResponse;

/**
 * Sends dead letters to an SQS queue, ten per request. Each message holds the reason code and
 * detail, the record's position and partition key, and its payload — as text when it is UTF-8,
 * else base64 — so nothing is lost and the record can be replayed after a fix. The reason code is
 * also a message attribute, for filtering and alarms.
 */
public final class SqsDeadLetterSink implements DeadLetterSink {

    /** Message attribute carrying the {@link dev.sluice.core.event.ReasonCode}. */
    public static final String REASON_CODE_ATTRIBUTE = "sluice-reason-code";

    private static final int MAX_BATCH = 10;
    private static final int PAYLOAD_TEXT_LIMIT = 200 * 1024;
    private static final int ATTEMPTS = 3;

    private final SqsClient sqs;
    private final String queueUrl;
    private final String pipeline;
    private final String stage;
    private final ObjectMapper mapper;

    public SqsDeadLetterSink(SqsClient sqs, String queueUrl, String pipeline, String stage, ObjectMapper mapper) {
        this.sqs = sqs;
        this.queueUrl = queueUrl;
        this.pipeline = pipeline;
        this.stage = stage;
        this.mapper = mapper;
    }

    @Override
    public void send(List<DeadLetter> deadLetters) throws SinkException {
        for (int from = 0; from < deadLetters.size(); from += MAX_BATCH) {
            List<DeadLetter> chunk = deadLetters.subList(from, Math.min(from + MAX_BATCH, deadLetters.size()));
            List<SendMessageBatchRequestEntry> pending = new ArrayList<>();
            for (int i = 0; i < chunk.size(); i++) {
                pending.add(entry(Integer.toString(i), chunk.get(i)));
            }
            sendWithRetries(pending);
        }
    }

    private void sendWithRetries(List<SendMessageBatchRequestEntry> pending) throws SinkException {
        for (int attempt = 1; ; attempt++) {
            SendMessageBatchResponse response;
            try {
                List<SendMessageBatchRequestEntry> entries = pending;
                response = sqs.sendMessageBatch(b -> b.queueUrl(queueUrl).entries(entries));
            } catch (SdkException e) {
                throw SdkErrors.classify("send to dead-letter queue " + queueUrl, e);
            }
            if (response.failed().isEmpty()) {
                return;
            }
            List<String> failedIds = response.failed().stream().map(f -> f.id()).toList();
            pending = pending.stream().filter(e -> failedIds.contains(e.id())).toList();
            if (attempt == ATTEMPTS) {
                throw new SinkException(
                        "dead-letter queue " + queueUrl + " refused " + pending.size() + " messages: "
                                + response.failed().get(0).message(),
                        !response.failed().get(0).senderFault(),
                        null);
            }
        }
    }

    private SendMessageBatchRequestEntry entry(String id, DeadLetter letter) {
        InboundRecord record = letter.source();
        ObjectNode body = mapper.createObjectNode();
        body.put("reason", letter.reason());
        body.put("reasonCode", letter.code().name());
        body.put("detail", letter.detail());
        body.put("pipeline", pipeline);
        body.put("stage", stage);
        body.put("stream", record.stream());
        body.put("shardId", record.position().shardId());
        body.put("sequenceNumber", record.position().sequenceNumber());
        body.put("partitionKey", record.partitionKey());
        if (record.arrivedAt() != null) {
            body.put("arrivedAt", record.arrivedAt().toString());
        }
        String text = utf8(record.data());
        if (text != null && text.length() <= PAYLOAD_TEXT_LIMIT) {
            body.put("payload", text);
        } else {
            // large or binary payloads keep every byte, up to SQS's message limit
            body.put("payloadBase64", Base64.getEncoder().encodeToString(truncate(record.data())));
            body.put("payloadBytes", record.data().length);
            // beyond SQS's message size only the head travels; the record itself stays in the
            // stream for its retention period at the position above
            body.put("payloadTruncated", record.data().length > PAYLOAD_TEXT_LIMIT);
        }
        return SendMessageBatchRequestEntry.builder()
                .id(id)
                .messageBody(body.toString())
                .messageAttributes(Map.of(
                        REASON_CODE_ATTRIBUTE,
                        MessageAttributeValue.builder()
                                .dataType("String")
                                .stringValue(letter.code().name())
                                .build()))
                .build();
    }

    private static byte[] truncate(byte[] data) {
        int limit = PAYLOAD_TEXT_LIMIT;
        if (data.length <= limit) {
            return data;
        }
        byte[] head = new byte[limit];
        System.arraycopy(data, 0, head, 0, limit);
        return head;
    }

    private static String utf8(byte[] data) {
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(data))
                    .toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }
}
