package dev.sluice.core.pii;

import static dev.sluice.core.testing.Theories.assertFalsified;
import static dev.sluice.core.testing.Theories.digits;
import static dev.sluice.core.testing.Theories.qt;
import static dev.sluice.core.testing.Theories.strings;
import static dev.sluice.core.testing.Theories.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.generators.SourceDSL.booleans;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.longs;

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
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.quicktheories.api.Pair;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * Property tests: whatever the event and whatever the schema, no raw value of a tokenised, masked
 * or dropped field survives {@link PiiPolicy#apply}, and every other field is left exactly as it
 * was.
 *
 * <p>QuickTheories, 1,000 examples per property, fixed seed ({@link dev.sluice.core.testing.Theories}). Each
 * property takes the implementation under test; {@link BrokenImplementationsAreCaught} runs each
 * against a deliberately broken one, which it must falsify.
 */
class PiiLeakPropertyTest {

    static final ObjectMapper MAPPER = TestFiles.MAPPER;
    static final Tokenizer TOKENIZER = new Tokenizer(TokenizerTest.KEY, "k1");
    static final JsonNode PAYMENTS_SCHEMA =
            TestFiles.schemas().schema("payments.transaction.v1").document();
    static final int TRIES = 1000;

    /** The implementation under test: protects an event in place. */
    interface Protection {
        void protect(ObjectNode event);
    }

    /** The real thing: the policy {@link PiiPolicy#fromSchema} compiles, applied with {@link #TOKENIZER}. */
    static final Function<JsonNode, Protection> REAL = schema -> {
        PiiPolicy policy = PiiPolicy.fromSchema(schema);
        return event -> policy.apply(event, TOKENIZER);
    };

    @Test
    void paymentEventsKeepNoCardNumberOrEmail() {
        paymentEventsKeepNoCardNumberOrEmail(REAL.apply(PAYMENTS_SCHEMA));
    }

    @Test
    void arbitrarySchemasLeakNoAnnotatedValue() {
        arbitrarySchemasLeakNoAnnotatedValue(REAL);
    }

    @Test
    void tokenIsTheTruncatedHmacOfJdkUtf8() {
        tokenIsTheTruncatedHmacOfJdkUtf8(TOKENIZER::token);
    }

    @Test
    void maskNeverShowsMoreThanFourCharacters() {
        maskNeverShowsMoreThanFourCharacters(Masker::mask);
    }

    // ------------------------------------------------------------------------------------------
    // payments.transaction.v1 events

    static void paymentEventsKeepNoCardNumberOrEmail(Protection payments) {
        qt(TRIES)
                .forAll(payments())
                .assuming(generated -> {
                    // no PII value may appear in the rest of the event by chance
                    String nonPiiText = json(withoutPaymentPii(generated));
                    return !nonPiiText.contains(
                                    generated.at("/payload/cardNumber").textValue())
                            && !nonPiiText.contains(
                                    escaped(generated.at("/payload/email").textValue()));
                })
                .checkAssert(generated -> {
                    ObjectNode event = generated.deepCopy();
                    String card = generated.at("/payload/cardNumber").textValue();
                    String email = generated.at("/payload/email").textValue();

                    payments.protect(event);

                    String out = json(event);
                    assertThat(out)
                            .doesNotContain(card)
                            .doesNotContain(escaped(email))
                            .doesNotContain(email);
                    assertThat(event.at("/payload/cardNumber").textValue())
                            .isEqualTo("*".repeat(card.length() - 4) + card.substring(card.length() - 4));
                    assertThat(event.at("/payload/email").textValue())
                            .startsWith("tok_k1_")
                            .hasSize(29)
                            .isEqualTo(TOKENIZER.token(email));
                    assertThat(withoutPaymentPii(event)).isEqualTo(withoutPaymentPii(generated));
                });
    }

    private static ObjectNode withoutPaymentPii(ObjectNode event) {
        ObjectNode copy = event.deepCopy();
        ((ObjectNode) copy.get("payload")).remove(List.of("cardNumber", "email"));
        return copy;
    }

    static Gen<ObjectNode> payments() {
        Gen<String> eventId = strings("abcdefghijklmnopqrstuvwxyz0123456789-_", 8, 64);
        Gen<String> customer = digits(7).map(d -> "cust-" + d);
        Gen<String> cardNumber = strings("0123456789", 12, 19);
        Gen<BigDecimal> amount = longs().between(1, 100_000_000).map(cents -> BigDecimal.valueOf(cents, 2));
        Gen<String> currency = Generate.pick(List.of("EUR", "USD", "GBP", "CHF", "SEK", "JPY"));
        Gen<String> country = Generate.pick(List.of("NL", "DE", "FR", "US"));
        Gen<String> channel = Generate.pick(List.of("POS", "ECOMMERCE", "ATM", "CONTACTLESS", "MOTO"));
        Gen<String> merchantName = text(1, 40);
        Gen<String> source = text(1, 30);
        Gen<Long> occurredAt = longs().between(0, 4_000_000_000_000L);
        Gen<List<Pair<String, String>>> extras = lists().of(
                        strings("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", 1, 8)
                                .map(k -> "x" + k)
                                .zip(text(0, 20), Pair::of))
                .ofSizeBetween(0, 3);
        Gen<String> emails = emails();
        return in -> {
            ObjectNode payload = MAPPER.createObjectNode();
            String cust = customer.generate(in);
            payload.put("customerId", cust)
                    .put("cardNumber", cardNumber.generate(in))
                    .put("email", emails.generate(in))
                    .put("amount", amount.generate(in))
                    .put("currency", currency.generate(in));
            payload.putObject("merchant")
                    .put("id", "m-" + digits(6).generate(in))
                    .put("name", merchantName.generate(in))
                    .put("category", digits(4).generate(in));
            payload.put("country", country.generate(in)).put("channel", channel.generate(in));
            ObjectNode event = MAPPER.createObjectNode();
            event.put("eventId", eventId.generate(in))
                    .put("type", "payments.transaction.v1")
                    .put("source", source.generate(in))
                    .put(
                            "occurredAt",
                            Instant.ofEpochMilli(occurredAt.generate(in)).toString())
                    .put("key", cust);
            event.set("payload", payload);
            extras.generate(in).forEach(extra -> event.put(extra._1, extra._2));
            return event;
        };
    }

    /** Arbitrary e-mail-like strings of any Unicode text around an {@code @}. */
    static Gen<String> emails() {
        return text(1, 24).zip(text(1, 24), (local, domain) -> local + "@" + domain);
    }

    // ------------------------------------------------------------------------------------------
    // arbitrary nested schemas

    static void arbitrarySchemasLeakNoAnnotatedValue(Function<JsonNode, Protection> policies) {
        qt(TRIES)
                .forAll(cases())
                .assuming(generated -> {
                    // no raw PII value may appear in a plain value or a property name by chance
                    Oracle oracle = new Oracle();
                    oracle.expected(generated.shape(), generated.event(), null);
                    return oracle.raw.stream()
                            .map(PiiLeakPropertyTest::escaped)
                            .noneMatch(needle -> oracle.plain.stream().anyMatch(p -> p.contains(needle)));
                })
                .checkAssert(generated -> {
                    Protection protection = policies.apply(generated.schema());
                    ObjectNode event = generated.event().deepCopy();
                    Oracle oracle = new Oracle();
                    JsonNode expected = oracle.expected(generated.shape(), generated.event(), null);

                    protection.protect(event);

                    String out = json(event);
                    for (String raw : oracle.raw) {
                        assertThat(out).as("raw PII value %s", raw).doesNotContain(escaped(raw));
                    }
                    assertThat(event).isEqualTo(expected);
                });
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

    static Gen<Case> cases() {
        return object(3, false, 1)
                .map(root -> {
                    ObjectNode defs = MAPPER.createObjectNode();
                    ObjectNode schema = (ObjectNode) schemaOf(root, defs);
                    schema.put("$schema", "https://json-schema.org/draft/2020-12/schema");
                    schema.set("$defs", defs);
                    return Pair.of(root, schema);
                })
                .flatMap(p -> value(p._1, null).map(event -> new Case(p._1, p._2, (ObjectNode) event)));
    }

    /** An action, or none ({@code null}) {@code percentNone} % of the time. */
    private static Gen<Action> action(int percentNone) {
        return Generate.enumValues(Action.class).toOptionals(percentNone).map(a -> a.orElse(null));
    }

    private static Gen<Shape> shape(int depth) {
        Gen<Shape> leaf =
                Generate.enumValues(Kind.class).zip(action(40), booleans().all(), Leaf::new);
        if (depth == 0) {
            return leaf;
        }
        return Generate.frequency(List.of(
                Pair.of(4, leaf),
                Pair.of(2, object(depth - 1, true, 0).map(o -> (Shape) o)),
                Pair.of(1, array(depth - 1).map(a -> (Shape) a))));
    }

    /** An object of {@code minProperties} to four properties (fewer when generated names repeat). */
    private static Gen<Obj> object(int depth, boolean annotatable, int minProperties) {
        Gen<Action> action = annotatable ? action(85) : Generate.constant((Action) null);
        Gen<Shape> child = in -> shape(depth).generate(in);
        Gen<List<Pair<String, Shape>>> properties =
                lists().of(names().zip(child, Pair::of)).ofSizeBetween(minProperties, 4);
        return properties.zip(action, booleans().all(), (list, a, viaRef) -> {
            Map<String, Shape> map = new LinkedHashMap<>();
            list.forEach(p -> map.put(p._1, p._2));
            Obj obj = new Obj(map, null, viaRef);
            return a == null ? obj : new Obj(((Obj) obj.plain()).properties(), a, viaRef);
        });
    }

    private static Gen<Arr> array(int depth) {
        Gen<Shape> items = in -> shape(depth).generate(in);
        return items.zip(action(80), (i, a) -> a == null ? new Arr(i, null) : new Arr(i.plain(), a));
    }

    /** Property names, with characters that need escaping in paths. */
    private static Gen<String> names() {
        return strings("abcxyz~/ *\u00e9", 1, 5);
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
    private static Gen<JsonNode> value(Shape shape, Action inherited) {
        Action effective = inherited != null ? inherited : shape.action();
        if (shape instanceof Leaf leaf) {
            return effective == null ? plainScalar(leaf.kind()) : piiScalar(leaf.kind());
        }
        if (shape instanceof Arr arr) {
            return lists().of(value(arr.items(), effective).toOptionals(10))
                    .ofSizeBetween(0, 3)
                    .map(elements -> {
                        ArrayNode array = MAPPER.createArrayNode();
                        elements.forEach(e -> array.add(e.orElse(NullNode.getInstance())));
                        return array;
                    });
        }
        Obj obj = (Obj) shape;
        List<String> names = new ArrayList<>(obj.properties().keySet());
        List<Gen<JsonNode>> members = new ArrayList<>();
        for (String name : names) {
            members.add(Generate.frequency(List.of(
                    Pair.of(14, value(obj.properties().get(name), effective)),
                    Pair.of(3, Generate.constant((JsonNode) MissingNode.getInstance())),
                    Pair.of(3, Generate.constant((JsonNode) NullNode.getInstance())))));
        }
        return in -> {
            ObjectNode node = MAPPER.createObjectNode();
            for (int i = 0; i < names.size(); i++) {
                JsonNode value = members.get(i).generate(in);
                if (!value.isMissingNode()) {
                    node.set(names.get(i), value.deepCopy());
                }
            }
            return node;
        };
    }

    /** Values that are not personal data: never contain an {@code @} nor twelve digits in a row. */
    private static Gen<JsonNode> plainScalar(Kind kind) {
        return switch (kind) {
            case TEXT -> text(0, 12, '@').map(TextNode::valueOf);
            case DIGITS -> strings("0123456789", 0, 8).map(TextNode::valueOf);
            case NUMBER ->
                Generate.oneOf(
                        Generate.range(-1_000_000, 1_000_000).map(IntNode::valueOf),
                        longs().between(-100_000_000, 100_000_000)
                                .map(cents -> DecimalNode.valueOf(BigDecimal.valueOf(cents, 2))));
            case BOOLEAN -> booleans().all().map(BooleanNode::valueOf);
        };
    }

    /**
     * Personal values that no legitimate output can contain by chance: Unicode text around an
     * {@code @} (tokens, masks and plain values have none), or twelve to nineteen digits (masks keep
     * four).
     */
    private static Gen<JsonNode> piiScalar(Kind kind) {
        return switch (kind) {
            case TEXT, BOOLEAN -> emails().map(TextNode::valueOf);
            case DIGITS -> strings("0123456789", 12, 19).map(TextNode::valueOf);
            case NUMBER ->
                longs().between(100_000_000_000L, Long.MAX_VALUE)
                        .zip(Generate.pick(List.of(1, -1)), (n, sign) -> (JsonNode) LongNode.valueOf(sign * n));
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
        JsonNode expected(Shape shape, JsonNode value, Action inherited) {
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
                    plain.add(json(value));
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

    static void tokenIsTheTruncatedHmacOfJdkUtf8(UnaryOperator<String> tokenizer) {
        qt(TRIES)
                .forAll(text(0, 300))
                .checkAssert(value -> assertThat(tokenizer.apply(value))
                        .isEqualTo(expectedToken(value.getBytes(StandardCharsets.UTF_8))));
    }

    static void maskNeverShowsMoreThanFourCharacters(UnaryOperator<String> masker) {
        qt(TRIES).forAll(text(0, 40)).checkAssert(value -> {
            String masked = masker.apply(value);

            assertThat(masked.codePointCount(0, masked.length())).isEqualTo(value.codePointCount(0, value.length()));
            assertThat(masked.replace("*", "").length()).isLessThanOrEqualTo(Masker.KEEP_LAST);
            if (value.length() > Masker.KEEP_LAST && !value.chars().allMatch(c -> c == '*')) {
                assertThat(masked).isNotEqualTo(value);
            }
        });
    }

    /** {@link #TOKENIZER}'s token of these bytes, computed with the JDK's HMAC. */
    static String expectedToken(byte[] bytes) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(TokenizerTest.KEY, "HmacSHA256"));
            return "tok_k1_"
                    + Base64.getUrlEncoder().withoutPadding().encodeToString(Arrays.copyOf(mac.doFinal(bytes), 16));
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    static String json(JsonNode node) {
        try {
            return MAPPER.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    static String escaped(String raw) {
        String json = json(TextNode.valueOf(raw));
        return json.substring(1, json.length() - 1);
    }

    // ------------------------------------------------------------------------------------------
    // mutation checks

    /** Each property, run against a deliberately broken implementation, is falsified. */
    @Nested
    class BrokenImplementationsAreCaught {

        @Test
        void aPolicyThatMasksTheEmailInsteadOfTokenizingIt() {
            ObjectNode schema = PAYMENTS_SCHEMA.deepCopy();
            ((ObjectNode) schema.at("/properties/payload/properties/email")).put("x-pii", "mask");
            assertFalsified(() -> paymentEventsKeepNoCardNumberOrEmail(REAL.apply(schema)));
        }

        @Test
        void aPolicyThatDoesNotLookIntoAllOf() {
            assertFalsified(() -> arbitrarySchemasLeakNoAnnotatedValue(
                    schema -> REAL.apply(replaced(schema, node -> node.has("allOf")))));
        }

        @Test
        void aPolicyThatDoesNotFollowRefs() {
            assertFalsified(() -> arbitrarySchemasLeakNoAnnotatedValue(
                    schema -> REAL.apply(replaced(schema, node -> node.has("$ref")))));
        }

        @Test
        void aTokenizerThatEncodesEachUtf16CharOnItsOwn() {
            assertFalsified(() -> tokenIsTheTruncatedHmacOfJdkUtf8(value -> expectedToken(cesu8(value))));
        }

        @Test
        void aMaskWithOneStarPerUtf16Char() {
            assertFalsified(() -> maskNeverShowsMoreThanFourCharacters(value -> {
                String masked = Masker.mask(value);
                return masked.chars().allMatch(c -> c == '*') ? "*".repeat(value.length()) : masked;
            }));
        }
    }

    /**
     * The schema with every subschema that matches replaced by {@code {}}, as a schema walker that
     * does not understand that keyword would see it.
     */
    static JsonNode replaced(JsonNode schema, java.util.function.Predicate<JsonNode> matches) {
        if (schema.isObject() && matches.test(schema)) {
            return MAPPER.createObjectNode();
        }
        if (schema.isObject()) {
            ObjectNode copy = MAPPER.createObjectNode();
            schema.properties().forEach(e -> copy.set(e.getKey(), replaced(e.getValue(), matches)));
            return copy;
        }
        if (schema.isArray()) {
            ArrayNode copy = MAPPER.createArrayNode();
            schema.forEach(element -> copy.add(replaced(element, matches)));
            return copy;
        }
        return schema;
    }

    /** UTF-8 of each UTF-16 char separately (CESU-8): surrogates become three bytes each. */
    static byte[] cesu8(String value) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < 0x80) {
                out.write(c);
            } else if (c < 0x800) {
                out.write(0xc0 | c >> 6);
                out.write(0x80 | c & 0x3f);
            } else {
                out.write(0xe0 | c >> 12);
                out.write(0x80 | c >> 6 & 0x3f);
                out.write(0x80 | c & 0x3f);
            }
        }
        return out.toByteArray();
    }
}
