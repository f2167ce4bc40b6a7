package dev.sluice.core.schema;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.core.testing.Events;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A deterministic conformance corpus: valid events of our real schemas mutated one field at a time (missing, wrong
 * type, values just inside and outside every limit, bad formats, pattern and unicode corner cases, additional members),
 * and documents for the inline keyword schemas of {@code src/test/resources/conformance/schemas/}. Each case is JSON
 * text, so that it can be parsed by more than one {@link ObjectMapper} configuration.
 */
final class ConformanceCorpus {

    static final String PAYMENT = "payments.transaction.v1";
    static final String CLICK = "clickstream.pageview.v1";
    static final String KEYWORDS = "conformance.keywords.v1";
    static final String NUMBERS = "conformance.numbers.v1";

    /** One document of the corpus. */
    record Case(String schema, String label, String json) {}

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private ConformanceCorpus() {}

    static List<Case> all() {
        List<Case> cases = new ArrayList<>();
        payments(cases);
        clicks(cases);
        keywords(cases);
        numbers(cases);
        return cases;
    }

    // ---------------------------------------------------------------- value pools

    static final List<String> DATE_TIMES = List.of(
            "2026-11-30T18:42:07.125+01:00",
            "2026-11-30T18:42:07Z",
            "2026-11-30T18:42:07z",
            "2026-11-30t18:42:07Z",
            "2026-11-30 18:42:07Z",
            "2026-11-30T18:42:07",
            "2026-11-30T18:42:07.125",
            "2026-11-30",
            "2026-11-30T18:42Z",
            "2026-11-30T18:42+01:00",
            "2026-02-30T10:00:00Z",
            "2024-02-29T10:00:00Z",
            "2023-02-29T10:00:00Z",
            "2000-02-29T00:00:00Z",
            "1900-02-29T00:00:00Z",
            "2016-12-31T23:59:60Z",
            "2015-06-30T23:59:60Z",
            "2016-12-31T23:59:60+00:00",
            "2017-01-01T00:59:60+01:00",
            "2026-12-31T23:59:60Z",
            "2026-11-30T18:42:60Z",
            "2026-11-30T24:00:00Z",
            "2026-11-30T23:60:00Z",
            "2026-13-01T00:00:00Z",
            "2026-00-10T00:00:00Z",
            "2026-11-00T00:00:00Z",
            "2026-11-31T00:00:00Z",
            "2026-04-30T23:59:59.999999999-12:00",
            "2026-11-30T18:42:07+18:00",
            "2026-11-30T18:42:07-18:00",
            "2026-11-30T18:42:07+18:01",
            "2026-11-30T18:42:07+19:00",
            "2026-11-30T18:42:07+17:59",
            "2026-11-30T18:42:07-00:00",
            "2026-11-30T18:42:07+00:00",
            "2026-11-30T18:42:07+0100",
            "2026-11-30T18:42:07+01",
            "2026-11-30T18:42:07+01:60",
            "2026-11-30T18:42:07+01x00",
            "2026-11-30T18:42:07.123456789Z",
            "2026-11-30T18:42:07.1234567891Z",
            "2026-11-30T18:42:07.Z",
            "2026-11-30T18:42:07,5Z",
            "2026-11-30T18:42:07ZZ",
            "2026-11-30T18:42:07Zjunk",
            "2026-11-30T18:42:07+01:00junk",
            "2026-11-30T18:42:07.5-03:30",
            "0000-01-01T00:00:00Z",
            "9999-12-31T23:59:59Z",
            "+2026-11-30T18:42:07Z",
            "26-11-30T18:42:07Z",
            "2026-1-30T18:42:07Z",
            "２０２６-11-30T18:42:07Z",
            "2026-11-30T18:42:07Z\n",
            "yesterday at noon",
            "");

