package dev.sluice.core.pii;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.sluice.core.TestFiles;
import dev.sluice.core.pii.PiiField.Action;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.StringLength;
import net.jqwik.api.statistics.Statistics;

/**
 * Property tests: whatever the event and whatever the schema, no raw value of a tokenised, masked
 * or dropped field survives {@link PiiPolicy#apply}, and every other field is left exactly as it
 * was.
 */
class PiiLeakPropertyTest {

    static final ObjectMapper MAPPER = TestFiles.MAPPER;
    static final Tokenizer TOKENIZER = new Tokenizer(TokenizerTest.KEY, "k1");
    static final PiiPolicy PAYMENTS = PiiPolicy.of(TestFiles.schemas().schema("payments.transaction.v1"));

    // ------------------------------------------------------------------------------------------
    // payments.transaction.v1 events

    @Property(tries = 1000)
    void paymentEventsKeepNoCardNumberOrEmail(@ForAll("payments") ObjectNode generated) throws Exception {
        ObjectNode original = generated.deepCopy();
        ObjectNode event = generated.deepCopy();
        String card = original.at("/payload/cardNumber").textValue();
        String email = original.at("/payload/email").textValue();
        ObjectNode nonPii = withoutPaymentPii(original);
        String nonPiiText = MAPPER.writeValueAsString(nonPii);
        Assume.that(!nonPiiText.contains(card) && !nonPiiText.contains(escaped(email)));

        PAYMENTS.apply(event, TOKENIZER);

        String out = MAPPER.writeValueAsString(event);
        assertThat(out).doesNotContain(card).doesNotContain(escaped(email)).doesNotContain(email);
        assertThat(event.at("/payload/cardNumber").textValue())
                .isEqualTo("*".repeat(card.length() - 4) + card.substring(card.length() - 4));
        assertThat(event.at("/payload/email").textValue())
                .startsWith("tok_k1_")
                .hasSize(29)
                .isEqualTo(TOKENIZER.token(email));
        assertThat(withoutPaymentPii(event)).isEqualTo(nonPii);
        Statistics.label("card digits").collect(card.length());
        Statistics.label("email has non-ASCII").collect(email.chars().anyMatch(c -> c > 127));
    }

    private static ObjectNode withoutPaymentPii(ObjectNode event) {
        ObjectNode copy = event.deepCopy();
        ((ObjectNode) copy.get("payload")).remove(List.of("cardNumber", "email"));
        return copy;
    }

    @Provide
    Arbitrary<ObjectNode> payments() {
        Arbitrary<String> eventId = Arbitraries.strings()
                .withCharRange('a', 'z')
                .withCharRange('0', '9')
                .withChars('-', '_')
                .ofMinLength(8)
                .ofMaxLength(64);
        Arbitrary<String> customer = Arbitraries.strings().numeric().ofLength(7).map(d -> "cust-" + d);
        Arbitrary<String> cardNumber =
                Arbitraries.strings().numeric().ofMinLength(12).ofMaxLength(19);
        Arbitrary<BigDecimal> amount = Arbitraries.bigDecimals()
                .between(new BigDecimal("0.01"), new BigDecimal("1000000"))
                .ofScale(2);
        Arbitrary<String> currency = Arbitraries.of("EUR", "USD", "GBP", "CHF", "SEK", "JPY");
        Arbitrary<ObjectNode> merchant = Combinators.combine(
                        Arbitraries.strings().numeric().ofLength(6),
                        Arbitraries.strings().all().ofMinLength(1).ofMaxLength(40),
                        Arbitraries.strings().numeric().ofLength(4))
                .as((id, name, mcc) -> {
                    ObjectNode node = MAPPER.createObjectNode();
                    node.put("id", "m-" + id).put("name", name).put("category", mcc);
                    return node;
                });
        Arbitrary<Map<String, String>> extras = Arbitraries.maps(
                        Arbitraries.strings()
                                .alpha()
                                .ofMinLength(1)
                                .ofMaxLength(8)
                                .map(k -> "x" + k),
                        Arbitraries.strings().all().ofMaxLength(20))
                .ofMaxSize(3);
        Arbitrary<ObjectNode> payload = Combinators.combine(
                        customer,
                        cardNumber,
                        emails(),
                        amount,
                        currency,
                        merchant,
                        Arbitraries.of("NL", "DE", "FR", "US"),
                        Arbitraries.of("POS", "ECOMMERCE", "ATM", "CONTACTLESS", "MOTO"))
                .as((cust, card, email, amt, cur, merch, country, channel) -> {
                    ObjectNode node = MAPPER.createObjectNode();
                    node.put("customerId", cust)
                            .put("cardNumber", card)
                            .put("email", email)
                            .put("amount", amt)
                            .put("currency", cur);
                    node.set("merchant", merch);
                    node.put("country", country).put("channel", channel);
                    return node;
                });
        return Combinators.combine(
                        eventId,
                        Arbitraries.strings().all().ofMinLength(1).ofMaxLength(30),
                        Arbitraries.longs().between(0, 4_000_000_000_000L),
                        payload,
                        extras)
                .as((id, source, millis, body, extra) -> {
                    ObjectNode event = MAPPER.createObjectNode();
                    event.put("eventId", id)
                            .put("type", "payments.transaction.v1")
                            .put("source", source)
                            .put(
                                    "occurredAt",
                                    java.time.Instant.ofEpochMilli(millis).toString())
                            .put("key", body.get("customerId").textValue());
                    event.set("payload", body);
                    extra.forEach(event::put);
                    return event;
                });
    }

