package dev.sluice.core.stage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.core.event.DeadLetter;
import dev.sluice.core.event.InboundRecord;
import dev.sluice.core.event.ProcessedEvent;
import dev.sluice.core.event.ReasonCode;
import dev.sluice.core.testing.Events;
import dev.sluice.core.testing.MemoryAggregates;
import dev.sluice.core.testing.MemoryDeadLetters;
import dev.sluice.core.testing.MemorySink;
import dev.sluice.core.testing.Records;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * Fuzzes the record parser. Every input is either accepted with one canonical reading (its
 * re-serialisation is the same text in every sink: UTF-8 without loss, read back equal) or refused
 * as malformed with a one-line reason; nothing else ever escapes. Known-bad shapes (a second
 * document, trailing bytes, a duplicate member, an unpaired surrogate, bytes that are not UTF-8,
 * UTF-16/32) are always refused. Deliberately broken parsers — one that ignores trailing tokens, one
 * that keeps the last of duplicate members, plain {@code ObjectMapper.readTree} — must fail these
 * properties.
 */
class RecordParserPropertyTest {

    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .build();
    private static final ObjectMapper ESCAPING = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(JsonWriteFeature.ESCAPE_NON_ASCII)
            .build();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    /** A record parser under test. */
    @FunctionalInterface
    interface Parser {
        ObjectNode parse(byte[] data) throws RecordParser.MalformedRecordException;
    }

    private static final Parser REAL = new RecordParser(MAPPER)::parse;

    /** Shrink a real falsification to a small example; a mutant only has to be caught. */
    private static final int SHRINK = 100_000;

    // ------------------------------------------------------------------ generators

    /** A Unicode scalar value: ASCII, characters JSON must escape, 2-, 3- and 4-byte UTF-8. */
    static Gen<Integer> scalarValues() {
        return Generate.frequency(
                org.quicktheories.api.Pair.of(6, integers().between(0x20, 0x7e)),
                org.quicktheories.api.Pair.of(1, integers().between(0x00, 0x1f)),
                org.quicktheories.api.Pair.of(1, Generate.pick(List.of((int) '"', (int) '\\', (int) '/'))),
                org.quicktheories.api.Pair.of(2, integers().between(0x80, 0x7ff)),
                org.quicktheories.api.Pair.of(
                        2, integers().between(0x800, 0xfffd).map(c -> c >= 0xd800 && c <= 0xdfff ? c - 0x800 : c)),
                org.quicktheories.api.Pair.of(2, integers().between(0x10000, 0x10ffff)));
    }

    static Gen<String> texts(int maxCodePoints) {
        return lists().of(scalarValues()).ofSizeBetween(0, maxCodePoints).map(cps -> {
            StringBuilder s = new StringBuilder();
            cps.forEach(s::appendCodePoint);
            return s.toString();
        });
    }

    /** Decimals as the JSON tree holds them: Jackson strips trailing zeros, so every sink writes 42.5 for 42.50. */
    static Gen<JsonNode> scalars() {
        return Generate.oneOf(
                texts(12).map(t -> (JsonNode) NODES.textNode(t)),
                integers().all().map(i -> (JsonNode) NODES.numberNode(i)),
                integers().all().zip(integers().between(1, 6), (u, s) ->
                        (JsonNode) NODES.numberNode(BigDecimal.valueOf(u, s).stripTrailingZeros())),
                Generate.booleans().map(b -> (JsonNode) NODES.booleanNode(b)),
                Generate.constant((JsonNode) NODES.nullNode()));
    }

    static Gen<JsonNode> values(int depth) {
        if (depth == 0) {
            return scalars();
        }
        return Generate.frequency(
                org.quicktheories.api.Pair.of(4, scalars()),
                org.quicktheories.api.Pair.of(1, objects(depth - 1, 0).map(o -> (JsonNode) o)),
                org.quicktheories.api.Pair.of(
                        1, lists().of(values(depth - 1)).ofSizeBetween(0, 3).map(items -> {
                            ArrayNode array = NODES.arrayNode();
                            items.forEach(array::add);
                            return (JsonNode) array;
                        })));
    }

    /** Objects with distinct member names (any Unicode, including empty and escaped ones). */
    static Gen<ObjectNode> objects(int depth, int minMembers) {
        return lists().of(texts(6).zip(values(depth), Map::entry))
                .ofSizeBetween(minMembers, 5)
                .map(members -> {
                    ObjectNode object = NODES.objectNode();
                    members.forEach(m -> object.set(m.getKey(), m.getValue()));
                    return object;
                });
    }

