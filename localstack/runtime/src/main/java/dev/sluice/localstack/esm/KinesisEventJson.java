package dev.sluice.localstack.esm;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.util.Base64;
import java.util.List;
import software.amazon.awssdk.services.kinesis.model.Record;

/** Builds the JSON document Lambda sends a Kinesis-triggered function. */
final class KinesisEventJson {

    private final ObjectMapper mapper;
    private final String region;
    private final String streamArn;
    private final String roleArn;

    KinesisEventJson(ObjectMapper mapper, String region, String streamArn, String roleArn) {
        this.mapper = mapper;
        this.region = region;
        this.streamArn = streamArn;
        this.roleArn = roleArn;
    }

    String build(String shardId, List<Record> records) {
        ObjectNode event = mapper.createObjectNode();
        ArrayNode array = event.putArray("Records");
        for (Record record : records) {
            ObjectNode r = array.addObject();
            ObjectNode kinesis = r.putObject("kinesis");
            kinesis.put("kinesisSchemaVersion", "1.0");
            kinesis.put("partitionKey", record.partitionKey());
            kinesis.put("sequenceNumber", record.sequenceNumber());
            kinesis.put("data", Base64.getEncoder().encodeToString(record.data().asByteArrayUnsafe()));
            if (record.approximateArrivalTimestamp() != null) {
                kinesis.put(
                        "approximateArrivalTimestamp",
                        BigDecimal.valueOf(record.approximateArrivalTimestamp().toEpochMilli(), 3));
            }
            r.put("eventSource", "aws:kinesis");
            r.put("eventVersion", "1.0");
            r.put("eventID", shardId + ":" + record.sequenceNumber());
            r.put("eventName", "aws:kinesis:record");
            r.put("invokeIdentityArn", roleArn);
            r.put("awsRegion", region);
            r.put("eventSourceARN", streamArn);
        }
        return event.toString();
    }
}
