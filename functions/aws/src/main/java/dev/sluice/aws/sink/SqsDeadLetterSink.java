package dev.sluice.aws.sink;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.aws.access.Access;
import dev.sluice.core.event.DeadLetter;
import dev.sluice.core.event.InboundRecord;
import dev.sluice.core.stage.DeadLetterSink;
import dev.sluice.core.stage.SinkException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResponse;

/**
 * Sends dead letters to an SQS queue, up to ten per request and never more than SQS takes in one
 * request. Each message holds the reason code and detail, the record's position and partition key,
 * and its payload — as text when it is UTF-8, else base64 — so nothing is lost and the record can be
 * replayed after a fix. The reason code is also a message attribute, for filtering and alarms.
 *
 * <h2>Claim check</h2>
 *
 * A record too large to travel inline (its message would pass {@link #INLINE_BODY_LIMIT}; SQS takes
 * {@link #MAX_MESSAGE_BYTES}) is written whole to the pipeline's bucket at {@link
 * DeadLetter#claimCheckKey} — {@code sluice-dead-letters/<queue>/<stage>/<stream>/<shard>/<sequence>}
 * — with {@code If-None-Match: *}, and the message names the object ({@code payloadS3}), its size
 * and its SHA-256 instead of carrying the bytes. The key is deterministic, so a redelivered batch
 * finds the object there (412) and writes nothing twice. Without a bucket (a sink built without
 * one) such a record keeps only its head in the message, marked {@code payloadTruncated}.
 */
public final class SqsDeadLetterSink implements DeadLetterSink {

    /**
     * What the sink calls: {@code SendMessageBatch} on {@code queue} (authorized as {@code
     * sqs:SendMessage}; SSE-KMS needs {@code kms:GenerateDataKey} and {@code kms:Decrypt} of the
     * sender), and, with a bucket, {@code PutObject} of claim checks under {@code claimCheckPrefix}
     * ({@code null}: no bucket).
     */
    public static List<Access> access(String queue, String claimCheckPrefix) {
        List<Access> out = new java.util.ArrayList<>(List.of(
                Access.queue(queue, "sqs:SendMessage"), Access.key("sqs", "kms:GenerateDataKey", "kms:Decrypt")));
        if (claimCheckPrefix != null) {
            out.add(Access.objects(claimCheckPrefix + "*", "s3:PutObject"));
            out.add(Access.key("s3", "kms:GenerateDataKey"));
        }
        return out;
    }

    /** Message attribute carrying the {@link dev.sluice.core.event.ReasonCode}. */
    public static final String REASON_CODE_ATTRIBUTE = "sluice-reason-code";

    /** SQS's limit for one message, and for the sum of the messages of one batch request. */
    public static final int MAX_MESSAGE_BYTES = 256 * 1024;

    /** The largest message body that carries its payload inline; a larger record is claim-checked. */
    public static final int INLINE_BODY_LIMIT = 200 * 1024;

    private static final int MAX_BATCH = 10;
    /** Room left in a batch request for message attributes. */
    private static final int ATTRIBUTE_ALLOWANCE = 512;
    /** Without a claim check: the head of a large record kept in the message (base64 grows it by 4/3). */
    private static final int TRUNCATED_HEAD_BYTES = 140 * 1024;

    private static final int ATTEMPTS = 3;

    private final SqsClient sqs;
    private final String queueUrl;
    private final String pipeline;
    private final String stage;
    private final ObjectMapper mapper;
    private final S3Client s3;
    private final String bucket;
    private final String queue;

    /** A sink without a claim check: a record too large for a message keeps only its head there. */
    public SqsDeadLetterSink(SqsClient sqs, String queueUrl, String pipeline, String stage, ObjectMapper mapper) {
        this(sqs, queueUrl, pipeline, stage, mapper, null, null, null);
    }

    /**
     * @param s3 where claim checks are written
     * @param bucket the pipeline's bucket
     * @param queue the dead-letter queue's logical name (the definition's), which names the claim
     *     check prefix
     */
    public SqsDeadLetterSink(
            SqsClient sqs,
            String queueUrl,
            String pipeline,
            String stage,
            ObjectMapper mapper,
            S3Client s3,
            String bucket,
            String queue) {
        this.sqs = sqs;
        this.queueUrl = queueUrl;
        this.pipeline = pipeline;
        this.stage = stage;
        this.mapper = mapper;
        this.s3 = s3;
        this.bucket = bucket;
        this.queue = queue;
    }