    /** A well-formed record: a non-empty object, raw UTF-8 or with every non-ASCII escaped, maybe indented. */
    static Gen<Sample> samples() {
        return objects(2, 1).zip(integers().between(0, 3), (object, style) -> new Sample(object, write(object, style)));
    }

    record Sample(ObjectNode object, byte[] bytes) {
        @Override
        public String toString() {
            return new String(bytes, StandardCharsets.UTF_8) + " " + Arrays.toString(bytes);
        }
    }

    private static byte[] write(ObjectNode object, int style) {
        try {
            ObjectMapper mapper = (style & 1) == 0 ? MAPPER : ESCAPING;
            return (style & 2) == 0
                    ? mapper.writeValueAsBytes(object)
                    : mapper.writerWithDefaultPrettyPrinter().writeValueAsBytes(object);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A way to make a well-formed record malformed; every one must be refused. */
    enum Breakage {
        SECOND_DOCUMENT,
        TRAILING_TOKEN,
        TRAILING_NULS,
        DUPLICATE_MEMBER,
        DUPLICATE_MEMBER_NESTED,
        UNPAIRED_SURROGATE_ESCAPE,
        UNPAIRED_SURROGATE_ESCAPE_IN_NAME,
        INVALID_UTF8,
        UTF16,
        UTF32,
        NOT_AN_OBJECT
    }

    private static final List<String> TRAILING = List.of("x", "]", "}", "0", "\"a\"", "{}", "[]", "null", ",", ":");
    private static final List<byte[]> NOT_UTF8 = List.of(
            new byte[] {(byte) 0xc0, (byte) 0x80}, // overlong NUL
            new byte[] {(byte) 0xe0, (byte) 0x80, (byte) 0xa2}, // overlong quote
            new byte[] {(byte) 0xed, (byte) 0xa0, (byte) 0x80}, // encoded surrogate
            new byte[] {(byte) 0xf4, (byte) 0x90, (byte) 0x80, (byte) 0x80}, // above U+10FFFF
            new byte[] {(byte) 0xff},
            new byte[] {(byte) 0x80},
            new byte[] {(byte) 0xe2, (byte) 0x82},
            new byte[] {(byte) 0xe9}); // Latin-1 e-acute

    static Gen<byte[]> broken() {
        return samples()
                .zip(
                        Generate.enumValues(Breakage.class),
                        integers().between(0, 1 << 20),
                        RecordParserPropertyTest::breakIt);
    }

    static byte[] breakIt(Sample sample, Breakage breakage, int choice) {
        byte[] s = sample.bytes();
        String firstName = sample.object().fieldNames().next();
        switch (breakage) {
            case SECOND_DOCUMENT:
                return concat(s, choice % 2 == 0 ? "\n" : "", s);
            case TRAILING_TOKEN:
                return concat(s, choice % 2 == 0 ? " " : "", TRAILING.get(choice % TRAILING.size()));
            case TRAILING_NULS:
                return concat(s, new byte[1 + choice % 8]);
            case DUPLICATE_MEMBER:
                // the first member again, first: the old parser kept the last one silently
                return insertAfterBrace(s, quote(firstName) + ":null,");
            case DUPLICATE_MEMBER_NESTED:
                return insertAfterBrace(s, "\"n\":{\"a\":1,\"a\":2},");
            case UNPAIRED_SURROGATE_ESCAPE:
                return insertAfterBrace(s, "\"" + "\u00e9".repeat(choice % 3) + "\":\"" + unpaired(choice) + "\",");
            case UNPAIRED_SURROGATE_ESCAPE_IN_NAME:
                return insertAfterBrace(s, "\"" + unpaired(choice) + "\":1,");
            case INVALID_UTF8:
                return insertAfterBrace(
                        s, concat(bytes("\"\u00e9\":\"a"), NOT_UTF8.get(choice % NOT_UTF8.size()), bytes("b\",")));
            case UTF16:
                return new String(s, StandardCharsets.UTF_8)
                        .getBytes(choice % 2 == 0 ? StandardCharsets.UTF_16BE : StandardCharsets.UTF_16LE);
            case UTF32:
                return new String(s, StandardCharsets.UTF_8).getBytes(Charset.forName("UTF-32LE"));
            default:
                return concat("[", s, "]");
        }
    }

    /** An unpaired surrogate as a JSON escape: a low one alone, or a high one not followed by a low one. */
    private static String unpaired(int choice) {
        int surrogate = 0xd800 + choice % 0x800;
        String escape = String.format(choice % 2 == 0 ? "\\u%04x" : "\\u%04X", surrogate);
        return surrogate >= 0xdc00 ? "a" + escape : escape + (choice % 3 == 0 ? "" : "z");
    }

    /** Any bytes: random, or a well-formed record with one byte changed, inserted or removed, or cut short. */
    static Gen<byte[]> anyBytes() {
        Gen<byte[]> random =
                Generate.byteArrays(integers().between(0, 40), Generate.bytes((byte) -128, (byte) 127, (byte) 0));
        Gen<byte[]> corrupted = samples()
                .zip(
                        integers().between(0, 5),
                        integers().between(0, 1 << 20),
                        integers().between(-128, 127),
                        (sample, how, at, value) -> {
                            byte[] s = sample.bytes();
                            int i = at % s.length;
                            ByteArrayOutputStream out = new ByteArrayOutputStream();
                            switch (how) {
                                case 0 -> {
                                    byte[] copy = s.clone();
                                    copy[i] = (byte) (int) value;
                                    return copy;
                                }
                                case 1 -> {
                                    out.write(s, 0, i);
                                    out.write(value);
                                    out.write(s, i, s.length - i);
                                    return out.toByteArray();
                                }
                                case 2 -> {
                                    out.write(s, 0, i);
                                    out.write(s, i + 1, s.length - i - 1);
                                    return out.toByteArray();
                                }
                                case 3 -> {
                                    return Arrays.copyOf(s, i);
                                }
                                case 4 -> {
                                    return concat(s, new byte[] {(byte) (int) value});
                                }
                                default -> {
                                    return concat(s, Arrays.copyOf(s, i));
                                }
                            }
                        });
        return Generate.frequency(
                org.quicktheories.api.Pair.of(1, random), org.quicktheories.api.Pair.of(3, corrupted));
    }

    // ------------------------------------------------------------------ properties

    /** A well-formed record is read as exactly the object it was written from. */
    static void wellFormedRecordsAreReadAsWritten(Parser parser, int shrinkCycles) {
        qt().withShrinkCycles(shrinkCycles)
                .withFixedSeed(20261201L)
                .withExamples(800)
                .forAll(samples())
                .checkAssert(sample -> {
                    ObjectNode read = parse(parser, sample.bytes());
                    assertThat(canonical(read)).isEqualTo(canonical(sample.object()));
                    assertCanonical(read);
                });
    }

    /** A well-formed record made malformed in any of the known ways is refused as a whole. */
    static void brokenRecordsAreRefusedAsAWhole(Parser parser, int shrinkCycles) {
        qt().withShrinkCycles(shrinkCycles)
                .withFixedSeed(20261202L)
                .withExamples(1000)
                .forAll(broken().describedAs(RecordParserPropertyTest::describe))
                .checkAssert(bytes -> {
                    try {
                        ObjectNode read = parser.parse(bytes);
                        fail("accepted as " + read);
                    } catch (RecordParser.MalformedRecordException e) {
                        assertOneLine(e.getMessage());
                    }
                });
    }

    /**
     * Any bytes at all: accepted with one canonical reading that is the whole input, or refused
     * with a reason; never another exception.
     */
    static void anyBytesAreReadCanonicallyOrRefused(Parser parser, int shrinkCycles) {
        qt().withShrinkCycles(shrinkCycles)
                .withFixedSeed(20261203L)
                .withExamples(1500)
                .forAll(anyBytes().describedAs(RecordParserPropertyTest::describe))
                .checkAssert(bytes -> {
                    ObjectNode read;
                    try {
                        read = parser.parse(bytes);
                    } catch (RecordParser.MalformedRecordException e) {
                        assertOneLine(e.getMessage());
                        return;
                    }
                    // independent oracles: the input is UTF-8, and it is one JSON value and nothing more
                    assertThat(strictUtf8(bytes)).as("input is UTF-8").isNotNull();
                    assertThat(bytes).as("no NUL byte").doesNotContain((byte) 0);
                    assertOneValue(bytes);
                    assertCanonical(read);
                });
    }

    @Test
    void wellFormedRecordsAreReadAsWritten() {
        wellFormedRecordsAreReadAsWritten(REAL, SHRINK);
    }

    @Test
    void brokenRecordsAreRefusedAsAWhole() {
        brokenRecordsAreRefusedAsAWhole(REAL, SHRINK);
    }

    @Test
    void anyBytesAreReadCanonicallyOrRefusedAndNothingElseEscapes() {
        anyBytesAreReadCanonicallyOrRefused(REAL, SHRINK);
    }

    // ------------------------------------------------------------------ mutation checks

    /** Ignores what follows the first value (the bug of issue 12). */
    private static final Parser IGNORES_TRAILING_TOKENS =
            new RecordParser(MAPPER.reader().with(JsonParser.Feature.STRICT_DUPLICATE_DETECTION))::parse;

    /** Keeps the last of duplicate members. */
    private static final Parser KEEPS_LAST_DUPLICATE =
            new RecordParser(MAPPER.reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS))::parse;

    /** The parser before issue 12: plain {@code readTree}. */
    private static final Parser PLAIN_READ_TREE = data -> {
        JsonNode node;
        try {
            node = MAPPER.readTree(data);
        } catch (IOException e) {
            throw new RecordParser.MalformedRecordException(String.valueOf(e.getMessage()));
        }
        if (node instanceof ObjectNode object) {
            return object;
        }
        throw new RecordParser.MalformedRecordException("not an object");
    };

    @Test
    void aParserThatIgnoresTrailingTokensIsCaught() {
        assertThatThrownBy(() -> brokenRecordsAreRefusedAsAWhole(IGNORES_TRAILING_TOKENS, 0))
                .isInstanceOf(AssertionError.class);
        assertThatThrownBy(() -> anyBytesAreReadCanonicallyOrRefused(IGNORES_TRAILING_TOKENS, 0))
                .isInstanceOf(AssertionError.class);
    }

    @Test
    void aParserThatKeepsTheLastDuplicateIsCaught() {
        assertThatThrownBy(() -> brokenRecordsAreRefusedAsAWhole(KEEPS_LAST_DUPLICATE, 0))
                .isInstanceOf(AssertionError.class);
    }

    @Test
    void thePlainJacksonReadingOfOldIsCaught() {
        assertThatThrownBy(() -> brokenRecordsAreRefusedAsAWhole(PLAIN_READ_TREE, 0))
                .isInstanceOf(AssertionError.class);
        assertThatThrownBy(() -> anyBytesAreReadCanonicallyOrRefused(PLAIN_READ_TREE, 0))
                .isInstanceOf(AssertionError.class);
    }

    // ------------------------------------------------------------------ through the payments stage

    /**
     * The payments fixture with a merchant name of any Unicode (raw or escaped), sometimes broken,
     * sometimes corrupted, through the real stage: each record is accepted with a reading that every
     * sink writes identically, or dead-lettered once with a reason and its bytes; never both, never
     * neither, never an exception out of the batch.
     */
    @Test
    void everyRecordThroughThePaymentsStageIsAcceptedCanonicallyOrDeadLetteredWithAReason() throws IOException {
        ObjectNode base = Events.payment().node();
        Gen<byte[]> named = texts(40).zip(integers().between(0, 3), (name, style) -> {
            ObjectNode event = base.deepCopy();
            ((ObjectNode) event.path("payload").path("merchant")).put("name", name);
            return write(event, style);
        });
        Gen<byte[]> records = Generate.frequency(
                org.quicktheories.api.Pair.of(3, named),
                org.quicktheories.api.Pair.of(
                        2,
                        named.zip(
                                Generate.enumValues(Breakage.class), integers().between(0, 1 << 20), (bytes, b, c) -> {
                                    try {
                                        return breakIt(new Sample((ObjectNode) MAPPER.readTree(bytes), bytes), b, c);
                                    } catch (IOException e) {
                                        throw new UncheckedIOException(e);
                                    }
                                })),
                org.quicktheories.api.Pair.of(1, anyBytes()));
        StageChain chain = StageChainTest.paymentsChain();
        Records raw = StageChainTest.RAW.arrivedAt(Instant.parse("2026-11-30T17:43:00Z"));
        qt().withFixedSeed(20261204L)
                .withExamples(150)
                .forAll(lists().of(records).ofSizeBetween(1, 8).describedAs(RecordParserPropertyTest::describe))
                .checkAssert(batch -> {
                    MemorySink sink = new MemorySink();
                    MemoryDeadLetters dlq = new MemoryDeadLetters();
                    BatchProcessor processor =
                            new BatchProcessor(chain, Map.of(sink.name(), sink), new MemoryAggregates(), dlq);
                    List<InboundRecord> records1 = new ArrayList<>();
                    for (int i = 0; i < batch.size(); i++) {
                        records1.add(raw.at(100 + i, batch.get(i)));
                    }
                    BatchResult result = processor.process(records1);
                    assertThat(result.complete()).isTrue();
                    for (InboundRecord record : records1) {
                        List<ProcessedEvent> accepted = sink.written().stream()
                                .filter(e -> e.position().equals(record.position()))
                                .toList();
                        List<DeadLetter> letters = dlq.sent().stream()
                                .filter(d -> d.source().position().equals(record.position()))
                                .toList();
                        assertThat(accepted.size() + letters.size())
                                .as("accepted or dead-lettered, once")
                                .isEqualTo(1);
                        if (accepted.isEmpty()) {
                            DeadLetter letter = letters.get(0);
                            assertOneLine(letter.detail());
                            assertThat(letter.source().data()).isEqualTo(record.data());
                            if (letter.code() != ReasonCode.MALFORMED_JSON) {
                                // the parser took it: then it was one canonical reading
                                assertThat(strictUtf8(record.data())).isNotNull();
                            }
                        } else {
                            assertCanonical(accepted.get(0).event());
                        }
                    }
                });
    }

    // ------------------------------------------------------------------ helpers

    /** Bytes as people read them in a falsification report: Latin-1 text, then the bytes. */
    private static String describe(byte[] bytes) {
        return new String(bytes, StandardCharsets.ISO_8859_1) + " " + Arrays.toString(bytes);
    }

    private static String describe(List<byte[]> batch) {
        return batch.stream().map(RecordParserPropertyTest::describe).toList().toString();
    }

    private static ObjectNode parse(Parser parser, byte[] bytes) {
        try {
            return parser.parse(bytes);
        } catch (RecordParser.MalformedRecordException e) {
            throw new AssertionError("refused: " + e.getMessage(), e);
        }
    }

    private static String canonical(JsonNode node) {
        try {
            return MAPPER.writeValueAsString(node);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * What every sink writes is {@code event.toString()} as UTF-8 (the lake and the stream as bytes,
     * the table as a string attribute): the bytes must decode to that very text, with no {@code ?}
     * in place of a lone surrogate, and read back to the same event.
     */
    static void assertCanonical(JsonNode event) {
        String text = event.toString();
        byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
        assertThat(strictUtf8(utf8)).as("UTF-8 round trip").isEqualTo(text);
        assertNoUnpairedSurrogate(event);
        try {
            assertThat(canonical(MAPPER.readTree(utf8))).isEqualTo(canonical(event));
        } catch (IOException e) {
            throw new AssertionError("written event cannot be read back", e);
        }
    }

    private static void assertNoUnpairedSurrogate(JsonNode node) {
        if (node.isTextual()) {
            assertThat(RecordParser.isUnicode(node.textValue()))
                    .as("Unicode text")
                    .isTrue();
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> member = it.next();
            assertThat(RecordParser.isUnicode(member.getKey()))
                    .as("Unicode name")
                    .isTrue();
            assertNoUnpairedSurrogate(member.getValue());
        }
        for (JsonNode item : node) {
            if (node.isArray()) {
                assertNoUnpairedSurrogate(item);
            }
        }
    }

    /** The input holds one JSON value and nothing after it but white space (Jackson's streaming parser). */
    private static void assertOneValue(byte[] bytes) {
        try (JsonParser p = MAPPER.getFactory().createParser(bytes)) {
            assertThat(p.nextToken()).isNotNull();
            p.skipChildren();
            assertThat(p.nextToken()).as("nothing after the value").isNull();
        } catch (IOException e) {
            throw new AssertionError("accepted input is not one JSON value: " + e.getMessage(), e);
        }
    }

    private static void assertOneLine(String message) {
        assertThat(message).isNotBlank().doesNotContain("\n");
    }

    private static String strictUtf8(byte[] bytes) {
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] concat(Object... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Object part : parts) {
            out.writeBytes(part instanceof byte[] b ? b : bytes((String) part));
        }
        return out.toByteArray();
    }

    private static String quote(String name) {
        return JsonNodeFactory.instance.textNode(name).toString();
    }

    /** Inserts text right after the first {@code {} (the top-level object's opening brace). */
    private static byte[] insertAfterBrace(byte[] s, Object insert) {
        int brace = 0;
        while (s[brace] != '{') {
            brace++;
        }
        return concat(Arrays.copyOf(s, brace + 1), insert, Arrays.copyOfRange(s, brace + 1, s.length));
    }
}
