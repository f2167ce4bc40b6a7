package dev.sluice.local.esm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.util.Base64;
import java.util.List;
import software.amazon.awssdk.services.kinesis.model.Record;

/**
 * Builds the JSON document Lambda sends a Kinesis-triggered function, and checks one written by
 * hand ({@code ./sluice invoke --event FILE}) before a handler sees it.
 */
public final class KinesisEventJson {

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

    /**
     * What keeps a document from being a Kinesis event Lambda could send, as one line, or {@code
     * null} if it is one: a {@code Records} array of objects, each with an {@code eventID} ({@code
     * shardId-…:sequence}) and a {@code kinesis} object holding a {@code sequenceNumber} (decimal
     * digits), a {@code partitionKey} and base64 {@code data}; {@code approximateArrivalTimestamp},
     * when present, is a number of seconds.
     */
    public static String problem(JsonNode event) {
        if (!event.path("Records").isArray()) {
            return "it has no \"Records\" array";
        }
        JsonNode records = event.get("Records");
        for (int i = 0; i < records.size(); i++) {
            String at = "Records[" + i + "]";
            JsonNode record = records.get(i);
            if (!record.isObject()) {
                return at + " is not an object";
            }
            if (!record.path("eventID").isTextual()) {
                return at + ".eventID is missing (shardId-000000000000:<sequence number>)";
            }
            JsonNode kinesis = record.path("kinesis");
            if (!kinesis.isObject()) {
                return at + ".kinesis is missing";
            }
            JsonNode sequence = kinesis.path("sequenceNumber");
            if (!sequence.isTextual() || !sequence.textValue().matches("[1-9][0-9]{0,127}|0")) {
                return at + ".kinesis.sequenceNumber must be a string of decimal digits, got "
                        + (sequence.isMissingNode() ? "nothing" : sequence.toString());
            }
            if (!kinesis.path("partitionKey").isTextual()) {
                return at + ".kinesis.partitionKey is missing";
            }
            JsonNode data = kinesis.path("data");
            if (!data.isTextual()) {
                return at + ".kinesis.data is missing (the record's bytes, base64)";
            }
            if (data.textValue().length() % 4 != 0) {
                return at + ".kinesis.data is not base64: its length is not a multiple of 4 (padding missing?)";
            }
            try {
                Base64.getDecoder().decode(data.textValue());
            } catch (IllegalArgumentException e) {
                return at + ".kinesis.data is not base64: " + e.getMessage();
            }
            JsonNode arrival = kinesis.path("approximateArrivalTimestamp");
            if (!arrival.isMissingNode() && !arrival.isNull() && !arrival.isNumber()) {
                return at + ".kinesis.approximateArrivalTimestamp must be a number of seconds, got " + arrival;
            }
        }
        return null;
    }

    /**
     * Lambda's payload limit for a synchronous invocation, 6 MB (AWS Lambda quotas; an event source
     * mapping invokes when "the payload size reaches 6 MB", invocation-eventsourcemapping.html).
     */
    public static final int MAX_PAYLOAD_BYTES = 6 * 1024 * 1024;

    private static final int WRAPPER_BYTES = "{\"Records\":[]}".length();

    /**
     * How many of the records, from the first, one event may carry within {@link
     * #MAX_PAYLOAD_BYTES} (at least one: a single record always fits, Kinesis records being at most 1
     * MiB).
     */
    int fitting(String shardId, List<Record> records) {
        long bound = WRAPPER_BYTES;
        for (Record record : records) {
            // base64 data, and every other field generously
            bound += 4L * ((record.data().asByteArrayUnsafe().length + 2) / 3)
                    + 6L * record.partitionKey().length()
                    + 2 * (shardId.length() + roleArn.length() + streamArn.length() + region.length())
                    + 512;
        }
        if (bound <= MAX_PAYLOAD_BYTES) {
            return records.size();
        }
        long size = WRAPPER_BYTES;
        for (int i = 0; i < records.size(); i++) {
            size += element(shardId, records.get(i)).toString().getBytes(java.nio.charset.StandardCharsets.UTF_8).length
                    + (i == 0 ? 0 : 1);
            if (size > MAX_PAYLOAD_BYTES) {
                return Math.max(1, i);
            }
        }
        return records.size();
    }

    String build(String shardId, List<Record> records) {
        ObjectNode event = mapper.createObjectNode();
        ArrayNode array = event.putArray("Records");
        for (Record record : records) {
            array.add(element(shardId, record));
        }
        return event.toString();
    }

    private ObjectNode element(String shardId, Record record) {
        ObjectNode r = mapper.createObjectNode();
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
        return r;
    }
}