    static final List<String> EMAILS = List.of(
            "j.devries@example.nl",
            "a@aa.example",
            "a@example.com",
            "A@EXAMPLE.COM",
            "first.last+tag@sub.example.co.uk",
            "a@localhost",
            "a@b",
            "a@b.c",
            "a@b.co",
            "a..b@example.com",
            ".a@example.com",
            "a.@example.com",
            "\"quoted user\"@example.com",
            "a@[127.0.0.1]",
            "a@[IPv6:::1]",
            "a@[300.1.1.1]",
            "jöran@example.com",
            "a@bücher.de",
            "a@xn--bcher-kva.de",
            "a@example.com.",
            "a@-example.com",
            "a@example-.com",
            "a@exa_mple.com",
            "x".repeat(64) + "@example.com",
            "x".repeat(65) + "@example.com",
            "a@@example.com",
            "a@b@example.com",
            "@example.com",
            "a@",
            "not-an-address",
            "a @example.com",
            "a@example.com\n",
            "a@example.museum",
            "a@example.xyz",
            "a@example.zzz",
            "a@123.com",
            "a@example.123",
            "o'brien@example.ie",
            "a!#$%&'*+/=?^_`{|}~-@example.org",
            "a(b)@example.com",
            "a@" + "a".repeat(63) + ".com",
            "a@" + "a".repeat(64) + ".com",
            "a@" + ("a".repeat(60) + ".").repeat(4) + "com",
            "a@" + ("a".repeat(49) + ".").repeat(5) + "com",
            "");

    static final List<String> IPS = List.of(
            "203.0.113.42",
            "0.0.0.0",
            "255.255.255.255",
            "256.0.0.1",
            "01.2.3.4",
            "1.2.3",
            "1.2.3.4.5",
            "1.2.3.4\n",
            " 1.2.3.4",
            "1.2.3.4 ",
            "::1",
            "::",
            "2001:db8::1",
            "2001:DB8:0:0:8:800:200C:417A",
            "1:2:3:4:5:6:7:8",
            "1:2:3:4:5:6:7:8:9",
            "1::2::3",
            "fe80::1%eth0",
            "::ffff:192.0.2.1",
            "2001:db8::g",
            "12345::1",
            "1:2:3:4:5:6:7::",
            "::2:3:4:5:6:7:8",
            ":1:2:3:4:5:6:7:8",
            "1:2:3:4:5:6:7:",
            "localhost",
            "١٢٣.1.1.1",
            "2001:db8::1 ",
            "[::1]",
            "");

    static final List<String> AMOUNTS = List.of(
            "42.95",
            "0",
            "0.0",
            "-0",
            "-0.0",
            "1e-9",
            "0.01",
            "1000000",
            "1000000.0",
            "1000000.00000000001",
            "1000000.01",
            "1e6",
            "1.0000001e6",
            "999999.99",
            "-1",
            "1e400",
            "-1e400",
            "1e-400",
            "4.9E-324",
            "100000000000000000000000",
            "0.000000000000000000000000000001",
            "\"42.95\"",
            "null",
            "true",
            "{}",
            "[]");

    // ---------------------------------------------------------------- payments

