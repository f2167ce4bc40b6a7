package dev.sluice.core.schema;

import static dev.sluice.core.testing.Theories.assertFalsified;
import static dev.sluice.core.testing.Theories.fromRandom;
import static dev.sluice.core.testing.Theories.qt;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.core.schema.fast.FastValidator;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.function.Function;
import java.util.function.Predicate;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * Random valid payments and click events, each mutated a few times at random (a member removed, replaced by a tricky
 * or random value, a character of a string inserted, deleted or replaced, a member added): the fast validator and
 * networknt must agree on every one, parsed with doubles and with exact decimals.
 *
 * <p>QuickTheories, fixed seed ({@link dev.sluice.core.testing.Theories}); the events are built by plain code from a
 * {@link Random} QuickTheories seeds ({@link dev.sluice.core.testing.Theories#fromRandom}). Each property takes the fast
 * validator under test; {@link BrokenValidatorsAreCaught} runs each against a deliberately broken one, which it must
 * falsify.
 */
class FastValidatorPropertyTest {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final EventSchema PAYMENTS = FastValidatorConformanceTest.schema(ConformanceCorpus.PAYMENT);
    private static final EventSchema CLICKS = FastValidatorConformanceTest.schema(ConformanceCorpus.CLICK);

    private static final String[] CURRENCIES = {
        "EUR", "USD", "GBP", "CHF", "SEK", "NOK", "DKK", "PLN", "CZK", "JPY", "CAD", "AUD"
    };
    private static final String[] CHANNELS = {"POS", "ECOMMERCE", "ATM", "CONTACTLESS", "MOTO"};
    private static final String[] ACTIONS = {"view", "favourite", "add_to_basket", "remove_from_basket", "checkout"};
    private static final String[] TLDS = {"nl", "com", "de", "org", "io", "example", "xyz", "zzz", "co.uk", "museum"};
    private static final String ID_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";
    private static final String ATEXT = "abcdefghijklmnopqrstuvwxyz0123456789.!#$%&'*+/=?^_`{|}~-";
    private static final String NOISE = "09aZ-_.:@+ TtZz\n\u2028é😀[]\"%";

    /** The fast validator under test, for a schema. */
    static final Function<EventSchema, Predicate<JsonNode>> REAL =
            schema -> schema.fastValidator().orElseThrow()::isValid;

    @Test
    void mutatedPaymentsGetNetworkntsVerdict() {
        mutatedPaymentsGetNetworkntsVerdict(REAL);
    }

    @Test
    void mutatedClicksGetNetworkntsVerdict() {
        mutatedClicksGetNetworkntsVerdict(REAL);
    }

    static void mutatedPaymentsGetNetworkntsVerdict(Function<EventSchema, Predicate<JsonNode>> fast) {
        agreeOn(PAYMENTS, fast.apply(PAYMENTS), payments(), 1500);
    }

    static void mutatedClicksGetNetworkntsVerdict(Function<EventSchema, Predicate<JsonNode>> fast) {
        agreeOn(CLICKS, fast.apply(CLICKS), clicks(), 1000);
    }

    /**
     * The fast validator and networknt agree on every generated document; both verdicts (valid, invalid) are common
     * among them, so the agreement means something.
     */
    private static void agreeOn(EventSchema schema, Predicate<JsonNode> fast, Gen<String> documents, int tries) {
        int[] verdicts = new int[3]; // valid, invalid, networknt throws
        qt(tries).forAll(documents).checkAssert(json -> {
            for (ObjectMapper mapper :
                    List.of(FastValidatorConformanceTest.DOUBLES, FastValidatorConformanceTest.DECIMALS)) {
                JsonNode document = FastValidatorConformanceTest.read(mapper, json);
                assertThat(disagreement(schema, fast, document)).isNull();
            }
            Boolean verdict = FastValidatorConformanceTest.reference(
                    schema, FastValidatorConformanceTest.read(FastValidatorConformanceTest.DOUBLES, json));
            verdicts[verdict == null ? 2 : verdict ? 0 : 1]++;
        });
        assertThat(100.0 * verdicts[0] / tries).as("%% valid").isGreaterThan(10);
        assertThat(100.0 * verdicts[1] / tries).as("%% invalid").isGreaterThan(10);
    }

    /**
     * As {@link FastValidatorConformanceTest#disagreement}, for any fast validator: a document networknt throws on
     * must be "not valid" to the fast path.
     */
    private static String disagreement(EventSchema schema, Predicate<JsonNode> fast, JsonNode document) {
        Boolean expected = FastValidatorConformanceTest.reference(schema, document);
        boolean actual = fast.test(document);
        if (expected == null ? actual : actual != expected) {
            return schema.name() + " | networknt " + (expected == null ? "throws" : expected) + ", fast " + actual
                    + " | " + document;
        }
        return null;
    }

    static Gen<String> payments() {
        return fromRandom(random -> mutate(payment(random), random));
    }

    static Gen<String> clicks() {
        return fromRandom(random -> mutate(click(random), random));
    }

    // ---------------------------------------------------------------- mutation checks

    /** Each property, run against a deliberately broken fast validator, is falsified. */
    @Nested
    class BrokenValidatorsAreCaught {

        @Test
        void aValidatorThatIgnoresFormats() {
            assertFalsified(() -> mutatedPaymentsGetNetworkntsVerdict(schema -> compiledWithout(schema, "format")));
        }

        @Test
        void aValidatorThatIgnoresAdditionalProperties() {
            assertFalsified(
                    () -> mutatedClicksGetNetworkntsVerdict(schema -> compiledWithout(schema, "additionalProperties")));
        }
    }

    /** The fast validator of the schema without one keyword, as a validator that skips that keyword would be. */
    static Predicate<JsonNode> compiledWithout(EventSchema schema, String keyword) {
        JsonNode document = schema.document().deepCopy();
        document.findParents(keyword).forEach(parent -> ((ObjectNode) parent).remove(keyword));
        return FastValidator.compile(document).orElseThrow()::isValid;
    }

    // ---------------------------------------------------------------- valid events

    static ObjectNode payment(Random random) {
        ObjectNode event = NODES.objectNode();
        event.put("eventId", string(random, ID_CHARS, 8, 64));
        event.put("type", "payments.transaction.v1");
        event.put("source", unicode(random, 1, 128));
        event.put("occurredAt", dateTime(random));
        if (random.nextBoolean()) {
            event.put("ingestedAt", dateTime(random));
        }
        event.put("key", unicode(random, 1, 256));
        ObjectNode payload = event.putObject("payload");
        payload.put("customerId", "cust-" + digits(random, 7));
        payload.put("cardNumber", digits(random, 12 + random.nextInt(8)));
        payload.put("email", email(random));
        payload.put("amount", amount(random));
        payload.put("currency", CURRENCIES[random.nextInt(CURRENCIES.length)]);
        ObjectNode merchant = payload.putObject("merchant");
        merchant.put("id", "m-" + digits(random, 6));
        merchant.put("name", unicode(random, 1, 128));
        merchant.put("category", digits(random, 4));
        payload.put("country", "" + (char) ('A' + random.nextInt(26)) + (char) ('A' + random.nextInt(26)));
        payload.put("channel", CHANNELS[random.nextInt(CHANNELS.length)]);
        return event;
    }

    static ObjectNode click(Random random) {
        ObjectNode event = NODES.objectNode();
        event.put("eventId", string(random, ID_CHARS, 8, 64));
        event.put("type", "clickstream.pageview.v1");
        event.put("source", unicode(random, 1, 128));
        event.put("occurredAt", dateTime(random));
        event.put("key", "s-" + string(random, "0123456789abcdef", 12, 12));
        if (random.nextBoolean()) {
            event.putObject("page").put("category", unicode(random, 0, 20));
        }
        ObjectNode payload = event.putObject("payload");
        payload.put("sessionId", "s-" + string(random, "0123456789abcdef", 12, 12));
        payload.put("visitorId", "v-" + string(random, "0123456789abcdef", 12, 12));
        if (random.nextBoolean()) {
            payload.put("customerEmail", email(random));
        }
        payload.put("ipAddress", random.nextBoolean() ? ipv4(random) : ipv6(random));
        payload.put("userAgent", unicode(random, 0, 512));
        payload.put("pageId", "p-" + digits(random, 6));
        payload.put("url", "/" + unicode(random, 0, 200));
        if (random.nextBoolean()) {
            payload.put("referrer", "/" + unicode(random, 0, 200));
        }
        payload.put("action", ACTIONS[random.nextInt(ACTIONS.length)]);
        if (random.nextBoolean()) {
            payload.put("durationMs", random.nextInt(1_000_000));
        }
        return event;
    }

    private static String dateTime(Random random) {
        int year = 1970 + random.nextInt(100);
        int month = 1 + random.nextInt(12);
        int day = 1 + random.nextInt(28);
        StringBuilder b = new StringBuilder(String.format(
                Locale.ROOT,
                "%04d-%02d-%02dT%02d:%02d:%02d",
                year,
                month,
                day,
                random.nextInt(24),
                random.nextInt(60),
                random.nextInt(60)));
        if (random.nextBoolean()) {
            b.append('.').append(digits(random, 1 + random.nextInt(9)));
        }
        if (random.nextBoolean()) {
            b.append('Z');
        } else {
            b.append(random.nextBoolean() ? '+' : '-')
                    .append(String.format(Locale.ROOT, "%02d:%02d", random.nextInt(15), 15 * random.nextInt(4)));
        }
        return b.toString();
    }

    private static String email(Random random) {
        String local = string(random, ATEXT, 1, 20).replaceAll("\\.+", ".");
        if (local.startsWith(".")) {
            local = "x" + local;
        }
        if (local.endsWith(".")) {
            local = local + "x";
        }
        return local + "@" + string(random, "abcdefghijklmnopqrstuvwxyz0123456789", 1, 12) + "."
                + TLDS[random.nextInt(TLDS.length)];
    }

    private static double amount(Random random) {
        long cents = 1 + (long) (random.nextDouble() * 100_000_000L);
        return BigDecimal.valueOf(cents)
                .movePointLeft(2)
                .setScale(2, RoundingMode.UNNECESSARY)
                .doubleValue();
    }

    private static String ipv4(Random random) {
        return random.nextInt(256) + "." + random.nextInt(256) + "." + random.nextInt(256) + "." + random.nextInt(256);
    }

    private static String ipv6(Random random) {
        List<String> groups = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            groups.add(Integer.toHexString(random.nextInt(0x10000)));
        }
        if (random.nextBoolean()) {
            int from = random.nextInt(8);
            int to = from + 1 + random.nextInt(8 - from);
            String head = String.join(":", groups.subList(0, from));
            String tail = String.join(":", groups.subList(to, 8));
            return head + "::" + tail;
        }
        return String.join(":", groups);
    }

    private static String digits(Random random, int count) {
        return string(random, "0123456789", count, count);
    }

    private static String string(Random random, String alphabet, int min, int max) {
        int length = min + random.nextInt(max - min + 1);
        StringBuilder b = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            b.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return b.toString();
    }

    /** Mostly ASCII, sometimes 2-byte and supplementary characters, measured in code points. */
    private static String unicode(Random random, int min, int max) {
        int length = min + random.nextInt(Math.min(max, 40) - min + 1);
        if (random.nextInt(10) == 0) {
            length = max; // the boundary, in code points
        }
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < length; i++) {
            int kind = random.nextInt(20);
            b.appendCodePoint(kind == 0 ? 0x1F600 + random.nextInt(50) : kind == 1 ? 0xE9 : 'a' + random.nextInt(26));
        }
        return b.toString();
    }

    // ---------------------------------------------------------------- mutations

    private static final String[] TRICKY = {
        "null",
        "true",
        "0",
        "-0.0",
        "1e-9",
        "1e400",
        "-1",
        "1.5",
        "1000000",
        "1000000.00000000001",
        "\"\"",
        "\"x\"",
        "[]",
        "{}",
        "\"2026-02-30T10:00:00Z\"",
        "\"2016-12-31T23:59:60Z\"",
        "\"a@aa.example\"",
        "\"a@b\"",
        "\"::1\"",
        "\"1.2.3.4\\n\"",
        "\"cust-0042137\\n\"",
        "\"EUR\"",
        "\"POS\"",
        "9223372036854775808",
        "4.9E-324"
    };

    static String mutate(ObjectNode event, Random random) {
        int mutations = random.nextInt(3); // 0: the valid event itself
        String json = event.toString();
        for (int i = 0; i < mutations; i++) {
            List<String> paths = new ArrayList<>();
            collectPaths(event, "", paths);
            String path = paths.get(random.nextInt(paths.size()));
            int slash = path.lastIndexOf('/');
            JsonNode parent = slash == 0 ? event : event.at(path.substring(0, slash));
            String name = path.substring(slash + 1);
            if (!(parent instanceof ObjectNode object)) {
                continue;
            }
            JsonNode current = object.get(name);
            switch (random.nextInt(5)) {
                case 0 -> object.remove(name);
                case 1 -> object.put(name, "@@tricky@@");
                case 2 -> object.put(name + (random.nextBoolean() ? "x" : ""), random.nextBoolean() ? "#" : "extra");
                case 3 -> object.put(random.nextBoolean() ? "#" + name : "cvv", random.nextInt(1000));
                default -> {
                    if (current != null && current.isTextual()) {
                        object.put(name, edit(current.textValue(), random));
                    } else if (current != null && current.isNumber()) {
                        object.put(name, "@@number@@");
                    }
                }
            }
            json = event.toString();
            if (json.contains("\"@@tricky@@\"")) {
                json = json.replace("\"@@tricky@@\"", TRICKY[random.nextInt(TRICKY.length)]);
                event = (ObjectNode) FastValidatorConformanceTest.read(FastValidatorConformanceTest.DOUBLES, json);
            }
            if (json.contains("\"@@number@@\"")) {
                json = json.replace("\"@@number@@\"", number(random));
                event = (ObjectNode) FastValidatorConformanceTest.read(FastValidatorConformanceTest.DOUBLES, json);
            }
        }
        return json;
    }

    private static String number(Random random) {
        switch (random.nextInt(5)) {
            case 0:
                return Long.toString(random.nextLong() >> random.nextInt(64));
            case 1:
                return Double.toString((random.nextDouble() - 0.1) * Math.pow(10, random.nextInt(12)));
            case 2:
                return BigDecimal.valueOf(random.nextInt(2_000_001) - 1000)
                        .movePointLeft(random.nextInt(12))
                        .toPlainString();
            case 3:
                return "1000000" + (random.nextBoolean() ? ".0" : ".00000000000000" + random.nextInt(10));
            default:
                return random.nextBoolean() ? "0" : "-0.0";
        }
    }

    private static String edit(String value, Random random) {
        StringBuilder b = new StringBuilder(value);
        int edits = 1 + random.nextInt(2);
        for (int i = 0; i < edits; i++) {
            int at = b.length() == 0 ? 0 : random.nextInt(b.length() + 1);
            String noise = new String(Character.toChars(NOISE.codePointAt(
                    NOISE.offsetByCodePoints(0, random.nextInt(NOISE.codePointCount(0, NOISE.length()))))));
            switch (random.nextInt(3)) {
                case 0 -> b.insert(at, noise);
                case 1 -> {
                    if (at < b.length()) {
                        b.deleteCharAt(at);
                    }
                }
                default -> {
                    if (at < b.length()) {
                        b.replace(at, at + 1, noise);
                    } else {
                        b.append(noise);
                    }
                }
            }
        }
        return b.toString();
    }

    private static void collectPaths(JsonNode node, String prefix, List<String> paths) {
        if (node instanceof ObjectNode object) {
            object.fieldNames().forEachRemaining(name -> {
                paths.add(prefix + "/" + name);
                collectPaths(object.get(name), prefix + "/" + name, paths);
            });
        }
    }
}
