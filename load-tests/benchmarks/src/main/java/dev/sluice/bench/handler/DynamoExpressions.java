package dev.sluice.bench.handler;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * DynamoDB's condition and update expressions over items in DynamoDB JSON ({@code {"S": "..."}},
 * {@code {"N": "..."}}, {@code {"M": {...}}}), as far as the benchmark stub needs them: {@code
 * attribute_exists}, {@code attribute_not_exists}, {@code begins_with}, the six comparisons, {@code
 * AND}/{@code OR}/{@code NOT} and parentheses; {@code SET} (with {@code if_not_exists} and {@code +}/
 * {@code -}), {@code REMOVE} and {@code ADD}; paths of {@code #names} and plain names with {@code .}.
 * Anything else is a {@link ValidationException}, as DynamoDB answers a malformed expression, so
 * that a handler calling something the stub does not know fails loudly instead of measuring a lie.
 */
final class DynamoExpressions {

    /** DynamoDB's {@code ValidationException}: the request is malformed. */
    static final class ValidationException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ValidationException(String message) {
            super(message);
        }
    }

    private final List<String> tokens;
    private final Map<String, String> names;
    private final JsonNode values;
    private int at;

    private DynamoExpressions(String expression, JsonNode names, JsonNode values) {
        this.tokens = tokenize(expression);
        this.names = new java.util.HashMap<>();
        if (names != null) {
            names.fields()
                    .forEachRemaining(
                            e -> this.names.put(e.getKey(), e.getValue().asText()));
        }
        this.values = values;
    }

    /** Whether {@code item} (null: no item) meets {@code condition} (null or blank: always). */
    static boolean condition(String condition, JsonNode names, JsonNode values, ObjectNode item) {
        if (condition == null || condition.isBlank()) {
            return true;
        }
        DynamoExpressions parser = new DynamoExpressions(condition, names, values);
        boolean result = parser.or(item == null ? JsonNodeFactory.instance.objectNode() : item);
        parser.end();
        return result;
    }

    /** Applies {@code update} to {@code item} in place. */
    static void update(String update, JsonNode names, JsonNode values, ObjectNode item) {
        if (update == null || update.isBlank()) {
            return;
        }
        DynamoExpressions parser = new DynamoExpressions(update, names, values);
        ObjectNode before = item.deepCopy(); // every operand reads the item as it was
        while (!parser.done()) {
            String clause = parser.next().toUpperCase(java.util.Locale.ROOT);
            do {
                List<String> path = parser.path();
                switch (clause) {
                    case "SET" -> {
                        parser.expect("=");
                        set(item, path, parser.setValue(before));
                    }
                    case "REMOVE" -> remove(item, path);
                    case "ADD" -> add(item, path, parser.operand(before));
                    default -> throw new ValidationException("unsupported update clause " + clause);
                }
            } while (parser.accept(","));
        }
    }

    // ---- conditions

    private boolean or(ObjectNode item) {
        boolean result = and(item);
        while (acceptWord("OR")) {
            boolean right = and(item);
            result = result || right;
        }
        return result;
    }

    private boolean and(ObjectNode item) {
        boolean result = not(item);
        while (acceptWord("AND")) {
            boolean right = not(item);
            result = result && right;
        }
        return result;
    }

    private boolean not(ObjectNode item) {
        if (acceptWord("NOT")) {
            return !not(item);
        }
        return primary(item);
    }

    private boolean primary(ObjectNode item) {
        if (accept("(")) {
            boolean result = or(item);
            expect(")");
            return result;
        }
        String word = peek();
        if (word.equalsIgnoreCase("attribute_exists") || word.equalsIgnoreCase("attribute_not_exists")) {
            next();
            expect("(");
            JsonNode value = resolve(item, path());
            expect(")");
            return word.equalsIgnoreCase("attribute_exists") == (value != null);
        }
        if (word.equalsIgnoreCase("begins_with")) {
            next();
            expect("(");
            JsonNode value = operand(item);
            expect(",");
            JsonNode prefix = operand(item);
            expect(")");
            return value != null
                    && value.has("S")
                    && value.get("S").asText().startsWith(prefix.path("S").asText());
        }
        JsonNode left = operand(item);
        String op = next();
        JsonNode right = operand(item);
        return compare(left, op, right);
    }

    private static boolean compare(JsonNode left, String op, JsonNode right) {
        if (left == null || right == null) {
            return op.equals("<>") && (left == null) != (right == null);
        }
        String type = left.fieldNames().next();
        if (!right.has(type)) {
            return op.equals("<>");
        }
        int c;
        switch (type) {
            case "S" -> c = left.get("S").asText().compareTo(right.get("S").asText());
            case "N" ->
                c = new BigDecimal(left.get("N").asText())
                        .compareTo(new BigDecimal(right.get("N").asText()));
            case "B" -> c = left.get("B").asText().compareTo(right.get("B").asText());
            default -> {
                if (!op.equals("=") && !op.equals("<>")) {
                    throw new ValidationException("comparison " + op + " on type " + type);
                }
                c = left.equals(right) ? 0 : 1;
            }
        }
        return switch (op) {
            case "=" -> c == 0;
            case "<>" -> c != 0;
            case "<" -> c < 0;
            case "<=" -> c <= 0;
            case ">" -> c > 0;
            case ">=" -> c >= 0;
            default -> throw new ValidationException("unsupported comparator " + op);
        };
    }

    // ---- operands

    private JsonNode operand(ObjectNode item) {
        String token = peek();
        if (token.startsWith(":")) {
            next();
            JsonNode value = values == null ? null : values.get(token);
            if (value == null) {
                throw new ValidationException("An expression attribute value used in expression is not defined;"
                        + " attribute value: " + token);
            }
            return value;
        }
        return resolve(item, path());
    }

    private JsonNode setValue(ObjectNode item) {
        JsonNode left = setOperand(item);
        if (accept("+")) {
            return arithmetic(left, setOperand(item), BigDecimal::add);
        }
        if (accept("-")) {
            return arithmetic(left, setOperand(item), BigDecimal::subtract);
        }
        return left;
    }

    private JsonNode setOperand(ObjectNode item) {
        if (peek().equalsIgnoreCase("if_not_exists")) {
            next();
            expect("(");
            JsonNode existing = resolve(item, path());
            expect(",");
            JsonNode fallback = operand(item);
            expect(")");
            return existing != null ? existing : fallback;
        }
        return operand(item);
    }

    private static JsonNode arithmetic(
            JsonNode left, JsonNode right, java.util.function.BinaryOperator<BigDecimal> operation) {
        if (left == null || right == null || !left.has("N") || !right.has("N")) {
            throw new ValidationException("An operand in the update expression has an incorrect data type");
        }
        BigDecimal result = operation.apply(
                new BigDecimal(left.get("N").asText()),
                new BigDecimal(right.get("N").asText()));
        return JsonNodeFactory.instance.objectNode().put("N", result.toPlainString());
    }

    /** A document path as attribute names (the {@code #names} resolved). */
    private List<String> path() {
        List<String> path = new ArrayList<>();
        path.add(name(next()));
        while (accept(".")) {
            path.add(name(next()));
        }
        return path;
    }

    private String name(String token) {
        if (token.startsWith("#")) {
            String name = names.get(token);
            if (name == null) {
                throw new ValidationException("An expression attribute name used in the document path is not"
                        + " defined; attribute name: " + token);
            }
            return name;
        }
        if (!Character.isLetter(token.charAt(0))) {
            throw new ValidationException("Invalid expression: unexpected token " + token);
        }
        return token;
    }

    static JsonNode resolve(ObjectNode item, List<String> path) {
        JsonNode current = item.get(path.get(0));
        for (int i = 1; i < path.size() && current != null; i++) {
            current = current.has("M") ? current.get("M").get(path.get(i)) : null;
        }
        return current;
    }

    private static ObjectNode parent(ObjectNode item, List<String> path) {
        ObjectNode current = item;
        for (int i = 0; i < path.size() - 1; i++) {
            JsonNode next = current.get(path.get(i));
            if (next == null || !next.has("M")) {
                throw new ValidationException(
                        "The document path provided in the update expression is invalid for" + " update");
            }
            current = (ObjectNode) next.get("M");
        }
        return current;
    }

    private static void set(ObjectNode item, List<String> path, JsonNode value) {
        parent(item, path).set(path.get(path.size() - 1), value.deepCopy());
    }

    private static void remove(ObjectNode item, List<String> path) {
        JsonNode parentValue = path.size() == 1 ? item : resolve(item, path.subList(0, path.size() - 1));
        if (path.size() == 1) {
            item.remove(path.get(0));
        } else if (parentValue != null && parentValue.has("M")) {
            ((ObjectNode) parentValue.get("M")).remove(path.get(path.size() - 1));
        }
    }

    private static void add(ObjectNode item, List<String> path, JsonNode value) {
        JsonNode existing = resolve(item, path);
        if (existing == null) {
            set(item, path, value);
        } else {
            set(item, path, arithmetic(existing, value, BigDecimal::add));
        }
    }

    // ---- tokens

    private static List<String> tokenize(String expression) {
        List<String> tokens = new ArrayList<>();
        int i = 0;
        while (i < expression.length()) {
            char c = expression.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
            } else if (c == '<' || c == '>') {
                if (i + 1 < expression.length()
                        && (expression.charAt(i + 1) == '=' || expression.charAt(i + 1) == '>')) {
                    tokens.add(expression.substring(i, i + 2));
                    i += 2;
                } else {
                    tokens.add(String.valueOf(c));
                    i++;
                }
            } else if ("=(),.+-[]".indexOf(c) >= 0) {
                tokens.add(String.valueOf(c));
                i++;
            } else {
                int start = i;
                while (i < expression.length()
                        && (Character.isLetterOrDigit(expression.charAt(i))
                                || "#:_".indexOf(expression.charAt(i)) >= 0)) {
                    i++;
                }
                if (start == i) {
                    throw new ValidationException("Invalid expression: unexpected character '" + c + "'");
                }
                tokens.add(expression.substring(start, i));
            }
        }
        return tokens;
    }

    private boolean done() {
        return at >= tokens.size();
    }

    private String peek() {
        if (done()) {
            throw new ValidationException("Invalid expression: unexpected end");
        }
        return tokens.get(at);
    }

    private String next() {
        String token = peek();
        at++;
        return token;
    }

    private boolean accept(String token) {
        if (!done() && tokens.get(at).equals(token)) {
            at++;
            return true;
        }
        return false;
    }

    private boolean acceptWord(String word) {
        if (!done() && tokens.get(at).equalsIgnoreCase(word)) {
            at++;
            return true;
        }
        return false;
    }

    private void expect(String token) {
        if (!accept(token)) {
            throw new ValidationException("Invalid expression: expected '" + token + "' at token " + at + " ("
                    + (done() ? "end" : tokens.get(at)) + ")");
        }
    }

    private void end() {
        if (!done()) {
            throw new ValidationException("Invalid expression: unexpected token " + tokens.get(at));
        }
    }
}