    private static void payments(List<Case> cases) {
        ObjectNode base = (ObjectNode) parse(Events.payment().json());
        Mutator m = new Mutator(PAYMENT, base, cases);
        m.same("fixture");
        for (String field : List.of("eventId", "type", "source", "occurredAt", "key", "payload")) {
            m.remove("/" + field);
        }
        for (String field :
                List.of("customerId", "cardNumber", "email", "amount", "currency", "merchant", "country", "channel")) {
            m.remove("/payload/" + field);
        }
        for (String field : List.of("id", "name", "category")) {
            m.remove("/payload/merchant/" + field);
        }
        for (String path : List.of(
                "/eventId",
                "/type",
                "/source",
                "/occurredAt",
                "/ingestedAt",
                "/key",
                "/payload",
                "/payload/customerId",
                "/payload/email",
                "/payload/amount",
                "/payload/currency",
                "/payload/merchant",
                "/payload/merchant/name",
                "/payload/channel")) {
            m.wrongTypes(path);
        }
        m.strings("/eventId", "abcdefgh", "abcdefg", "a".repeat(64), "a".repeat(65), "A_b-9_Z-0", "pay 7f3c2a9e1b");
        m.strings("/eventId", "pay.7f3c2a9e", "pay-7f3c2a9e1b\n", "pay-7f3c2a9e1b\r\n", "pay-7f3c2a9e1b\n\n");
        m.strings("/eventId", "pay-ü7f3c2a9e1b", "pay-7f3c2a9e1b ", "", "ﬀﬀﬀﬀﬀﬀﬀﬀ");
        m.strings("/type", "payments.transaction.v2", "Payments.transaction.v1", "payments.transaction.v1 ");
        m.strings("/source", "", "x", "x".repeat(128), "x".repeat(129), "é".repeat(128), "é".repeat(129));
        m.strings("/source", "😀".repeat(128), "😀".repeat(129), "😀".repeat(64) + "x".repeat(64));
        m.strings("/key", "", "k", "k".repeat(256), "k".repeat(257), "😀".repeat(256), "😀".repeat(257));
        for (String dateTime : DATE_TIMES) {
            m.strings("/occurredAt", dateTime);
            m.strings("/ingestedAt", dateTime);
        }
        m.strings("/payload/customerId", "cust-004213", "cust-00421370", "CUST-0042137", "cust-0042137\n");
        m.strings("/payload/customerId", "cust-0042137\r\n", "cust-0042137\u2028", "cust-0042137\n\n");
        m.strings("/payload/customerId", " cust-0042137", "cust-0042137 ", "cust-004213٧", "cust-００４２１３７");
        m.strings("/payload/cardNumber", "4".repeat(11), "4".repeat(12), "4".repeat(19), "4".repeat(20));
        m.strings("/payload/cardNumber", "4111 1111 1111 1111", "4111-1111-1111-1111");
        m.json("/payload/cardNumber", "4111111111111111");
        for (String email : EMAILS) {
            m.strings("/payload/email", email);
        }
        m.strings("/payload/email", "a@" + "b".repeat(245) + ".com");
        for (String amount : AMOUNTS) {
            m.json("/payload/amount", amount);
        }
        m.strings("/payload/currency", "USD", "JPY", "AUD", "eur", "Eur", "EUR ", "EURO", "", "XXX");
        m.strings("/payload/channel", "POS", "MOTO", "pos", "E-COMMERCE", "ECOMMERCE", "contactless");
        m.strings("/payload/country", "DE", "nl", "NLD", "N", "N1", "ÄB", "NL\n");
        m.strings("/payload/merchant/id", "m-000000", "m-04512", "M-004512", "m-0045120");
        m.strings("/payload/merchant/name", "", "A", "n".repeat(128), "n".repeat(129), "😀".repeat(128));
        m.strings("/payload/merchant/category", "0000", "541", "54111", "541a", "٥٤١١");
        m.json("/extra", "1");
        m.json("/#note", "\"a comment member: networknt skips names starting with #\"");
        m.json("/page", "{}");
        m.json("/payload/cvv", "\"123\"");
        m.json("/payload/#trace", "true");
        m.json("/payload/merchant/mcc", "\"5411\"");
        m.json("/payload/merchant/#x", "1");
        m.root("[]");
        m.root("\"payment\"");
        m.root("null");
        m.root("{}");
    }

    // ---------------------------------------------------------------- clicks

