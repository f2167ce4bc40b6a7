package dev.sluice.core.stage;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.core.json.LocatedTextNode;
import dev.sluice.core.json.LocatingNodeFactory;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Reads a record's bytes as exactly one JSON object, with one reading only: what every sink later
 * writes is what the producer sent, or the record is refused as a whole.
 *
 * <p>A record is refused when it is not well-formed UTF-8 (RFC 3629: no overlong forms, no encoded
 * surrogates, nothing above U+10FFFF, no truncated sequence), when it holds a NUL byte (never valid
 * in a JSON text, and the mark of UTF-16/UTF-32, which Jackson would otherwise detect and decode),
 * when anything but white space follows the first JSON value (a second document, garbage, NULs),
 * when an object has the same member name twice, when a string or a member name holds an unpaired
 * surrogate written as an escape ({@code "\ud800"}), or when the value is not an object. A leading
 * UTF-8 byte order mark is ignored, as RFC 8259 §8.1 allows.
 */
public final class RecordParser {

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;
    private static final long BACKSLASHES = 0x5c5c5c5c5c5c5c5cL;

    static final int CLEAN = -1;
    private static final int CLEAN_WITH_SURROGATE_ESCAPE = -2;

    private final ObjectReader reader;
    private final boolean locating;

    public RecordParser(ObjectMapper mapper) {
        this(strict(mapper));
    }

    /**
     * A parser whose trees carry the byte ranges of the string values under these member names
     * ({@link LocatedTextNode}, for {@link dev.sluice.core.json.JsonEdits}); {@code null} locates
     * every string. The trees are equal to those of {@link #RecordParser(ObjectMapper)}.
     */
    public RecordParser(ObjectMapper mapper, Set<String> locatedNames) {
        this(
                strict(mapper)
                        .with(new LocatingNodeFactory(
                                !mapper.getNodeFactory().willStripTrailingBigDecimalZeroes(), locatedNames)),
                true);
    }

    /** A parser reading with exactly this reader (tests build deliberately broken ones). */
    RecordParser(ObjectReader reader) {
        this(reader, false);
    }

    private RecordParser(ObjectReader reader, boolean locating) {
        this.reader = reader;
        this.locating = locating;
    }

    private static ObjectReader strict(ObjectMapper mapper) {
        return Objects.requireNonNull(mapper, "mapper")
                .reader()
                .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                // duplicates are found by the tree's own map as it is built, not by a name set the
                // parser keeps for every object (JsonParser.Feature.STRICT_DUPLICATE_DETECTION): the
                // same refusal, without allocating a hash set per object of every record
                .with(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY);
    }

    /** Why a record's bytes have no single JSON-object reading. */
    public static final class MalformedRecordException extends Exception {
        private static final long serialVersionUID = 1L;

