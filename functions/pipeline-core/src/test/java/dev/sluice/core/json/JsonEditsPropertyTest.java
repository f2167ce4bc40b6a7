package dev.sluice.core.json;

import static dev.sluice.core.testing.Theories.assertFalsified;
import static dev.sluice.core.testing.Theories.fromRandom;
import static dev.sluice.core.testing.Theories.qt;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.sluice.core.stage.RecordParser;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * Splicing edits into a record's bytes gives the same JSON as serialising the edited tree: for
 * generated objects (nested objects and arrays, escapes, non-ASCII text, numbers, white space, a
 * {@code ingestedAt} already present or not), a random subset of their strings replaced by random
 * text, and the {@code ingestedAt} stamp. {@link #aBrokenEditorIsCaught} runs the property with an
 * editor that cuts one byte too few, {@link #anEditorThatWritesQuotesAsThemselvesIsCaught} with one
 * whose short cut for plain ASCII replacements takes a quote for plain; it must falsify both.
 */
class JsonEditsPropertyTest {

    private static final ObjectMapper MAPPER =
            new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
    private static final RecordParser PARSER = new RecordParser(MAPPER, null);
    private static final String STAMP = "2026-12-01T22:00:00.123Z";

    /** A generated record and the seed of the edits made to it. */
    record Case(String json, long edits) {}

    static Gen<Case> cases() {
        return fromRandom(random -> {
            StringBuilder json = new StringBuilder();
            object(random, json, 0, random.nextBoolean());
            return new Case(json.toString(), random.nextLong());
        });
    }

    @Test
    void splicedBytesAreTheEditedTree() {
        splicedBytesAreTheEditedTree(JsonEdits::new);
    }

    /** Broken: each replaced token loses one byte too few (its closing quote stays). */
    @Test
    void aBrokenEditorIsCaught() {
        assertFalsified(() -> splicedBytesAreTheEditedTree(() -> new JsonEdits() {
            @Override
            int end(int i) {
                int end = super.end(i);
                return end > 0 ? end - 1 : end;
            }
        }));
    }

    /** Broken: replacement values are written byte for byte, a quote included (not escaped). */
    @Test
    void anEditorThatWritesQuotesAsThemselvesIsCaught() {
        assertFalsified(() -> splicedBytesAreTheEditedTree(() -> new JsonEdits() {
            @Override
            boolean plain(char c) {
                return c >= 0x20 && c < 0x7f && c != '\\';
            }
        }));
    }

    /** A line break finder under test: offset of the first LF or CR in {@code data[from..to)}, or -1. */
    @FunctionalInterface
    interface LineBreaks {
        int find(byte[] data, int from, int to);
    }

    @Test
    void theFirstLineBreakIsFoundEightBytesAtATime() {
        theFirstLineBreakIsFound(JsonEdits::lineBreak);
    }

    /** Broken: the last byte of the range is never looked at, or the first eight bytes are skipped. */
    @Test
    void aLineBreakFinderThatSkipsBytesIsCaught() {
        assertFalsified(() -> theFirstLineBreakIsFound((data, from, to) -> JsonEdits.lineBreak(data, from, to - 1)));
        assertFalsified(() -> theFirstLineBreakIsFound(
                (data, from, to) -> JsonEdits.lineBreak(data, Math.min(from + Long.BYTES, to), to)));
    }

    /** Bytes and a range of them. */
    record Range(byte[] data, int from, int to) {
        @Override
        public String toString() {
            return Arrays.toString(data) + " [" + from + ", " + to + ")";
        }
    }

    static void theFirstLineBreakIsFound(LineBreaks finder) {
        byte[] others = {'a', ' ', '"', '\\', 0x0b, 0x0c, (byte) 0x8a, (byte) 0x8d, (byte) 0xe2, 0};
        qt(3_000)
                .forAll(fromRandom(random -> {
                    byte[] data = new byte[random.nextInt(40)];
                    int density = random.nextInt(4) == 0 ? Integer.MAX_VALUE : 1 + random.nextInt(30);
                    for (int i = 0; i < data.length; i++) {
                        data[i] = random.nextInt(density) == 0
                                ? (byte) (random.nextBoolean() ? '\n' : '\r')
                                : others[random.nextInt(others.length)];
                    }
                    int from = data.length == 0 ? 0 : random.nextInt(data.length);
                    return new Range(data, from, from + random.nextInt(data.length - from + 1));
                }))
                .checkAssert(range -> {
                    int expected = -1;
                    for (int i = range.from(); i < range.to() && expected < 0; i++) {
                        if (range.data()[i] == '\n' || range.data()[i] == '\r') {
                            expected = i;
                        }
                    }
                    assertThat(finder.find(range.data(), range.from(), range.to()))
                            .as("%s", range)
                            .isEqualTo(expected);
                });
    }

    @Test
    void aRecordOnSeveralLinesIsNotSpliced() throws Exception {
        byte[] data = "{\"a\": \"x\",\n \"b\": 1}".getBytes(StandardCharsets.UTF_8);
        ObjectNode tree = PARSER.parse(data);
        JsonEdits edits = new JsonEdits();
        edits.stamp(data, tree.get("ingestedAt"), tree.size(), new JsonEdits.Stamp("ingestedAt", STAMP));

        assertThat(edits.apply(data)).isNull();
    }

    @Test
    void aByteOrderMarkIsLeftOutAndTheOffsetsStillHold() throws Exception {
        byte[] text = " {\"a\": \"secret\", \"b\": [1, \"x\"]} ".getBytes(StandardCharsets.UTF_8);
        byte[] data = new byte[text.length + 3];
        data[0] = (byte) 0xef;
        data[1] = (byte) 0xbb;
        data[2] = (byte) 0xbf;
        System.arraycopy(text, 0, data, 3, text.length);
        ObjectNode tree = PARSER.parse(data);
        JsonEdits edits = new JsonEdits();
        edits.replace(tree.get("a"), "***");
        tree.put("a", "***");
        edits.stamp(data, tree.get("ingestedAt"), tree.size(), new JsonEdits.Stamp("ingestedAt", STAMP));

        assertThat(new String(edits.apply(data), StandardCharsets.UTF_8))
                .isEqualTo("{\"a\": \"***\", \"b\": [1, \"x\"],\"ingestedAt\":\"" + STAMP + "\"}");
    }

    @Test
    void aValueThatWasNotLocatedMakesTheEditsNotIntact() throws Exception {
        byte[] data = "{\"a\": 12}".getBytes(StandardCharsets.UTF_8);
        ObjectNode tree = PARSER.parse(data);
        JsonEdits edits = new JsonEdits();
        edits.replace(tree.get("a"), "masked");

        assertThat(edits.intact()).isFalse();
        assertThat(edits.apply(data)).isNull();
    }

    static void splicedBytesAreTheEditedTree(Supplier<JsonEdits> editors) {
        qt(300).forAll(cases()).checkAssert(c -> {
            byte[] data = c.json().getBytes(StandardCharsets.UTF_8);
            ObjectNode tree;
            try {
                tree = PARSER.parse(data);
            } catch (RecordParser.MalformedRecordException e) {
                throw new AssertionError("generated JSON does not parse: " + c.json(), e);
            }
            JsonEdits edits = editors.get();
            edit(tree, new Random(c.edits()), edits);
            edits.stamp(data, tree.get("ingestedAt"), tree.size(), new JsonEdits.Stamp("ingestedAt", STAMP));
            tree.put("ingestedAt", STAMP);

            byte[] spliced = edits.apply(data);

            assertThat(spliced).as("spliced bytes of %s", c.json()).isNotNull();
            String text = new String(spliced, StandardCharsets.UTF_8);
            JsonNode reread;
            try {
                reread = MAPPER.readTree(spliced);
            } catch (Exception e) {
                throw new AssertionError("spliced bytes are not JSON: " + text, e);
            }
            assertThat(reread).as("spliced %s", text).isEqualTo(tree);
        });
    }

    /**
     * Replaces about half of the located strings of the tree, recording each replacement; not an
     * {@code ingestedAt} (the stamp's own edit; a chain's mask never touches it).
     */
    private static void edit(JsonNode node, Random random, JsonEdits edits) {
        if (node instanceof ObjectNode object) {
            List<String> names = new ArrayList<>();
            object.fieldNames().forEachRemaining(names::add);
            for (String name : names) {
                JsonNode value = object.get(name);
                if (value instanceof LocatedTextNode && random.nextBoolean() && !"ingestedAt".equals(name)) {
                    String replacement = text(random);
                    edits.replace(value, replacement);
                    object.set(name, TextNode.valueOf(replacement));
                } else {
                    edit(value, random, edits);
                }
            }
        } else if (node instanceof ArrayNode array) {
            for (int i = 0; i < array.size(); i++) {
                JsonNode value = array.get(i);
                if (value instanceof LocatedTextNode && random.nextBoolean()) {
                    String replacement = text(random);
                    edits.replace(value, replacement);
                    array.set(i, TextNode.valueOf(replacement));
                } else {
                    edit(value, random, edits);
                }
            }
        }
    }

    // ------------------------------------------------------------------ generated JSON text

    private static final String[] NAMES = {"a", "b", "email", "card", "payload", "x y", "é", "ingestedAt"};

    private static void object(Random random, StringBuilder json, int depth, boolean withIngestedAt) {
        space(random, json);
        json.append('{');
        List<String> names = new ArrayList<>(List.of(NAMES));
        if (depth == 0 && !withIngestedAt) {
            names.remove("ingestedAt");
        }
        int members = random.nextInt(depth == 0 ? 6 : 4);
        for (int i = 0; i < members && !names.isEmpty(); i++) {
            if (i > 0) {
                json.append(',');
            }
            space(random, json);
            String name = names.remove(random.nextInt(names.size()));
            json.append('"').append(name).append('"');
            space(random, json);
            json.append(':');
            if (depth == 0 && name.equals("ingestedAt")) {
                space(random, json);
                string(random, json); // a stamp the producer set: replaced in place
            } else {
                value(random, json, depth);
            }
        }
        space(random, json);
        json.append('}');
        space(random, json);
    }

    private static void value(Random random, StringBuilder json, int depth) {
        space(random, json);
        int kind = random.nextInt(depth < 3 ? 8 : 6);
        switch (kind) {
            case 0, 1, 2 -> string(random, json);
            case 3 -> json.append(random.nextBoolean() ? random.nextInt() : random.nextInt(100000) / 100.0);
            case 4 -> json.append(random.nextBoolean() ? "true" : "null");
            case 5 -> json.append(random.nextBoolean() ? "-0.50" : "1e3");
            case 6 -> object(random, json, depth + 1, true);
            default -> {
                json.append('[');
                int n = random.nextInt(4);
                for (int i = 0; i < n; i++) {
                    if (i > 0) {
                        json.append(',');
                    }
                    value(random, json, depth + 1);
                }
                json.append(']');
            }
        }
        space(random, json);
    }

    private static final String[] PIECES = {
        "a", "Z", "9", " ", "é", "€", "😀", "\\\"", "\\\\", "\\/", "\\n", "\\u00e9", "\\ud83d\\ude00"
    };

    private static void string(Random random, StringBuilder json) {
        json.append('"');
        int n = random.nextInt(8);
        for (int i = 0; i < n; i++) {
            json.append(PIECES[random.nextInt(PIECES.length)]);
        }
        json.append('"');
    }

    /** Replacement text, raw (the editor escapes it): quotes, backslashes, controls, non-ASCII. */
    private static String text(Random random) {
        String[] pieces = {"x", "***", "1234", "\"", "\\", "\n", "\u0001", "é", "😀", "tok_"};
        StringBuilder b = new StringBuilder();
        int n = random.nextInt(6);
        for (int i = 0; i < n; i++) {
            b.append(pieces[random.nextInt(pieces.length)]);
        }
        return b.toString();
    }

    private static void space(Random random, StringBuilder json) {
        if (random.nextInt(4) == 0) {
            json.append(random.nextBoolean() ? " " : "\t ");
        }
    }
}