    private static void clicks(List<Case> cases) {
        ObjectNode base = (ObjectNode) parse(Events.click().json());
        Mutator m = new Mutator(CLICK, base, cases);
        m.same("fixture");
        for (String field : List.of("eventId", "type", "source", "occurredAt", "key", "payload")) {
            m.remove("/" + field);
        }
        for (String field : List.of(
                "sessionId",
                "visitorId",
                "pageId",
                "url",
                "action",
                "userAgent",
                "ipAddress",
                "customerEmail",
                "referrer",
                "durationMs")) {
            m.remove("/payload/" + field);
        }
        for (String path : List.of(
                "/payload/ipAddress",
                "/payload/customerEmail",
                "/payload/durationMs",
                "/payload/url",
                "/payload/action",
                "/page")) {
            m.wrongTypes(path);
        }
        for (String ip : IPS) {
            m.strings("/payload/ipAddress", ip);
        }
        for (String email : EMAILS) {
            m.strings("/payload/customerEmail", email);
        }
        m.strings("/payload/sessionId", "s-000000000000", "s-3FA85F6457A1", "s-3fa85f6457a", "s-3fa85f6457a1\n");
        m.strings("/payload/visitorId", "v-abcdefabcdef", "v-abcdefabcdeg", "v-abcdefabcdef0");
        m.strings("/payload/pageId", "p-000000", "p-00421", "p-0042111");
        m.strings("/payload/url", "", "/", "u".repeat(2048), "u".repeat(2049), "😀".repeat(2048));
        m.strings("/payload/referrer", "", "r".repeat(2048), "r".repeat(2049));
        m.strings("/payload/userAgent", "", "a".repeat(512), "a".repeat(513), "😀".repeat(512), "😀".repeat(513));
        m.strings("/payload/action", "checkout", "add_to_basket", "View", "add-to-basket", "purchase");
        for (String value : List.of(
                "0",
                "-1",
                "5230",
                "1.0",
                "1.5",
                "1e2",
                "-0.0",
                "\"5\"",
                "9223372036854775807",
                "9223372036854775808",
                "-9223372036854775809",
                "1e400",
                "-1e-400",
                "-1e400")) {
            m.json("/payload/durationMs", value);
        }
        for (String page : List.of("{}", "{\"category\":\"coffee\",\"title\":\"Espresso\"}", "[]", "\"x\"", "null")) {
            m.json("/page", page);
        }
        m.strings("/type", "payments.transaction.v1", "clickstream.pageview.v2");
        m.json("/payload/extra", "1");
        m.json("/payload/#extra", "1");
        m.json("/utm", "\"x\"");
    }

    // ---------------------------------------------------------------- inline keyword schemas

