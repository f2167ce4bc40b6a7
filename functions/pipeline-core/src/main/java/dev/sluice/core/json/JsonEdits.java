package dev.sluice.core.json;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.databind.JsonNode;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The changes a chain made to one event's tree, as byte edits of the record it was read from: each
 * replaced string value ({@link LocatedTextNode}) and the {@code ingestedAt} stamp. {@link #apply}
 * splices them into the original bytes, so that the unchanged bytes stream through without a second
 * serialisation. A change that cannot be expressed so (a removed member, a value that was not
 * located, a step that edits the tree its own way) makes the edits {@linkplain #intact() not
 * intact}, and the caller serialises the tree instead.
 *
 * <p>Not thread-safe; one instance per event.
 */
public class JsonEdits {

    /**
     * A stamp member, encoded once for a batch: its value and the member to insert, with and
     * without a leading comma.
     */
    public static final class Stamp {
        private final byte[] value;
        private final byte[] firstMember;
        private final byte[] nextMember;

        /** The member {@code "name":"value"}. */
        public Stamp(String name, String value) {
            this.value = quoted(value);
            byte[] member = concat(quoted(name), new byte[] {':'}, this.value);
            this.firstMember = member;
            this.nextMember = concat(new byte[] {','}, member);
        }

        private static byte[] concat(byte[]... parts) {
            int length = 0;
            for (byte[] part : parts) {
                length += part.length;
            }
            byte[] out = new byte[length];
            int at = 0;
            for (byte[] part : parts) {
                System.arraycopy(part, 0, out, at, part.length);
                at += part.length;
            }
            return out;
        }
    }

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;
    private static final long LINE_FEEDS = 0x0a0a0a0a0a0a0a0aL;
    private static final long CARRIAGE_RETURNS = 0x0d0d0d0d0d0d0d0dL;

    private int[] starts = new int[4];
    private int[] ends = new int[4];
    private byte[][] replacements = new byte[4][];
    private int size;
    private boolean intact = true;

    /** Whether every change so far is recorded here. */
    public boolean intact() {
        return intact;
    }

    /** A change that cannot be spliced: the tree must be serialised. */
    public void invalidate() {
        intact = false;
    }

    /** Records that a string value of the tree was replaced by {@code text}. */
    public void replace(JsonNode original, String text) {
        if (!intact) {
            return;
        }
        if (original instanceof LocatedTextNode located) {
            add(located.start(), located.end(), quote(text));
        } else {
            invalidate();
        }
    }

    /**
     * Records a stamp of the root object (the chain's {@code ingestedAt}): replaces the previous
     * value if there was a located one, else inserts the member before the root's closing brace.
     *
     * @param previous the root's member of that name before the stamp, or {@code null}
     * @param rootSize how many members the root object had before the stamp
     */
    public void stamp(byte[] data, JsonNode previous, int rootSize, Stamp stamp) {
        if (!intact) {
            return;
        }
        if (previous != null) {
            if (previous instanceof LocatedTextNode located) {
                add(located.start(), located.end(), stamp.value);
            } else {
                invalidate();
            }
            return;
        }
        int close = lastNonSpace(data);
        if (close < 0 || data[close] != '}') {
            invalidate();
            return;
        }
        add(close, close, rootSize > 0 ? stamp.nextMember : stamp.firstMember);
    }

    /**
     * The record's bytes with every edit applied, without a leading byte order mark or surrounding
     * white space; {@code null} if the edits are not intact, overlap, or the record spans lines (so
     * that what sinks write stays one event per line).
     */
    public byte[] apply(byte[] data) {
        return apply(data, false);
    }

    /**
     * As {@link #apply(byte[])}, without looking for line breaks when the caller knows there are
     * none (a tokenizer that read the whole record counted one line).
     */
    public byte[] apply(byte[] data, boolean knownOneLine) {
        if (!intact) {
            return null;
        }
        int from = firstNonSpace(data);
        int to = lastNonSpace(data) + 1;
        if (from < 0 || to <= from) {
            return null;
        }
        if (!knownOneLine && lineBreak(data, from, to) >= 0) {
            return null;
        }
        sort();
        int length = to - from;
        int at = from;
        for (int i = 0; i < size; i++) {
            int start = starts[i];
            int end = end(i);
            if (start < at || end > to || end < start) {
                return null;
            }
            length += replacements[i].length - (end - start);
            at = end;
        }
        byte[] out = new byte[length];
        int written = 0;
        at = from;
        for (int i = 0; i < size; i++) {
            int start = starts[i];
            System.arraycopy(data, at, out, written, start - at);
            written += start - at;
            System.arraycopy(replacements[i], 0, out, written, replacements[i].length);
            written += replacements[i].length;
            at = end(i);
        }
        System.arraycopy(data, at, out, written, to - at);
        return out;
    }

    /**
     * The offset of the first line feed or carriage return in {@code data[from..to)}, or -1: eight
     * bytes at a time, then byte by byte.
     */
    static int lineBreak(byte[] data, int from, int to) {
        int i = from;
        for (; i + Long.BYTES <= to; i += Long.BYTES) {
            long w = (long) LONGS.get(data, i);
            long lf = w ^ LINE_FEEDS;
            long cr = w ^ CARRIAGE_RETURNS;
            if (((((lf - ONES) & ~lf) | ((cr - ONES) & ~cr)) & HIGHS) != 0) {
                break; // a zero byte in lf or cr: the break is in this word
            }
        }
        for (; i < to; i++) {
            byte b = data[i];
            if (b == '\n' || b == '\r') {
                return i;
            }
        }
        return -1;
    }

    /** Where the {@code i}-th edit (in byte order) ends; a seam for tests' deliberately broken editors. */
    int end(int i) {
        return ends[i];
    }

    private void add(int start, int end, byte[] replacement) {
        if (size == starts.length) {
            starts = Arrays.copyOf(starts, size * 2);
            ends = Arrays.copyOf(ends, size * 2);
            replacements = Arrays.copyOf(replacements, size * 2);
        }
        starts[size] = start;
        ends[size] = end;
        replacements[size] = replacement;
        size++;
    }

    /** Insertion sort by start: a handful of edits per event. */
    private void sort() {
        for (int i = 1; i < size; i++) {
            int start = starts[i];
            int end = ends[i];
            byte[] replacement = replacements[i];
            int j = i - 1;
            while (j >= 0 && starts[j] > start) {
                starts[j + 1] = starts[j];
                ends[j + 1] = ends[j];
                replacements[j + 1] = replacements[j];
                j--;
            }
            starts[j + 1] = start;
            ends[j + 1] = end;
            replacements[j + 1] = replacement;
        }
    }

    /**
     * {@code text} as a JSON string token in UTF-8: directly when every char is {@linkplain
     * #plain plain} (tokens, masked numbers), else as Jackson's encoder escapes it.
     */
    private byte[] quote(String text) {
        int n = text.length();
        byte[] quoted = new byte[n + 2];
        for (int i = 0; i < n; i++) {
            char c = text.charAt(i);
            if (!plain(c)) {
                return quoted(text);
            }
            quoted[i + 1] = (byte) c;
        }
        quoted[0] = '"';
        quoted[n + 1] = '"';
        return quoted;
    }

    /**
     * Whether a char stands for itself, as one byte, in a JSON string (printable ASCII other than
     * the quote and the backslash); a seam for the tests' deliberately broken editors.
     */
    boolean plain(char c) {
        return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
    }

    private static byte[] quoted(String text) {
        byte[] escaped = JsonStringEncoder.getInstance().quoteAsUTF8(text);
        byte[] quoted = new byte[escaped.length + 2];
        quoted[0] = '"';
        System.arraycopy(escaped, 0, quoted, 1, escaped.length);
        quoted[quoted.length - 1] = '"';
        return quoted;
    }

    /** The first byte of the JSON text, after a UTF-8 byte order mark and white space; -1 if none. */
    private static int firstNonSpace(byte[] data) {
        int i = data.length >= 3 && (data[0] & 0xff) == 0xef && (data[1] & 0xff) == 0xbb && (data[2] & 0xff) == 0xbf
                ? 3
                : 0;
        while (i < data.length && isSpace(data[i])) {
            i++;
        }
        return i < data.length ? i : -1;
    }

    private static int lastNonSpace(byte[] data) {
        int i = data.length - 1;
        while (i >= 0 && isSpace(data[i])) {
            i--;
        }
        return i;
    }

    private static boolean isSpace(byte b) {
        return b == ' ' || b == '\t' || b == '\n' || b == '\r';
    }
}
