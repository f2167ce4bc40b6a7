package dev.sluice.aws.sink;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.core.event.DeadLetter;
import dev.sluice.core.event.InboundRecord;
import dev.sluice.core.event.Position;
import dev.sluice.core.event.ProcessedEvent;
import dev.sluice.core.event.ReasonCode;
import dev.sluice.core.stage.DeduplicatingSink;
import dev.sluice.core.stage.SinkException;
import dev.sluice.core.stage.SinkReport;
import dev.sluice.core.testing.Records;
import dev.sluice.emulators.LocalAws;
import dev.sluice.emulators.LocalAwsExtension;
import dev.sluice.emulators.ResourceNames;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.services.sqs.model.Message;

/** The idempotent sinks against the real emulators: what a redelivered batch does to each target. */
@ExtendWith(LocalAwsExtension.class)
public class SinksIT {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final ExecutorService WRITERS = Executors.newFixedThreadPool(4);

    @AfterAll
    static void stopWriters() {
        WRITERS.shutdownNow();
    }

    public static ProcessedEvent event(String shard, long sequence, String eventId, String key, String occurredAt) {
        ObjectNode json = MAPPER.createObjectNode();
        json.put("eventId", eventId);
        json.put("key", key);
        json.put("occurredAt", occurredAt);
        json.put("ingestedAt", "2026-11-30T20:00:00Z");
        byte[] data = json.toString().getBytes(StandardCharsets.UTF_8);
        InboundRecord record = Records.on("payments-raw")
                .shard(shard)
                .partitionKey(key)
                .arrivedAt(Instant.now())
                .at(sequence, data);
        return new ProcessedEvent(record, eventId, key, Instant.parse(occurredAt), json);
    }

    public static List<ProcessedEvent> batch(int from, int count, String hour) {
        List<ProcessedEvent> events = new ArrayList<>();
        for (int i = from; i < from + count; i++) {
            events.add(event(
                    "shardId-000000000000",
                    1000 + i,
                    "pay-" + i,
                    "cust-" + (i % 3),
                    hour + ":" + String.format("%02d", i % 60) + ":00Z"));
        }
        return events;
    }

    private static String table(LocalAws aws, ResourceNames names) {
        return Tables.create(aws, names.name("state"), "pk");
    }

    /** A lake commit ledger table of its own for one test. */
    public static String ledger(LocalAws aws, ResourceNames names) {
        return Tables.create(aws, names.name("lake-ledger"), "pk");
    }

    @Test
    void replayedBatchIsAbsorbedByTheTable(LocalAws aws, ResourceNames names) throws SinkException {
        DynamoDbStateSink sink = new DynamoDbStateSink(aws.dynamoDb(), table(aws, names), "eventId", WRITERS);
        List<ProcessedEvent> events = batch(0, 25, "2026-11-30T10");

        assertThat(sink.write(events)).isEqualTo(new SinkReport(25, 0));
        assertThat(sink.write(events)).isEqualTo(new SinkReport(0, 25));
        assertThat(sink.write(events.subList(5, 12))).isEqualTo(new SinkReport(0, 7));
    }

    @Test
    void deduplicatingTableTellsProducerResendsFromReplays(LocalAws aws, ResourceNames names) throws SinkException {
        String table = table(aws, names);
        DynamoDbStateSink byId = new DynamoDbStateSink(aws.dynamoDb(), table, "eventId", WRITERS, true);
        List<ProcessedEvent> first = batch(0, 10, "2026-11-30T10");
        ProcessedEvent resent = event("shardId-000000000000", 2000, "pay-3", "cust-0", "2026-11-30T10:03:00Z");
        ProcessedEvent resentTwiceInOneBatch =
                event("shardId-000000000000", 2001, "pay-20", "cust-2", "2026-11-30T10:20:00Z");
        ProcessedEvent original = event("shardId-000000000000", 1999, "pay-20", "cust-2", "2026-11-30T10:20:00Z");

        DeduplicatingSink.Gated applied = byId.writeAndGate(first);
        DeduplicatingSink.Gated replayed = byId.writeAndGate(first.subList(2, 6));
        DeduplicatingSink.Gated mixed = byId.writeAndGate(List.of(original, resent, resentTwiceInOneBatch));

        assertThat(applied).isEqualTo(new DeduplicatingSink.Gated(new SinkReport(10, 0), Set.of()));
        assertThat(replayed).isEqualTo(new DeduplicatingSink.Gated(new SinkReport(0, 4), Set.of()));
        assertThat(mixed.report()).isEqualTo(new SinkReport(1, 2));
        assertThat(mixed.resent()).containsExactlyInAnyOrder(resent.position(), resentTwiceInOneBatch.position());
        Map<String, AttributeValue> item = aws.dynamoDb()
                .getItem(b -> b.tableName(table).key(Map.of("pk", AttributeValue.fromS("pay-3"))))
                .item();
        assertThat(item.get("position").s()).isEqualTo(first.get(3).position().sortable());
    }