        MalformedRecordException(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * The record's one reading.
     *
     * @throws MalformedRecordException with a precise, one-line reason when there is none
     */
    public ObjectNode parse(byte[] data) throws MalformedRecordException {
        int scan = scan(data);
        if (scan >= 0) {
            throw new MalformedRecordException(
                    data[scan] == 0
                            ? "NUL byte at byte " + scan + " (a JSON text is UTF-8 and never holds one)"
                            : String.format("invalid UTF-8 at byte %d (0x%02X)", scan, data[scan] & 0xff));
        }
        JsonNode parsed;
        try {
            parsed = locating ? readLocated(data) : reader.readTree(data);
        } catch (JsonProcessingException e) {
            JsonLocation at = e.getLocation();
            String where = at == null || at.getByteOffset() < 0 ? "" : " at byte " + at.getByteOffset();
            throw new MalformedRecordException(withoutJacksonTerms(firstLine(e.getOriginalMessage())) + where);
        } catch (IOException e) {
            throw new MalformedRecordException(firstLine(String.valueOf(e.getMessage())));
        }
        if (!(parsed instanceof ObjectNode event)) {
            throw new MalformedRecordException("expected a JSON object, got "
                    + (parsed == null || parsed.isMissingNode() ? "nothing" : parsed.getNodeType()));
        }
        if (scan == CLEAN_WITH_SURROGATE_ESCAPE) {
            String where = loneSurrogate(event, "$");
            if (where != null) {
                throw new MalformedRecordException(
                        where + " holds an unpaired surrogate escape (\\uD800-\\uDFFF):" + " not a Unicode string");
            }
        }
        return event;
    }

    private JsonNode readLocated(byte[] data) throws IOException {
        try (JsonParser parser = reader.createParser(data)) {
            LocatingNodeFactory.reading(parser);
            return reader.readTree(parser);
        } finally {
            LocatingNodeFactory.reading(null);
        }
    }

    /** "Duplicate field 'a'" rather than Jackson's "... for `ObjectNode`: not allowed when ...". */
    private static String withoutJacksonTerms(String message) {
        int jackson = message.startsWith("Duplicate field ") ? message.indexOf(" for `ObjectNode`") : -1;
        return jackson < 0 ? message : message.substring(0, jackson);
    }

    private static String firstLine(String message) {
        int end = message.indexOf('\n');
        return end < 0 ? message : message.substring(0, end);
    }

    /**
     * {@link #CLEAN} if the bytes are well-formed UTF-8 without NUL; {@link
     * #CLEAN_WITH_SURROGATE_ESCAPE} if so but they hold a {@code \}{@code u} followed by {@code d} or
     * {@code D} (an escape that may be a surrogate); else the offset of the first offending byte.
     */
    static int scan(byte[] b) {
        return scan(b, BACKSLASHES);
    }

    /**
     * {@link #scan(byte[])} whose eight-byte steps stop at this byte (repeated in each byte of {@code
     * stops}) as they stop at a backslash: a seam for the tests' deliberately broken scanner.
     */
    static int scan(byte[] b, long stops) {
        boolean surrogateEscape = false;
        int n = b.length;
        int i = 0;
        while (i < n) {
            if (i + Long.BYTES <= n) {
                // eight bytes at a time while they are ASCII without NUL and without a backslash
                long w = (long) LONGS.get(b, i);
                long escapes = w ^ stops;
                if (((w | ((w - ONES) & ~w) | ((escapes - ONES) & ~escapes)) & HIGHS) == 0) {
                    i += Long.BYTES;
                    continue;
                }
            }
            int c = b[i];
            if (c > 0) {
                if (c == '\\' && i + 2 < n && b[i + 1] == 'u' && (b[i + 2] | 0x20) == 'd') {
                    surrogateEscape = true;
                }
                i++;
                continue;
            }
            if (c == 0) {
                return i;
            }
            c &= 0xff;
            int more;
            int low = 0x80;
            int high = 0xbf;
            if (c >= 0xc2 && c <= 0xdf) {
                more = 1;
            } else if (c == 0xe0) {
                more = 2;
                low = 0xa0; // no overlong forms
            } else if (c == 0xed) {
                more = 2;
                high = 0x9f; // no encoded surrogates
            } else if (c >= 0xe1 && c <= 0xef) {
                more = 2;
            } else if (c == 0xf0) {
                more = 3;
                low = 0x90; // no overlong forms
            } else if (c >= 0xf1 && c <= 0xf3) {
                more = 3;
            } else if (c == 0xf4) {
                more = 3;
                high = 0x8f; // nothing above U+10FFFF
            } else {
                return i; // a continuation byte, C0, C1 or F5..FF
            }
            if (i + more >= n) {
                return i; // truncated sequence
            }
            int second = b[i + 1] & 0xff;
            if (second < low || second > high) {
                return i;
            }
            for (int k = 2; k <= more; k++) {
                if ((b[i + k] & 0xc0) != 0x80) {
                    return i;
                }
            }
            i += more + 1;
        }
        return surrogateEscape ? CLEAN_WITH_SURROGATE_ESCAPE : CLEAN;
    }

    /** The path of the first member name or string holding an unpaired surrogate, or {@code null}. */
    private static String loneSurrogate(JsonNode node, String path) {
        if (node.isTextual()) {
            return isUnicode(node.textValue()) ? null : path;
        }
        if (node.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> member = it.next();
                String name = member.getKey();
                if (!isUnicode(name)) {
                    return path + " (a member name)";
                }
                String found = loneSurrogate(member.getValue(), path + "." + name);
                if (found != null) {
                    return found;
                }
            }
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                String found = loneSurrogate(node.get(i), path + "[" + i + "]");
                if (found != null) {
                    return found;
                }
            }
        }
        return null;
    }

    /** Whether every surrogate in {@code s} is part of a high-low pair. */
    static boolean isUnicode(String s) {
        int n = s.length();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (Character.isSurrogate(c)) {
                if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                    i++;
                } else {
                    return false;
                }
            }
        }
        return true;
    }
}
