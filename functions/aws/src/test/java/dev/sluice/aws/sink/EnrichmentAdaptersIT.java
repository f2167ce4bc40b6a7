package dev.sluice.aws.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.event.ProcessedEvent;
import dev.sluice.core.stage.SinkException;
import dev.sluice.core.stage.SinkReport;
import dev.sluice.emulators.LocalAws;
import dev.sluice.emulators.LocalAwsExtension;
import dev.sluice.emulators.ResourceNames;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.kinesis.model.Record;
import software.amazon.awssdk.services.kinesis.model.Shard;
import software.amazon.awssdk.services.kinesis.model.ShardIteratorType;

/** Reference loaders and the re-key stream sink against the real emulators. */
@ExtendWith(LocalAwsExtension.class)
class EnrichmentAdaptersIT {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    @Test
    void dynamoDbReferenceLoaderReadsEveryPageOfTheTable(LocalAws aws, ResourceNames names) {
        String table = Tables.create(aws, names.name("pages"), "pageId");
        for (int i = 0; i < 1_200; i++) {
            String id = String.format("p-%06d", i);
            aws.dynamoDb()
                    .putItem(b -> b.tableName(table)
                            .item(Map.of(
                                    "pageId", AttributeValue.fromS(id),
                                    "category", AttributeValue.fromS(id.endsWith("7") ? "kitchen" : "garden"),
                                    "price", AttributeValue.fromN("19.95"),
                                    // a few hundred bytes per item, so the scan needs several pages
                                    "title", AttributeValue.fromS("Page " + id + " " + "x".repeat(900)))));
        }

        Map<String, JsonNode> items = new DynamoDbReferenceLoader(aws.dynamoDb(), table, "pageId", MAPPER).loadAll();

        assertThat(items).hasSize(1_200);
        assertThat(items.get("p-000017").path("category").asText()).isEqualTo("kitchen");
        assertThat(items.get("p-000017").path("price").decimalValue()).isEqualByComparingTo("19.95");
    }

    @Test
    void s3ReferenceLoaderReadsJsonLinesAndNamesABadLine(LocalAws aws, ResourceNames names) throws IOException {
        String bucket = names.name("ref");
        aws.s3().createBucket(b -> b.bucket(bucket));
        aws.s3()
                .putObject(
                        b -> b.bucket(bucket).key("reference/merchants.jsonl"),
                        RequestBody.fromString("{\"merchantId\":\"m-000001\",\"risk\":\"high\"}\n\n"
                                + "{\"merchantId\":\"m-000002\",\"risk\":\"low\"}\n"));
        aws.s3()
                .putObject(
                        b -> b.bucket(bucket).key("reference/broken.jsonl"),
                        RequestBody.fromString("{\"merchantId\":\"m-000001\"}\n{\"risk\":\"none\"}\n"));

        Map<String, JsonNode> items =
                new S3ReferenceLoader(aws.s3(), bucket, "reference/merchants.jsonl", "merchantId", MAPPER).loadAll();

        assertThat(items).containsOnlyKeys("m-000001", "m-000002");
        assertThat(items.get("m-000001").path("risk").asText()).isEqualTo("high");
        assertThatThrownBy(() -> new S3ReferenceLoader(aws.s3(), bucket, "reference/broken.jsonl", "merchantId", MAPPER)
                        .loadAll())
                .hasMessage("s3://" + bucket + "/reference/broken.jsonl line 2 has no 'merchantId'");
    }

    @Test
    void streamSinkPartitionsEachRecordByTheTargetStreamsKey(LocalAws aws, ResourceNames names) throws SinkException {
        String stream = names.name("by-merchant");
        aws.kinesis().createStream(b -> b.streamName(stream).shardCount(2));
        aws.kinesisWaiter().waitUntilStreamExists(b -> b.streamName(stream));
        List<ProcessedEvent> events = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            ProcessedEvent event =
                    SinksIT.event("shardId-000000000000", 100 + i, "pay-" + i, "cust-" + i, "2026-11-30T10:00:00Z");
            event.event().putObject("payload").putObject("merchant").put("id", "m-00000" + (i % 4));
            events.add(event);
        }
        KinesisStreamSink sink = new KinesisStreamSink(aws.kinesis(), stream, "payload.merchant.id");

        assertThat(sink.write(events)).isEqualTo(new SinkReport(40, 0));

        Map<String, String> shardOfMerchant = new HashMap<>();
        int read = 0;
        for (Shard shard : aws.kinesis().listShards(b -> b.streamName(stream)).shards()) {
            String iterator = aws.kinesis()
                    .getShardIterator(b -> b.streamName(stream)
                            .shardId(shard.shardId())
                            .shardIteratorType(ShardIteratorType.TRIM_HORIZON))
                    .shardIterator();
            for (Record record :
                    aws.kinesis().getRecords(b -> b.shardIterator(iterator)).records()) {
                read++;
                JsonNode written = readTree(record.data().asString(StandardCharsets.UTF_8));
                String merchant = written.at("/payload/merchant/id").asText();
                int n = Integer.parseInt(written.get("eventId").asText().substring("pay-".length()));
                assertThat(written.get("origin"))
                        .as("where %s first entered Sluice", written.get("eventId"))
                        .isEqualTo(readTree("{\"stream\":\"payments-raw\",\"shardId\":\"shardId-000000000000\","
                                + "\"sequenceNumber\":\"" + (100 + n) + "\"}"));
                assertThat(record.partitionKey()).isEqualTo(merchant);
                String previous = shardOfMerchant.putIfAbsent(merchant, shard.shardId());
                assertThat(previous == null || previous.equals(shard.shardId()))
                        .as("all of %s's records in one shard", merchant)
                        .isTrue();
            }
        }
        assertThat(read).isEqualTo(40);
        assertThat(shardOfMerchant).hasSize(4);
    }

    private static JsonNode readTree(String json) {
        try {
            return MAPPER.readTree(json);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