    /** Arbitrary e-mail-like strings of any Unicode text around an {@code @}. */
    static Arbitrary<String> emails() {
        Arbitrary<String> part = Arbitraries.strings().all().ofMinLength(1).ofMaxLength(24);
        return Combinators.combine(part, part).as((local, domain) -> local + "@" + domain);
    }

    // ------------------------------------------------------------------------------------------
    // arbitrary nested schemas

    @Property(tries = 1000)
    void arbitrarySchemasLeakNoAnnotatedValue(@ForAll("cases") Case generated) throws Exception {
        PiiPolicy policy = PiiPolicy.fromSchema(generated.schema());
        ObjectNode event = generated.event().deepCopy();
        Oracle oracle = new Oracle();
        JsonNode expected = oracle.expected(generated.shape(), generated.event(), null);
        for (String raw : oracle.raw) {
            String needle = escaped(raw);
            Assume.that(oracle.plain.stream().noneMatch(p -> p.contains(needle)));
        }

        policy.apply(event, TOKENIZER);

        String out = MAPPER.writeValueAsString(event);
        for (String raw : oracle.raw) {
            assertThat(out).as("raw PII value %s", raw).doesNotContain(escaped(raw));
        }
        assertThat(event).isEqualTo(expected);
        Statistics.label("annotated values")
                .collect(oracle.raw.isEmpty() ? "none" : oracle.raw.size() < 5 ? "1-4" : "5+");
        Statistics.label("policy fields").collect(Math.min(policy.fields().size(), 5));
    }

    /** A generated schema (as a model and as JSON) with one generated event of it. */
    record Case(Obj shape, ObjectNode schema, ObjectNode event) {
        @Override
        public String toString() {
            return "schema " + schema + "\nevent  " + event;
        }
    }

    enum Kind {
        TEXT,
        DIGITS,
        NUMBER,
        BOOLEAN
    }

    sealed interface Shape permits Leaf, Obj, Arr {
        Action action();

        /** The same shape without any annotations (what an annotated container holds). */
        Shape plain();
    }

    record Leaf(Kind kind, Action action, boolean inAllOf) implements Shape {
        @Override
        public Shape plain() {
            return new Leaf(kind, null, inAllOf);
        }
    }

    record Obj(Map<String, Shape> properties, Action action, boolean viaRef) implements Shape {
        @Override
        public Shape plain() {
            Map<String, Shape> plain = new LinkedHashMap<>();
            properties.forEach((name, shape) -> plain.put(name, shape.plain()));
            return new Obj(plain, null, viaRef);
        }
    }

    record Arr(Shape items, Action action) implements Shape {
        @Override
        public Shape plain() {
            return new Arr(items.plain(), null);
        }
    }

    @Provide
    Arbitrary<Case> cases() {
        return object(3, false).filter(root -> !root.properties().isEmpty()).flatMap(root -> {
            ObjectNode defs = MAPPER.createObjectNode();
            ObjectNode schema = (ObjectNode) schemaOf(root, defs);
            schema.put("$schema", "https://json-schema.org/draft/2020-12/schema");
            schema.set("$defs", defs);
            return value(root, null).map(event -> new Case(root, schema, (ObjectNode) event));
        });
    }

    private static Arbitrary<Shape> shape(int depth) {
        Arbitrary<Shape> leaf = Combinators.combine(
                        Arbitraries.of(Kind.class),
                        Arbitraries.of(Action.class).injectNull(0.4),
                        Arbitraries.of(true, false))
                .as(Leaf::new);
        if (depth == 0) {
            return leaf;
        }
        return Arbitraries.frequencyOf(
                Tuple.of(4, leaf),
                Tuple.of(2, object(depth - 1, true).map(o -> (Shape) o)),
                Tuple.of(1, array(depth - 1).map(a -> (Shape) a)));
    }

