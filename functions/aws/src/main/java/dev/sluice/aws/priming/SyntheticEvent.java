package dev.sluice.aws.priming;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.regex.Pattern;

/**
 * A synthetic event built from a stage's input schema, for priming only: every required property
 * with a value of its type that meets the schema's simple constraints ({@code const}, {@code enum},
 * {@code format} date-time and email, lengths, bounds, {@code multipleOf}, and patterns made of
 * literals, classes and counted repeats). Where a constraint is beyond it, the value may be invalid:
 * the event then primes the dead-letter path instead of the sinks', which still warms parsing and
 * validation.
 */
public final class SyntheticEvent {

    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    private final Instant now;

    public SyntheticEvent(Instant now) {
        this.now = now.truncatedTo(ChronoUnit.SECONDS);
    }

    /** An event of the schema (an object schema, as every Sluice event's is). */
    public ObjectNode of(JsonNode schema) {
        JsonNode value = value(schema, "");
        return value instanceof ObjectNode object ? object : JSON.objectNode();
    }

    public byte[] bytes(JsonNode schema, ObjectMapper mapper) {
        try {
            return mapper.writeValueAsBytes(of(schema));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private JsonNode value(JsonNode schema, String name) {
        if (schema.has("const")) {
            return schema.get("const");
        }
        if (schema.has("enum") && !schema.get("enum").isEmpty()) {
            return schema.get("enum").get(0);
        }
        JsonNode alternative = alternative(schema);
        if (alternative != null && !schema.has("type")) {
            return value(alternative, name);
        }
        String type = schema.path("type").isArray()
                ? schema.path("type").get(0).asText()
                : schema.path("type").asText(schema.has("properties") ? "object" : "string");
        return switch (type) {
            case "object" -> object(schema);
            case "array" -> array(schema, name);
            case "integer" -> JSON.numberNode(number(schema).toBigInteger());
            case "number" -> JSON.numberNode(number(schema));
            case "boolean" -> JSON.booleanNode(true);
            case "null" -> JSON.nullNode();
            default -> JSON.textNode(string(schema, name));
        };
    }

    /** The first branch of an {@code anyOf} or {@code oneOf}, or {@code null}. */
    private static JsonNode alternative(JsonNode schema) {
        for (String keyword : new String[] {"anyOf", "oneOf"}) {
            if (schema.path(keyword).isArray() && !schema.path(keyword).isEmpty()) {
                return schema.path(keyword).get(0);
            }
        }
        return null;
    }

    private ObjectNode object(JsonNode schema) {
        ObjectNode out = JSON.objectNode();
        JsonNode properties = schema.path("properties");
        for (JsonNode required : schema.path("required")) {
            String property = required.asText();
            out.set(property, value(properties.path(property), property));
        }
        return out;
    }

    private ArrayNode array(JsonNode schema, String name) {
        ArrayNode out = JSON.arrayNode();
        for (int i = 0; i < schema.path("minItems").asInt(0); i++) {
            out.add(value(schema.path("items"), name));
        }
        return out;
    }

    private static BigDecimal number(JsonNode schema) {
        BigDecimal value = BigDecimal.ONE;
        if (schema.has("minimum")) {
            value = schema.get("minimum").decimalValue();
        }
        if (schema.has("exclusiveMinimum")) {
            value = schema.get("exclusiveMinimum").decimalValue().add(BigDecimal.ONE);
        }
        if (schema.has("maximum") && value.compareTo(schema.get("maximum").decimalValue()) > 0) {
            value = schema.get("maximum").decimalValue();
        }
        if (schema.has("multipleOf")) {
            BigDecimal step = schema.get("multipleOf").decimalValue();
            value = value.divideToIntegralValue(step).multiply(step);
        }
        return value;
    }

    private String string(JsonNode schema, String name) {
        JsonNode alternative = alternative(schema);
        String format = schema.path("format")
                .asText(alternative == null ? "" : alternative.path("format").asText(""));
        String value = switch (format) {
            case "date-time" -> now.toString();
            case "date" -> now.toString().substring(0, 10);
            case "email" -> "priming@example.com";
            case "uuid" -> "00000000-0000-4000-8000-000000000000";
            case "ipv4" -> "192.0.2.1";
            case "ipv6" -> "2001:db8::1";
            case "hostname" -> "example.com";
            case "uri" -> "https://example.com/";
            default -> {
                String fromPattern = schema.has("pattern")
                        ? fromPattern(schema.get("pattern").asText())
                        : null;
                yield fromPattern != null ? fromPattern : "priming-" + (name.isEmpty() ? "value" : name);
            }
        };
        int min = schema.path("minLength").asInt(0);
        StringBuilder padded = new StringBuilder(value);
        while (padded.length() < min) {
            padded.append('x');
        }
        int max = schema.path("maxLength").asInt(Integer.MAX_VALUE);
        return padded.length() > max ? padded.substring(0, max) : padded.toString();
    }

    /**
     * The shortest string of a pattern made of literals, {@code [classes]}, {@code \d} and
     * quantifiers ({@code ?*+{n}{n,m}}), anchored or not; {@code null} for anything else (groups,
     * alternation) or if the result does not match.
     */
    public static String fromPattern(String pattern) {
        StringBuilder out = new StringBuilder();
        int i = pattern.startsWith("^") ? 1 : 0;
        int end = pattern.endsWith("$") ? pattern.length() - 1 : pattern.length();
        while (i < end) {
            char c = pattern.charAt(i);
            String atom;
            if (c == '[') {
                int close = pattern.indexOf(']', i + 1);
                if (close < 0) {
                    return null;
                }
                String body = pattern.substring(i + 1, close);
                if (body.startsWith("^") || body.isEmpty()) {
                    return null;
                }
                atom = body.startsWith("\\d") ? "0" : body.substring(0, 1);
                i = close + 1;
            } else if (c == '\\' && i + 1 < end) {
                char escaped = pattern.charAt(i + 1);
                atom = switch (escaped) {
                    case 'd' -> "0";
                    case 'w' -> "a";
                    case 's', 'D', 'W', 'S', 'b', 'B' -> null;
                    default -> String.valueOf(escaped);
                };
                if (atom == null) {
                    return null;
                }
                i += 2;
            } else if ("()|.".indexOf(c) >= 0) {
                return null;
            } else {
                atom = String.valueOf(c);
                i++;
            }
            int repeat = 1;
            if (i < end) {
                char q = pattern.charAt(i);
                if (q == '?' || q == '*') {
                    repeat = 0;
                    i++;
                } else if (q == '+') {
                    i++;
                } else if (q == '{') {
                    int close = pattern.indexOf('}', i);
                    if (close < 0) {
                        return null;
                    }
                    String counts = pattern.substring(i + 1, close);
                    try {
                        repeat = Integer.parseInt(
                                counts.contains(",") ? counts.substring(0, counts.indexOf(',')) : counts);
                    } catch (NumberFormatException e) {
                        return null;
                    }
                    i = close + 1;
                }
            }
            out.append(atom.repeat(repeat));
        }
        String result = out.toString();
        return Pattern.compile(pattern).matcher(result).find() ? result : null;
    }
}
