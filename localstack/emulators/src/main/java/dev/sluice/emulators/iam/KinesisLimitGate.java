package dev.sluice.emulators.iam;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import dev.sluice.emulators.limits.KinesisLimits;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the Kinesis gate does with {@link KinesisLimits}: a PutRecords whose records exceed their
 * shards' allowance is answered with AWS's partial failure (the other records really written), a
 * throttled PutRecord or GetRecords with a 400 {@code ProvisionedThroughputExceededException}; the
 * bytes each GetRecords returns count against its shard; a reshard makes the gate read the stream's
 * shards again. ListShards (1,000 a second per stream; a page asked for by {@code NextToken} counts
 * against the stream whose listing handed the token out) and DescribeStreamSummary (20 a second per
 * account) over their rates are answered 400 {@code LimitExceededException}.
 */
final class KinesisLimitGate {

    private static final Set<String> RESHAPING =
            Set.of("SplitShard", "MergeShards", "UpdateShardCount", "CreateStream", "DeleteStream");
    private static final int ITERATORS_KEPT = 200_000;

    private final KinesisLimits limits;
    /** iterator → {stream name, shard id}: GetRecords names only its iterator. */
    private final Map<String, String[]> iteratorShards =
            Collections.synchronizedMap(new LinkedHashMap<>(1024, 0.75f, false) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<String, String[]> eldest) {
                    return size() > ITERATORS_KEPT;
                }
            });

    /** ListShards NextToken → stream: a page asked for by its token names no stream. */
    private final Map<String, String> listingTokens =
            Collections.synchronizedMap(new LinkedHashMap<>(64, 0.75f, false) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
                    return size() > 10_000;
                }
            });

    KinesisLimitGate(KinesisLimits limits) {
        this.limits = limits;
    }

    KinesisLimits limits() {
        return limits;
    }

    /** The stream name a request names ({@code StreamName}, or the tail of {@code StreamARN}), or null. */
    static String streamName(JsonNode body) {
        if (body.hasNonNull("StreamName")) {
            return body.get("StreamName").asText();
        }
        if (body.hasNonNull("StreamARN")) {
            String arn = body.get("StreamARN").asText();
            return arn.substring(arn.lastIndexOf('/') + 1);
        }
        return null;
    }

    /** Handles an allowed Kinesis request: forwards it (maybe trimmed) or answers it throttled. */
    void handle(HttpExchange exchange, GateRequest request, ServiceCall call, AccessGate gate) throws IOException {
        String operation = call.operation();
        switch (operation) {
            case "PutRecords" -> putRecords(exchange, request, call, gate);
            case "PutRecord" -> putRecord(exchange, request, call, gate);
            case "GetRecords" -> getRecords(exchange, request, call, gate);
            case "ListShards" -> {
                JsonNode body = RequestMapper.body(request);
                String stream = streamName(body);
                if (stream == null && body.hasNonNull("NextToken")) {
                    stream = listingTokens.get(body.get("NextToken").asText());
                }
                if (stream != null && !limits.listShards(stream)) {
                    gate.answerJsonError(
                            exchange, request, KinesisLimits.LIMIT_EXCEEDED, limits.limitMessage(operation, stream));
                    return;
                }
                AccessGate.Answer response = gate.forward(exchange, request, call);
                if (response != null && response.statusCode() == 200 && stream != null) {
                    String next = read(response).path("NextToken").asText(null);
                    if (next != null) {
                        listingTokens.put(next, stream);
                    }
                }
            }
            case "DescribeStreamSummary" -> {
                if (!limits.describeStreamSummary()) {
                    gate.answerJsonError(
                            exchange,
                            request,
                            KinesisLimits.LIMIT_EXCEEDED,
                            limits.limitMessage(operation, streamName(RequestMapper.body(request))));
                    return;
                }
                gate.forward(exchange, request, call);
            }
            case "GetShardIterator" -> {
                AccessGate.Answer response = gate.forward(exchange, request, call);
                JsonNode body = RequestMapper.body(request);
                if (response != null && response.statusCode() == 200) {
                    String iterator = read(response).path("ShardIterator").asText(null);
                    String stream = streamName(body);
                    if (iterator != null && stream != null) {
                        iteratorShards.put(
                                iterator,
                                new String[] {stream, body.path("ShardId").asText()});
                    }
                }
            }
            default -> {
                AccessGate.Answer response = gate.forward(exchange, request, call);
                if (RESHAPING.contains(operation) && response != null) {
                    String stream = streamName(RequestMapper.body(request));
                    if (stream != null) {
                        limits.reshaped(stream);
                    }
                }
            }
        }
    }

    private static long size(JsonNode record) throws IOException {
        JsonNode data = record.path("Data");
        long bytes = data.isMissingNode() || data.isNull() ? 0 : data.binaryValue().length;
        return bytes + record.path("PartitionKey").asText("").getBytes(StandardCharsets.UTF_8).length;
    }

    private void putRecord(HttpExchange exchange, GateRequest request, ServiceCall call, AccessGate gate)
            throws IOException {
        JsonNode body = RequestMapper.body(request);
        String stream = streamName(body);
        if (stream != null && body.hasNonNull("PartitionKey")) {
            KinesisLimits.Write verdict = limits.write(
                    stream,
                    body.get("PartitionKey").asText(),
                    body.path("ExplicitHashKey").asText(null),
                    size(body));
            if (!verdict.accepted()) {
                gate.answerJsonError(
                        exchange, request, KinesisLimits.THROTTLED, limits.message(stream, verdict.shardId()));
                return;
            }
        }
        gate.forward(exchange, request, call);
    }

    private void putRecords(HttpExchange exchange, GateRequest request, ServiceCall call, AccessGate gate)
            throws IOException {
        JsonNode body = RequestMapper.body(request);
        String stream = streamName(body);
        JsonNode records = body.path("Records");
        if (stream == null || !records.isArray() || records.isEmpty()) {
            gate.forward(exchange, request, call);
            return;
        }
        // the request caps, which kinesis-mock does not check: 500 records, 5 MiB with partition keys
        if (records.size() > KinesisLimits.PUT_RECORDS_RECORDS) {
            gate.answerJsonError(
                    exchange,
                    request,
                    "ValidationException",
                    "1 validation error detected: Value at 'records' failed to satisfy constraint: Member must have"
                            + " length less than or equal to " + KinesisLimits.PUT_RECORDS_RECORDS);
            return;
        }
        long requestBytes = 0;
        for (JsonNode record : records) {
            requestBytes += size(record);
        }
        if (requestBytes > KinesisLimits.PUT_RECORDS_BYTES) {
            gate.answerJsonError(exchange, request, "InvalidArgumentException", "Records size exceeds 5 MB limit");
            return;
        }
        List<KinesisLimits.Write> verdicts = new ArrayList<>(records.size());
        ArrayNode accepted = RequestMapper.JSON.createArrayNode();
        for (JsonNode record : records) {
            KinesisLimits.Write verdict = limits.write(
                    stream,
                    record.path("PartitionKey").asText(""),
                    record.path("ExplicitHashKey").asText(null),
                    size(record));
            verdicts.add(verdict);
            if (verdict.accepted()) {
                accepted.add(record);
            }
        }
        if (accepted.size() == records.size()) {
            gate.forward(exchange, request, call);
            return;
        }
        boolean cbor = cbor(request.header("content-type"));
        ObjectMapper mapper = cbor ? RequestMapper.CBOR : RequestMapper.JSON;
        JsonNode written = RequestMapper.JSON.createArrayNode();
        JsonNode encryption = null;
        int failedBelow = 0;
        if (!accepted.isEmpty()) {
            ObjectNode trimmed = ((ObjectNode) body).deepCopy();
            trimmed.set("Records", accepted);
            GateRequest forwarded = new GateRequest(
                    request.method(),
                    request.rawPath(),
                    request.rawQuery(),
                    request.headers(),
                    mapper.writeValueAsBytes(trimmed));
            AccessGate.Answer response = gate.send(forwarded);
            if (response == null || response.statusCode() != 200) {
                gate.reply(exchange, request, response); // the emulator's own refusal, as it gave it
                return;
            }
            JsonNode answer = read(response);
            written = answer.path("Records");
            failedBelow = answer.path("FailedRecordCount").asInt(0);
            encryption = answer.get("EncryptionType");
        }
        ObjectNode merged = RequestMapper.JSON.createObjectNode();
        ArrayNode out = merged.putArray("Records");
        int next = 0;
        int failed = failedBelow;
        for (KinesisLimits.Write verdict : verdicts) {
            if (verdict.accepted()) {
                out.add(written.path(next++));
            } else {
                failed++;
                out.addObject()
                        .put("ErrorCode", KinesisLimits.THROTTLED)
                        .put("ErrorMessage", limits.message(stream, verdict.shardId()));
            }
        }
        merged.put("FailedRecordCount", failed);
        if (encryption != null) {
            merged.set("EncryptionType", encryption);
        }
        gate.answer(
                exchange,
                200,
                cbor ? "application/x-amz-cbor-1.1" : "application/x-amz-json-1.1",
                mapper.writeValueAsBytes(merged));
    }

    private void getRecords(HttpExchange exchange, GateRequest request, ServiceCall call, AccessGate gate)
            throws IOException {
        JsonNode body = RequestMapper.body(request);
        String[] shard = iteratorShards.get(body.path("ShardIterator").asText(""));
        if (shard != null && !limits.read(shard[0], shard[1])) {
            gate.answerJsonError(exchange, request, KinesisLimits.THROTTLED, limits.message(shard[0], shard[1]));
            return;
        }
        // like Kinesis, one call returns at most 10,000 records (the default Limit) ...
        AccessGate.Answer response = gate.exchange(
                body.has("Limit") ? request : withLimit(request, body, KinesisLimits.GET_RECORDS_RECORDS), call);
        if (response != null && response.statusCode() == 200) {
            JsonNode answer = read(response);
            int fitting = fitting(answer.path("Records"), limits.getRecordsBytes());
            if (fitting < answer.path("Records").size()) {
                // ... and at most 10 MiB: ask again for the records that fit, with the same iterator, so
                // that the next iterator starts after the last one returned
                response = gate.exchange(withLimit(request, body, fitting), call);
                answer = response != null && response.statusCode() == 200 ? read(response) : null;
            }
            if (shard != null && answer != null) {
                long bytes = 0;
                for (JsonNode record : answer.path("Records")) {
                    bytes += size(record);
                }
                limits.readBytes(shard[0], shard[1], bytes);
                String next = answer.path("NextShardIterator").asText(null);
                if (next != null) {
                    iteratorShards.put(next, shard);
                }
            }
        }
        gate.reply(exchange, request, response);
    }

    private static GateRequest withLimit(GateRequest request, JsonNode body, int limit) throws IOException {
        ObjectNode capped = ((ObjectNode) body).deepCopy();
        capped.put("Limit", limit);
        ObjectMapper mapper = cbor(request.header("content-type")) ? RequestMapper.CBOR : RequestMapper.JSON;
        return new GateRequest(
                request.method(),
                request.rawPath(),
                request.rawQuery(),
                request.headers(),
                mapper.writeValueAsBytes(capped));
    }

    /** How many of a GetRecords answer's records fit in one call's 10 MiB (at least one). */
    private static int fitting(JsonNode records, long maxBytes) throws IOException {
        long bytes = 0;
        int count = 0;
        for (JsonNode record : records) {
            bytes += size(record);
            if (count > 0 && bytes > maxBytes) {
                return count;
            }
            count++;
        }
        return count;
    }

    private static boolean cbor(String contentType) {
        return contentType != null && contentType.contains("cbor");
    }

    private static JsonNode read(AccessGate.Answer response) throws IOException {
        String type = response.headers().firstValue("content-type").orElse("");
        ObjectMapper mapper = cbor(type) ? RequestMapper.CBOR : RequestMapper.JSON;
        JsonNode tree = mapper.readTree(response.body());
        return tree == null ? RequestMapper.JSON.createObjectNode() : tree;
    }
}
