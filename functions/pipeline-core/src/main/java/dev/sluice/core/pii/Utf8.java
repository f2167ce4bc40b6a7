package dev.sluice.core.pii;

/** UTF-8 encoding into a caller's buffer, without allocating. */
final class Utf8 {

    private static final byte REPLACEMENT = '?';

    private Utf8() {}

    /**
     * Encodes {@code value} into {@code out}, which must hold {@code 3 * value.length()} bytes, and
     * returns the number of bytes written. The result equals {@code
     * value.getBytes(StandardCharsets.UTF_8)}, including its {@code ?} for unpaired surrogates.
     */
    static int encode(String value, byte[] out) {
        int n = 0;
        int length = value.length();
        for (int i = 0; i < length; i++) {
            char c = value.charAt(i);
            if (c < 0x80) {
                out[n++] = (byte) c;
            } else if (c < 0x800) {
                out[n++] = (byte) (0xc0 | (c >> 6));
                out[n++] = (byte) (0x80 | (c & 0x3f));
            } else if (Character.isSurrogate(c)) {
                char low = i + 1 < length ? value.charAt(i + 1) : 0;
                if (Character.isHighSurrogate(c) && Character.isLowSurrogate(low)) {
                    int codePoint = Character.toCodePoint(c, low);
                    out[n++] = (byte) (0xf0 | (codePoint >> 18));
                    out[n++] = (byte) (0x80 | ((codePoint >> 12) & 0x3f));
                    out[n++] = (byte) (0x80 | ((codePoint >> 6) & 0x3f));
                    out[n++] = (byte) (0x80 | (codePoint & 0x3f));
                    i++;
                } else {
                    out[n++] = REPLACEMENT;
                }
            } else {
                out[n++] = (byte) (0xe0 | (c >> 12));
                out[n++] = (byte) (0x80 | ((c >> 6) & 0x3f));
                out[n++] = (byte) (0x80 | (c & 0x3f));
            }
        }
        return n;
    }
}
