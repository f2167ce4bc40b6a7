package dev.sluice.emulators.iam;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import dev.sluice.emulators.limits.SqsLimits;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;

/**
 * What the SQS gate does with {@link SqsLimits}: a SendMessage longer than its queue's {@code
 * MaximumMessageSize} is answered as AWS answers it ({@code InvalidParameterValue}), a
 * SendMessageBatch whose messages together are longer with {@code BatchRequestTooLong}; CreateQueue
 * and SetQueueAttributes passing through teach it each queue's limit. The JSON protocol (the SDK's)
 * and the query protocol are both read.
 */
final class SqsLimitGate {

    private final SqsLimits limits;

    SqsLimitGate(SqsLimits limits) {
        this.limits = limits;
    }

    SqsLimits limits() {
        return limits;
    }

    /** Handles an allowed SQS request: forwards it, or refuses a message too long for its queue. */
    void handle(HttpExchange exchange, GateRequest request, ServiceCall call, AccessGate gate) throws IOException {
        Map<String, String> parameters = RequestMapper.sqsParameters(request);
        JsonNode json = request.header("x-amz-target") != null ? RequestMapper.body(request) : null;
        String queue = queue(parameters);
        switch (call.operation()) {
            case "SendMessage" -> {
                String refusal = limits.refusal(queue, json != null ? size(json) : size(parameters, ""));
                if (refusal != null) {
                    gate.answerSqsError(
                            exchange,
                            request,
                            "InvalidParameterValue",
                            "com.amazonaws.sqs#InvalidParameterValue",
                            refusal);
                    return;
                }
            }
            case "SendMessageBatch" -> {
                long total = 0;
                if (json != null) {
                    for (JsonNode entry : json.path("Entries")) {
                        total += size(entry);
                    }
                } else {
                    total = size(parameters, "SendMessageBatchRequestEntry.");
                }
                String refusal = limits.batchRefusal(queue, total);
                if (refusal != null) {
                    gate.answerSqsError(
                            exchange,
                            request,
                            "AWS.SimpleQueueService.BatchRequestTooLong",
                            "com.amazonaws.sqs#BatchRequestTooLong",
                            refusal);
                    return;
                }
            }
            case "CreateQueue", "SetQueueAttributes" ->
                limits.maximumMessageSize(
                        queue,
                        json != null
                                ? json.path("Attributes")
                                        .path("MaximumMessageSize")
                                        .asText(null)
                                : queryAttribute(parameters, "MaximumMessageSize"));
            case "DeleteQueue" -> limits.deleted(queue);
            default -> {}
        }
        gate.forward(exchange, request, call);
    }

    /** A message's size as SQS counts it: its body and each attribute's name, data type and value. */
    static long size(JsonNode message) throws IOException {
        long bytes = utf8(message.path("MessageBody").asText(""));
        var attributes = message.path("MessageAttributes").fields();
        while (attributes.hasNext()) {
            var attribute = attributes.next();
            JsonNode value = attribute.getValue();
            bytes += utf8(attribute.getKey()) + utf8(value.path("DataType").asText(""));
            if (value.hasNonNull("StringValue")) {
                bytes += utf8(value.get("StringValue").asText());
            }
            if (value.hasNonNull("BinaryValue")) {
                bytes += value.get("BinaryValue").binaryValue().length;
            }
        }
        return bytes;
    }

    /**
     * The size of the query-protocol messages whose parameters start with {@code prefix} (every
     * entry of a batch: {@code SendMessageBatchRequestEntry.N.}; a SendMessage: the empty prefix).
     */
    static long size(Map<String, String> parameters, String prefix) {
        long bytes = 0;
        for (Map.Entry<String, String> p : parameters.entrySet()) {
            String name = p.getKey();
            if (!name.startsWith(prefix)) {
                continue;
            }
            String local = prefix.isEmpty() ? name : name.substring(name.indexOf('.', prefix.length()) + 1);
            if (local.equals("MessageBody")
                    || (local.startsWith("MessageAttribute.")
                            && (local.endsWith(".Name")
                                    || local.endsWith(".Value.DataType")
                                    || local.endsWith(".Value.StringValue")))) {
                bytes += utf8(p.getValue());
            } else if (local.startsWith("MessageAttribute.") && local.endsWith(".Value.BinaryValue")) {
                bytes += Base64.getMimeDecoder().decode(p.getValue()).length;
            }
        }
        return bytes;
    }

    private static long utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8).length;
    }

    private static String queryAttribute(Map<String, String> parameters, String attribute) {
        for (Map.Entry<String, String> p : parameters.entrySet()) {
            if (p.getKey().startsWith("Attribute.")
                    && p.getKey().endsWith(".Name")
                    && p.getValue().equals(attribute)) {
                String base = p.getKey().substring(0, p.getKey().length() - ".Name".length());
                return parameters.get(base + ".Value");
            }
        }
        return null;
    }

    private static String queue(Map<String, String> parameters) {
        String url = parameters.get("QueueUrl");
        if (url != null) {
            return url.substring(url.lastIndexOf('/') + 1);
        }
        return parameters.get("QueueName");
    }
}