    @Test
    void itemOverTheSizeLimitIsRejectedAloneNotTheBatch(LocalAws aws, ResourceNames names) throws SinkException {
        DynamoDbStateSink sink = new DynamoDbStateSink(aws.dynamoDb(), table(aws, names), "eventId", WRITERS);
        List<ProcessedEvent> events = new ArrayList<>(batch(0, 3, "2026-11-30T10"));
        events.get(1).event().put("blob", "x".repeat(410 * 1024));

        SinkReport report = sink.write(events);

        assertThat(report.applied()).isEqualTo(2);
        assertThat(report.rejected()).singleElement().satisfies(r -> {
            assertThat(r.event().eventId()).isEqualTo("pay-1");
            assertThat(r.reason()).containsIgnoringCase("size");
        });
    }

    @Test
    void olderPositionNeverOverwritesNewerState(LocalAws aws, ResourceNames names) throws SinkException {
        String table = table(aws, names);
        DynamoDbStateSink byCustomer = new DynamoDbStateSink(aws.dynamoDb(), table, "key", WRITERS);
        ProcessedEvent older = event("shardId-000000000000", 9, "pay-old", "cust-1", "2026-11-30T10:00:00Z");
        ProcessedEvent newer = event("shardId-000000000000", 10, "pay-new", "cust-1", "2026-11-30T10:00:01Z");

        assertThat(byCustomer.write(List.of(newer))).isEqualTo(new SinkReport(1, 0));
        assertThat(byCustomer.write(List.of(older))).isEqualTo(new SinkReport(0, 1));

        Map<String, AttributeValue> item = aws.dynamoDb()
                .getItem(b -> b.tableName(table).key(Map.of("pk", AttributeValue.fromS("cust-1"))))
                .item();
        assertThat(item.get("eventId").s()).isEqualTo("pay-new");
        assertThat(item.get("position").s()).isEqualTo(newer.position().sortable());
    }

    @Test
    void lakeAdoptsTheObjectAnEarlierDeliveryWroteAndWritesOnlyTheRest(LocalAws aws, ResourceNames names)
            throws Exception {
        String bucket = names.name("lake");
        aws.s3().createBucket(b -> b.bucket(bucket));
        S3LakeSink lake = new S3LakeSink(aws.s3(), bucket, "payments/", aws.dynamoDb(), ledger(aws, names));

        // first delivery: 5 records; the batch then fails elsewhere and is delivered again, larger
        assertThat(lake.write(batch(0, 5, "2026-11-30T10"))).isEqualTo(new SinkReport(5, 0));
        assertThat(lake.write(batch(0, 8, "2026-11-30T10"))).isEqualTo(new SinkReport(3, 5));
        // and once more, exactly as before
        assertThat(lake.write(batch(0, 8, "2026-11-30T10"))).isEqualTo(new SinkReport(0, 8));

        List<String> keys = keys(aws, bucket);
        assertThat(keys)
                .containsExactly(
                        "payments/dt=2026-11-30/hr=10/payments-raw-shardId-000000000000-"
                                + Position.of("s", "1000").sortable() + ".jsonl.gz",
                        "payments/dt=2026-11-30/hr=10/payments-raw-shardId-000000000000-"
                                + Position.of("s", "1005").sortable() + ".jsonl.gz");
        assertThat(eventIds(aws, bucket, keys))
                .containsExactly("pay-0", "pay-1", "pay-2", "pay-3", "pay-4", "pay-5", "pay-6", "pay-7");
    }

