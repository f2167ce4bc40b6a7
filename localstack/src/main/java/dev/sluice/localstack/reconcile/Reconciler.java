package dev.sluice.localstack.reconcile;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * Reads every target of a lake + table + dead-letter pipeline and checks it against the
 * producer's ledger: each valid event exactly once in the lake and in the table, each invalid one
 * in the dead-letter queue with the expected reason code, nothing else anywhere. The dead-letter
 * queue is at least once (a standard SQS queue may deliver a message twice by itself): a record
 * dead lettered again with a redelivered batch counts once.
 */
public final class Reconciler {

    private static final int MAX_PROBLEMS = 10;

    private final S3Client s3;
    private final DynamoDbClient dynamoDb;
    private final SqsClient sqs;
    private final ObjectMapper mapper = new ObjectMapper();

    public Reconciler(S3Client s3, DynamoDbClient dynamoDb, SqsClient sqs) {
        this.s3 = s3;
        this.dynamoDb = dynamoDb;
        this.sqs = sqs;
    }

    public Reconciliation reconcile(
            List<LedgerEntry> ledger, String bucket, String lakePrefix, String table, String deadLetterQueueUrl) {
        Map<String, Integer> lake = lakeEventIds(bucket, lakePrefix);
        Map<String, Integer> items = tableEventIds(table);
        Map<String, List<String>> deadLetters = deadLetterReasons(deadLetterQueueUrl);

        List<String> problems = new ArrayList<>();
        long lost = 0;
        long unexpected = 0;
        Map<String, Boolean> validIds = new HashMap<>();
        Map<String, LedgerEntry> invalidPositions = new HashMap<>();
        for (LedgerEntry entry : ledger) {
            if (entry.event().valid()) {
                validIds.put(entry.event().eventId(), true);
                boolean missing = false;
                if (!lake.containsKey(entry.event().eventId())) {
                    note(problems, "lost from the lake: " + entry.event().eventId());
                    missing = true;
                }
                if (!items.containsKey(entry.event().eventId())) {
                    note(problems, "lost from the table: " + entry.event().eventId());
                    missing = true;
                }
                lost += missing ? 1 : 0;
            } else {
                invalidPositions.put(entry.position(), entry);
                List<String> reasons = deadLetters.get(entry.position());
                if (reasons == null) {
                    note(problems, "lost, not dead lettered: " + entry.event().eventId() + " at " + entry.position());
                    lost++;
                } else if (!reasons.get(0).equals(entry.event().expectedReason())) {
                    note(
                            problems,
                            "dead lettered as " + reasons.get(0) + ", expected "
                                    + entry.event().expectedReason() + ": "
                                    + entry.event().eventId());
                    unexpected++;
                }
            }
        }
        long duplicates = 0;
        for (var e : lake.entrySet()) {
            duplicates += e.getValue() - 1;
            if (e.getValue() > 1) {
                note(problems, "in the lake " + e.getValue() + " times: " + e.getKey());
            }
            if (!validIds.containsKey(e.getKey())) {
                note(problems, "in the lake but never produced as valid: " + e.getKey());
                unexpected++;
            }
        }
        for (var e : items.entrySet()) {
            duplicates += e.getValue() - 1;
            if (!validIds.containsKey(e.getKey())) {
                note(problems, "in the table but never produced as valid: " + e.getKey());
                unexpected++;
            }
        }
        for (var e : deadLetters.entrySet()) {
            // a dead letter sent again with a redelivered batch is not a duplicate effect: SQS standard
            // queues deliver at least once anyway, and each message names its record's position
            if (!invalidPositions.containsKey(e.getKey())) {
                note(problems, "dead lettered but produced as valid: " + e.getKey());
                unexpected++;
            }
        }
        return new Reconciliation(
                // a producer re-send of a valid event is one event; each bad record is dead lettered on its own
                validIds.size() + invalidPositions.size(),
                lake.values().stream().mapToLong(Integer::longValue).sum(),
                items.values().stream().mapToLong(Integer::longValue).sum(),
                deadLetters.size(),
                lost,
                duplicates,
                unexpected,
                List.copyOf(problems));
    }

    private static void note(List<String> problems, String problem) {
        if (problems.size() < MAX_PROBLEMS) {
            problems.add(problem);
        }
    }

    /** eventId → how many lines of the lake hold it. */
    private Map<String, Integer> lakeEventIds(String bucket, String prefix) {
        Map<String, Integer> ids = new HashMap<>();
        for (S3Object object :
                s3.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(prefix)).contents()) {
            try (ResponseInputStream<GetObjectResponse> in =
                            s3.getObject(b -> b.bucket(bucket).key(object.key()));
                    BufferedReader lines = new BufferedReader(
                            new InputStreamReader(new GZIPInputStream(in), StandardCharsets.UTF_8))) {
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                    if (!line.isBlank()) {
                        ids.merge(mapper.readTree(line).path("eventId").asText(), 1, Integer::sum);
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read s3://" + bucket + "/" + object.key(), e);
            }
        }
        return ids;
    }

    /** eventId → how many items of the table hold it. */
    private Map<String, Integer> tableEventIds(String table) {
        Map<String, Integer> ids = new HashMap<>();
        for (Map<String, AttributeValue> item :
                dynamoDb.scanPaginator(b -> b.tableName(table)).items()) {
            ids.merge(item.get("eventId").s(), 1, Integer::sum);
        }
        return ids;
    }

    /**
     * shard/sequence → reason codes of the dead letters for it. Messages are read, not deleted:
     * they stay for people to inspect once their visibility timeout passes.
     */
    private Map<String, List<String>> deadLetterReasons(String queueUrl) {
        Map<String, List<String>> reasons = new HashMap<>();
        int emptyReads = 0;
        while (emptyReads < 2) {
            int wait = emptyReads == 0 ? 0 : 1;
            List<Message> messages = sqs.receiveMessage(b -> b.queueUrl(queueUrl)
                            .maxNumberOfMessages(10)
                            .visibilityTimeout(600)
                            .waitTimeSeconds(wait))
                    .messages();
            if (messages.isEmpty()) {
                emptyReads++;
                continue;
            }
            emptyReads = 0;
            for (Message message : messages) {
                try {
                    JsonNode body = mapper.readTree(message.body());
                    String position = body.path("shardId").asText() + "/"
                            + body.path("sequenceNumber").asText();
                    reasons.computeIfAbsent(position, p -> new ArrayList<>())
                            .add(body.path("reasonCode").asText());
                } catch (IOException e) {
                    reasons.computeIfAbsent("unreadable/" + message.messageId(), p -> new ArrayList<>())
                            .add("?");
                }
            }
        }
        return reasons;
    }
}