    private static void keywords(List<Case> cases) {
        ObjectNode base = (ObjectNode) parse("{\"id\":\"3fa85f64-5717-4562-b3fc-2c963f66afa6\"}");
        Mutator m = new Mutator(KEYWORDS, base, cases);
        m.same("minimal");
        m.remove("/id");
        m.strings("/id", "3FA85F64-5717-4562-B3FC-2C963F66AFA6", "3fa85f64-5717-4562-b3fc-2c963f66afa", "");
        m.strings("/id", "3fa85f64-5717-4562-b3fc-2c963f66afag", "3fa85f6405717-4562-b3fc-2c963f66afa6");
        m.strings("/id", "{3fa85f64-5717-4562-b3fc-2c963f66afa6}", "3fa85f64-5717-4562-b3fc-2c963f66afa6\n");
        m.strings("/id", "3fa85f6457174562b3fc2c963f66afa6", "３fa85f64-5717-4562-b3fc-2c963f66afa6");
        for (String day : List.of(
                "2026-11-30",
                "2024-02-29",
                "2023-02-29",
                "2026-02-30",
                "2026-13-01",
                "0000-01-01",
                "9999-12-31",
                "10000-01-01",
                "+2026-11-30",
                "2026-11-30Z",
                "2026-11-30T00:00:00Z",
                "2026-1-1",
                "20261130",
                "2026-11-30\n")) {
            m.strings("/day", day);
        }
        for (String ip : IPS) {
            m.strings("/ip4", ip);
            m.strings("/ip6", ip);
        }
        m.json("/ip6", "42");
        values(m, "/count", "1", "10", "0", "11", "1.0", "10.0", "10.5", "0.5", "1e19", "-1e19");
        values(m, "/count", "9223372036854775807", "9223372036854775808", "-9223372036854775809", "\"5\"", "5");
        values(m, "/ratio", "0.1", "0.10000000000000001", "0.2", "0.3", "0.29999999999999999");
        values(m, "/ratio", "0.30000000000000004", "0.1000000000000001", "1e-1", "3e-1", "0", "1", "-0.0");
        values(m, "/price", "0.01", "0.015", "1.1", "-1.5", "-1.51", "100", "1e-2", "19.99", "0.1", "0.3", "0");
        values(m, "/step", "0", "5", "100", "95", "7", "5.0", "5.5", "-5", "1e2", "-10000000", "-99999995");
        values(m, "/big", "10000000", "123456789012345", "123456789012346", "9007199254740995", "1e20");
        values(m, "/big", "12.5", "2.5e1", "-0.0", "9999995", "9999999", "1e-30", "5e-324");
        values(m, "/level", "1", "1.0", "1.00", "2.5", "2.50", "\"three\"", "\"Three\"", "null", "true", "false");
        values(m, "/level", "[1,2]", "[1.0,2]", "[2,1]", "{\"a\":1}", "{\"a\":1.0}", "\"1\"", "{}");
        values(m, "/version", "2", "2.0", "2.00", "\"2\"", "3", "[2]");
        values(m, "/flag", "{\"on\":true}", "{\"on\":false}", "{\"on\":true,\"x\":1}", "true", "{\"on\":1}");
        values(m, "/tags", "[\"ab\"]", "[]", "[\"ab\",\"cd\",\"ef\"]", "[\"ab\",\"cd\",\"ef\",\"gh\"]", "[\"a\"]");
        values(
                m,
                "/tags",
                "[\"abcde\"]",
                "[\"😀😀\"]",
                "[\"😀😀😀😀\"]",
                "[\"😀😀😀😀😀\"]",
                "[\"😀\"]",
                "[1]",
                "\"ab\"");
        values(m, "/nothing", "[]", "[1]", "{}", "[null]");
        values(m, "/anything", "1", "\"x\"", "null");
        values(m, "/never", "1", "null", "{}");
        values(m, "/maybe", "\"x\"", "null", "1", "false");
        values(m, "/choice", "3", "7", "5.5", "4.5", "7.0", "\"x\"");
        values(m, "/either", "\"abc\"", "\"bac\"", "\"a\"", "5", "5.5", "5.0", "null");
        values(m, "/both", "\"ab1\"", "\"ab\"", "\"abc\"", "123", "\"😀😀1\"", "\"1\"");
        values(m, "/notString", "1", "\"x\"", "null", "[]");
        values(m, "/attrs", "{\"a\":1}", "{}", "{\"a\":1,\"b\":2}", "{\"a\":1,\"b\":2,\"c\":3}", "{\"a\":\"x\"}");
        values(m, "/attrs", "{\"#a\":\"x\"}", "{\"a\":1.0}", "{\"a\":1.5}", "[]", "{\"a\":null}");
        values(m, "/code", "\"ab\"", "\"abcd\"", "\"abc\"", "\"\"", "\"ab\\n\"", "\"cdab\"");
        values(m, "/word", "\"abc-12\"", "\"a_b-123\"", "\"abc-1\"", "\"-12\"", "\"äbc-12\"", "\"abc-12\\n\"");
        values(m, "/word", "\"abc-١٢\"", "\"abc-12 \"", "\"ABC_9-00\"");
        values(m, "/free", "\"xy\"", "\"axxyb\"", "\"yx\"", "\"\"", "\"x\\ny\"");
        values(m, "/slug", "\"a\"", "\"ab\"", "\"a-b.c\"", "\"a-\"", "\"-a\"", "\"a..b\"", "\"a-b-c-d-e-f-g\"");
        values(m, "/slug", "\"ab\\n\"", "\"" + "a-".repeat(40) + "\"", "\"" + "a-".repeat(40) + "b\"");
        m.json("/unknown", "1");
        m.json("/#x", "1");
        m.root("[]");
        m.root("\"x\"");
        m.root("1");
        m.root("null");
        m.root("{}");
        m.root("{\"id\":\"3fa85f64-5717-4562-b3fc-2c963f66afa6\",\"count\":3,\"tags\":[\"ab\"],\"choice\":3,"
                + "\"attrs\":{\"a\":1},\"level\":[1,2],\"version\":2.0,\"flag\":{\"on\":true}}");
        m.root("{\"id\":\"3fa85f64-5717-4562-b3fc-2c963f66afa6\",\"count\":3,\"tags\":[\"ab\"],\"choice\":7}");
    }