    private static Arbitrary<Obj> object(int depth, boolean annotatable) {
        Arbitrary<Action> action = annotatable ? Arbitraries.of(Action.class).injectNull(0.85) : Arbitraries.just(null);
        return Combinators.combine(
                        Arbitraries.maps(names(), Arbitraries.lazy(() -> shape(depth)))
                                .ofMaxSize(4),
                        action,
                        Arbitraries.of(true, false))
                .as((properties, a, viaRef) -> {
                    Obj obj = new Obj(new LinkedHashMap<>(properties), null, viaRef);
                    return a == null ? obj : new Obj(((Obj) obj.plain()).properties(), a, viaRef);
                });
    }

    private static Arbitrary<Arr> array(int depth) {
        return Combinators.combine(
                        Arbitraries.lazy(() -> shape(depth)),
                        Arbitraries.of(Action.class).injectNull(0.8))
                .as((items, a) -> a == null ? new Arr(items, null) : new Arr(items.plain(), a));
    }

    /** Property names, with characters that need escaping in paths. */
    private static Arbitrary<String> names() {
        return Arbitraries.strings().withChars("abcxyz~/ *é").ofMinLength(1).ofMaxLength(5);
    }

    private static JsonNode schemaOf(Shape shape, ObjectNode defs) {
        ObjectNode node = MAPPER.createObjectNode();
        if (shape instanceof Leaf leaf) {
            node.put(
                    "type", leaf.kind() == Kind.NUMBER ? "number" : leaf.kind() == Kind.BOOLEAN ? "boolean" : "string");
            annotate(node, leaf.action());
            if (leaf.inAllOf()) {
                ObjectNode wrapper = MAPPER.createObjectNode();
                wrapper.putArray("allOf").add(node);
                return wrapper;
            }
            return node;
        }
        if (shape instanceof Arr arr) {
            node.put("type", "array");
            node.set("items", schemaOf(arr.items(), defs));
            annotate(node, arr.action());
            return node;
        }
        Obj obj = (Obj) shape;
        node.put("type", "object");
        ObjectNode properties = node.putObject("properties");
        obj.properties().forEach((name, child) -> properties.set(name, schemaOf(child, defs)));
        annotate(node, obj.action());
        if (!obj.viaRef()) {
            return node;
        }
        String name = "d" + defs.size();
        defs.set(name, node);
        ObjectNode ref = MAPPER.createObjectNode();
        ref.put("$ref", "#/$defs/" + name);
        return ref;
    }

    private static void annotate(ObjectNode schema, Action action) {
        if (action != null) {
            schema.put("x-pii", action.keyword());
        }
    }

    /** A value of a shape; {@code inherited} is the action of an annotated container around it. */
    private static Arbitrary<JsonNode> value(Shape shape, Action inherited) {
        Action effective = inherited != null ? inherited : shape.action();
        if (shape instanceof Leaf leaf) {
            return effective == null ? plainScalar(leaf.kind()) : piiScalar(leaf.kind());
        }
        if (shape instanceof Arr arr) {
            return value(arr.items(), effective)
                    .injectNull(0.1)
                    .list()
                    .ofMaxSize(3)
                    .map(elements -> {
                        ArrayNode array = MAPPER.createArrayNode();
                        elements.forEach(e -> array.add(e == null ? NullNode.getInstance() : e));
                        return array;
                    });
        }
        Obj obj = (Obj) shape;
        List<String> names = new ArrayList<>(obj.properties().keySet());
        List<Arbitrary<JsonNode>> members = new ArrayList<>();
        for (String name : names) {
            members.add(Arbitraries.frequencyOf(
                    Tuple.of(14, value(obj.properties().get(name), effective)),
                    Tuple.of(3, Arbitraries.just((JsonNode) MissingNode.getInstance())),
                    Tuple.of(3, Arbitraries.just((JsonNode) NullNode.getInstance()))));
        }
        if (members.isEmpty()) {
            return Arbitraries.just(0).map(ignored -> MAPPER.createObjectNode());
        }
        return Combinators.combine(members).as(values -> {
            ObjectNode node = MAPPER.createObjectNode();
            for (int i = 0; i < names.size(); i++) {
                if (!values.get(i).isMissingNode()) {
                    node.set(names.get(i), values.get(i).deepCopy());
                }
            }
            return node;
        });
    }