    @Override
    public void send(List<DeadLetter> deadLetters) throws SinkException {
        List<SendMessageBatchRequestEntry> pending = new ArrayList<>();
        int pendingBytes = 0;
        for (DeadLetter letter : deadLetters) {
            SendMessageBatchRequestEntry entry = entry(letter);
            int size = entry.messageBody().getBytes(StandardCharsets.UTF_8).length + ATTRIBUTE_ALLOWANCE;
            if (!pending.isEmpty() && (pending.size() == MAX_BATCH || pendingBytes + size > MAX_MESSAGE_BYTES)) {
                sendWithRetries(pending);
                pending = new ArrayList<>();
                pendingBytes = 0;
            }
            pending.add(entry.toBuilder().id(Integer.toString(pending.size())).build());
            pendingBytes += size;
        }
        if (!pending.isEmpty()) {
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

    private SendMessageBatchRequestEntry entry(DeadLetter letter) throws SinkException {
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
        if (record.position().subSequence() != 0) {
            body.put("subSequenceNumber", record.position().subSequence());
        }
        body.put("partitionKey", record.partitionKey());
        if (record.arrivedAt() != null) {
            body.put("arrivedAt", record.arrivedAt().toString());
        }
        String message = inline(body, record.data());
        if (message == null) {
            body.put("payloadBytes", record.data().length);
            body.put("payloadSha256", sha256(record.data()));
            if (s3 != null) {
                String key = letter.claimCheckKey(queue, stage);
                claimCheck(key, letter);
                ObjectNode reference = body.putObject("payloadS3");
                reference.put("bucket", bucket);
                reference.put("key", key);
            } else {
                // no bucket to hold it: only the head travels; the record itself stays in the
                // stream for its retention period at the position above
                body.put(
                        "payloadBase64",
                        Base64.getEncoder()
                                .encodeToString(Arrays.copyOf(
                                        record.data(), Math.min(record.data().length, TRUNCATED_HEAD_BYTES))));
                body.put("payloadTruncated", true);
            }
            message = sqsSafe(body.toString());
        }
        return SendMessageBatchRequestEntry.builder()
                .id("0")
                .messageBody(message)
                .messageAttributes(Map.of(
                        REASON_CODE_ATTRIBUTE,
                        MessageAttributeValue.builder()
                                .dataType("String")
                                .stringValue(letter.code().name())
                                .build()))
                .build();
    }

    /** The message with the payload inline (text if UTF-8, else base64), or {@code null} if too large. */
    private String inline(ObjectNode body, byte[] data) {
        // a quick bound first: even as text, a record's message is at least as long as the record
        if (data.length > INLINE_BODY_LIMIT) {
            return null;
        }
        ObjectNode copy = body.deepCopy();
        String text = utf8(data);
        if (text != null) {
            copy.put("payload", text);
        } else {
            copy.put("payloadBase64", Base64.getEncoder().encodeToString(data));
            copy.put("payloadBytes", data.length);
        }
        String message = sqsSafe(copy.toString());
        return message.getBytes(StandardCharsets.UTF_8).length <= INLINE_BODY_LIMIT ? message : null;
    }

    /** Writes the whole record once; a redelivery finds it there. */
    private void claimCheck(String key, DeadLetter letter) throws SinkException {
        String where = "claim check s3://" + bucket + "/" + key;
        try {
            s3.putObject(
                    b -> b.bucket(bucket)
                            .key(key)
                            .ifNoneMatch("*")
                            .contentType("application/octet-stream")
                            .metadata(Map.of("reason-code", letter.code().name())),
                    RequestBody.fromBytes(letter.source().data()));
        } catch (S3Exception e) {
            if (e.statusCode() == 412) {
                return; // written by an earlier delivery of this batch
            }
            if (e.statusCode() == 409) {
                // a concurrent conditional write of the same key: settle on the next delivery
                throw new SinkException(where + ": " + e.getMessage(), true, e);
            }
            throw SdkErrors.classify(where, e);
        } catch (SdkException e) {
            throw SdkErrors.classify(where, e);
        }
    }

    /**
     * The JSON text with every character SQS refuses in a message (U+FFFE, U+FFFF, unpaired
     * surrogates; control characters are escaped by Jackson already) written as a JSON escape: the
     * same JSON value, and a message SQS takes — else one odd partition key or payload would fail
     * the batch on every delivery and block its shard.
     */
    static String sqsSafe(String json) {
        StringBuilder safe = null;
        int n = json.length();
        for (int i = 0; i < n; i++) {
            char c = json.charAt(i);
            boolean refused;
            if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(json.charAt(i + 1))) {
                if (safe != null) {
                    safe.append(c).append(json.charAt(i + 1));
                }
                i++;
                continue;
            }
            refused = c == '\ufffe' || c == '\uffff' || Character.isSurrogate(c);
            if (refused && safe == null) {
                safe = new StringBuilder(n + 16).append(json, 0, i);
            }
            if (safe != null) {
                if (refused) {
                    safe.append(String.format("\\u%04x", (int) c));
                } else {
                    safe.append(c);
                }
            }
        }
        return safe == null ? json : safe.toString();
    }

    private static String sha256(byte[] data) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("no SHA-256 in this JVM", e);
        }
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