    private static void numbers(List<Case> cases) {
        ObjectNode base = (ObjectNode) parse("{}");
        Mutator m = new Mutator(NUMBERS, base, cases);
        m.same("empty");
        values(m, "/tiny", "1e-9", "1.0e-9", "9.99999999e-10", "1.0000000001e-9", "0", "1e-10", "0.000000001");
        values(m, "/tiny", "0.0000000009999999999999999999", "\"1\"");
        values(m, "/tenth", "0.1", "0.10000000000000001", "0.1000000000000001", "0.09999999999999999", "1e-1");
        values(m, "/tenth", "0.2", "-1e400", "1e400");
        values(m, "/huge", "9223372036854775807", "9223372036854775808", "-9223372036854775808");
        values(m, "/huge", "-9223372036854775809", "9.3e18", "null", "1.5", "1e400");
        values(m, "/bigMax", "100000000000000000000", "100000000000000000001", "1e20", "1.0000000000000001e20");
        values(m, "/bigMax", "1e21", "99999999999999999999.5");
        values(m, "/intMax", "9.3e18", "1e19", "9223372036854775808", "9223372036854775807", "1");
        values(m, "/nonNeg", "0", "-0", "-0.0", "-1", "-1e-400", "0.0", "1e400", "-1e400");
        values(m, "/zeroX", "0", "-0.0", "1e-400", "4.9E-324", "\"1\"", "-1", "1", "1e400", "-1e400", "null");
        values(m, "/halfMax", "0.5", "0.49999999999999994", "0.5000000000000001", "-0.5", "-0.5000000000000001");
        values(m, "/halfMax", "true", "0.4999999999999999999999", "-0.50");
        m.root("[1]");
    }

    private static void values(Mutator m, String path, String... json) {
        for (String value : json) {
            m.json(path, value);
        }
    }

    // ---------------------------------------------------------------- plumbing

    static JsonNode parse(String json) {
        try {
            return MAPPER.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(json, e);
        }
    }

    /** Copies of one base document with one change each, appended to the corpus. */
    private static final class Mutator {
        private static final Map<String, String> WRONG_TYPES = Map.of(
                "number", "42",
                "decimal", "4.2",
                "boolean", "false",
                "null", "null",
                "object", "{\"a\":\"b\"}",
                "array", "[\"x\"]",
                "string", "\"x\"");

        private final String schema;
        private final ObjectNode base;
        private final List<Case> cases;

        Mutator(String schema, ObjectNode base, List<Case> cases) {
            this.schema = schema;
            this.base = base;
            this.cases = cases;
        }

        void same(String label) {
            add(label, base);
        }

        void root(String json) {
            cases.add(new Case(schema, "document " + json, json));
        }

        void remove(String path) {
            ObjectNode copy = base.deepCopy();
            parent(copy, path).remove(last(path));
            add("without " + path, copy);
        }

        void wrongTypes(String path) {
            WRONG_TYPES.entrySet().stream()
                    .sorted(Map.Entry.comparingByKey())
                    .forEach(type -> json(path, type.getValue()));
        }

        void strings(String path, String... values) {
            for (String value : values) {
                ObjectNode copy = base.deepCopy();
                parent(copy, path).put(last(path), value);
                add(path + " = " + MAPPER.getNodeFactory().textNode(value), copy);
            }
        }

        void json(String path, String value) {
            String marker = "\"@@value@@\"";
            ObjectNode copy = base.deepCopy();
            parent(copy, path).put(last(path), "@@value@@");
            String text = copy.toString().replace(marker, value);
            cases.add(new Case(schema, path + " = " + value, text));
        }

        private void add(String label, JsonNode document) {
            cases.add(new Case(schema, label, document.toString()));
        }

        private static ObjectNode parent(ObjectNode root, String path) {
            int slash = path.lastIndexOf('/');
            JsonNode parent = slash == 0 ? root : root.at(path.substring(0, slash));
            if (!parent.isObject()) {
                throw new IllegalArgumentException("no object at " + path);
            }
            return (ObjectNode) parent;
        }

        private static String last(String path) {
            return path.substring(path.lastIndexOf('/') + 1);
        }
    }
}