    /** Values that are not personal data: never contain an {@code @} nor twelve digits in a row. */
    private static Arbitrary<JsonNode> plainScalar(Kind kind) {
        return switch (kind) {
            case TEXT ->
                Arbitraries.strings().all().excludeChars('@').ofMaxLength(12).map(TextNode::valueOf);
            case DIGITS -> Arbitraries.strings().numeric().ofMaxLength(8).map(TextNode::valueOf);
            case NUMBER ->
                Arbitraries.oneOf(
                        Arbitraries.integers().between(-1_000_000, 1_000_000).map(IntNode::valueOf),
                        Arbitraries.bigDecimals()
                                .between(new BigDecimal("-1000000"), new BigDecimal("1000000"))
                                .ofScale(2)
                                .map(DecimalNode::valueOf));
            case BOOLEAN -> Arbitraries.of(true, false).map(BooleanNode::valueOf);
        };
    }

    /**
     * Personal values that no legitimate output can contain by chance: Unicode text around an
     * {@code @} (tokens, masks and plain values have none), or twelve to nineteen digits (masks keep
     * four).
     */
    private static Arbitrary<JsonNode> piiScalar(Kind kind) {
        return switch (kind) {
            case TEXT, BOOLEAN -> emails().map(TextNode::valueOf);
            case DIGITS ->
                Arbitraries.strings().numeric().ofMinLength(12).ofMaxLength(19).map(TextNode::valueOf);
            case NUMBER ->
                Combinators.combine(
                                Arbitraries.longs().between(100_000_000_000L, Long.MAX_VALUE), Arbitraries.of(1, -1))
                        .as((n, sign) -> (JsonNode) LongNode.valueOf(sign * n));
        };
    }

    /**
     * The expected output, computed from the model rather than from the policy, and the raw
     * annotated values and the plain texts of the input.
     */
    static final class Oracle {
        final List<String> raw = new ArrayList<>();
        final List<String> plain = new ArrayList<>();

        /** The expected form of {@code value}; {@code null} when it is dropped. */
        JsonNode expected(Shape shape, JsonNode value, Action inherited) throws JsonProcessingException {
            if (value == null || value.isNull()) {
                return value;
            }
            Action effective = inherited != null ? inherited : shape.action();
            if (effective == Action.DROP) {
                collectRaw(value);
                return null;
            }
            if (shape instanceof Leaf) {
                if (effective == null) {
                    plain.add(MAPPER.writeValueAsString(value));
                    return value.deepCopy();
                }
                String text = value.isTextual() ? value.textValue() : value.asText();
                raw.add(text);
                return TextNode.valueOf(effective == Action.TOKENIZE ? TOKENIZER.token(text) : Masker.mask(text));
            }
            if (shape instanceof Arr arr) {
                ArrayNode out = MAPPER.createArrayNode();
                boolean elementsDropped = effective == null && arr.items().action() == Action.DROP;
                for (JsonNode element : value) {
                    JsonNode e = expected(arr.items(), element, effective);
                    if (!elementsDropped) {
                        out.add(e == null ? NullNode.getInstance() : e);
                    }
                }
                return out;
            }
            ObjectNode out = MAPPER.createObjectNode();
            Obj obj = (Obj) shape;
            for (Map.Entry<String, JsonNode> property : value.properties()) {
                plain.add(property.getKey());
                JsonNode e = expected(obj.properties().get(property.getKey()), property.getValue(), effective);
                if (e != null) {
                    out.set(property.getKey(), e);
                }
            }
            return out;
        }

        private void collectRaw(JsonNode value) {
            if (value.isContainerNode()) {
                value.forEach(this::collectRaw);
            } else if (!value.isNull()) {
                raw.add(value.isTextual() ? value.textValue() : value.asText());
            }
        }
    }

    // ------------------------------------------------------------------------------------------
    // the building blocks, on their own

    @Property(tries = 1000)
    void tokenIsTheTruncatedHmacOfJdkUtf8(@ForAll("anyText") String value) throws Exception {
        assertThat(TOKENIZER.token(value)).isEqualTo(TokenizerTest.expectedToken(TokenizerTest.KEY, "tok_k1_", value));
    }

    @Provide
    Arbitrary<String> anyText() {
        return Arbitraries.strings().all().ofMaxLength(300);
    }

    @Property(tries = 1000)
    void maskNeverShowsMoreThanFourCharacters(@ForAll @StringLength(max = 40) String value) {
        String masked = Masker.mask(value);

        assertThat(masked.codePointCount(0, masked.length())).isEqualTo(value.codePointCount(0, value.length()));
        assertThat(masked.replace("*", "").length()).isLessThanOrEqualTo(Masker.KEEP_LAST);
        if (value.length() > Masker.KEEP_LAST && !value.chars().allMatch(c -> c == '*')) {
            assertThat(masked).isNotEqualTo(value);
        }
    }

    static String escaped(String raw) throws JsonProcessingException {
        String json = MAPPER.writeValueAsString(raw);
        return json.substring(1, json.length() - 1);
    }
}