    @Test
    void lakeObjectsArePartitionedByEventDateAndHour(LocalAws aws, ResourceNames names) throws Exception {
        String bucket = names.name("lake");
        aws.s3().createBucket(b -> b.bucket(bucket));
        S3LakeSink lake = new S3LakeSink(aws.s3(), bucket, "payments/", aws.dynamoDb(), ledger(aws, names));
        List<ProcessedEvent> events = new ArrayList<>(batch(0, 3, "2026-11-30T23"));
        events.addAll(batch(3, 2, "2026-12-01T00"));

        assertThat(lake.write(events)).isEqualTo(new SinkReport(5, 0));

        assertThat(keys(aws, bucket))
                .extracting(k -> k.substring(0, k.lastIndexOf('/')))
                .containsExactly("payments/dt=2026-11-30/hr=23", "payments/dt=2026-12-01/hr=00");
    }

    @Test
    void deadLettersCarryReasonPayloadAndPositionInBatchesOfTen(LocalAws aws, ResourceNames names) throws Exception {
        String queue =
                aws.sqs().createQueue(b -> b.queueName(names.name("dlq"))).queueUrl();
        SqsDeadLetterSink dlq = new SqsDeadLetterSink(aws.sqs(), queue, "payments", "validate", MAPPER);
        List<DeadLetter> letters = new ArrayList<>();
        Records raw = Records.on("payments-raw").shard("shardId-000000000001").arrivedAt(Instant.now());
        for (int i = 0; i < 23; i++) {
            byte[] data = i == 0
                    ? new byte[] {(byte) 0xff, (byte) 0xfe, 0x00, 0x01}
                    : ("{\"broken\": " + i).getBytes(StandardCharsets.UTF_8);
            letters.add(new DeadLetter(
                    raw.partitionKey("cust-" + i).at(500 + i, data),
                    ReasonCode.MALFORMED_JSON,
                    "Unexpected end-of-input"));
        }

        dlq.send(letters);

        List<JsonNode> bodies = new ArrayList<>();
        for (List<Message> page = receive(aws, queue); !page.isEmpty(); page = receive(aws, queue)) {
            for (Message m : page) {
                bodies.add(MAPPER.readTree(m.body()));
            }
        }
        assertThat(bodies).hasSize(23);
        JsonNode binary = bodies.stream()
                .filter(b -> b.path("sequenceNumber").asText().equals("500"))
                .findFirst()
                .orElseThrow();
        assertThat(Base64.getDecoder().decode(binary.path("payloadBase64").asText()))
                .containsExactly(0xff, 0xfe, 0x00, 0x01);
        JsonNode text = bodies.stream()
                .filter(b -> b.path("sequenceNumber").asText().equals("507"))
                .findFirst()
                .orElseThrow();
        assertThat(text.path("payload").asText()).isEqualTo("{\"broken\": 7");
        assertThat(text.path("reason").asText()).isEqualTo("MALFORMED_JSON: Unexpected end-of-input");
        assertThat(text.path("shardId").asText()).isEqualTo("shardId-000000000001");
        assertThat(text.path("pipeline").asText()).isEqualTo("payments");
    }

    private static List<Message> receive(LocalAws aws, String queue) {
        return aws.sqs()
                .receiveMessage(b -> b.queueUrl(queue).maxNumberOfMessages(10).visibilityTimeout(60))
                .messages();
    }

    public static List<String> keys(LocalAws aws, String bucket) {
        return aws.s3().listObjectsV2Paginator(b -> b.bucket(bucket)).contents().stream()
                .map(S3Object::key)
                .sorted()
                .toList();
    }

    public static List<String> eventIds(LocalAws aws, String bucket, List<String> keys) throws IOException {
        List<String> ids = new ArrayList<>();
        for (String key : keys) {
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(
                    new GZIPInputStream(aws.s3().getObject(b -> b.bucket(bucket).key(key))), StandardCharsets.UTF_8))) {
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                    ids.add(MAPPER.readTree(line).path("eventId").asText());
                }
            }
        }
        return ids;
    }
}
