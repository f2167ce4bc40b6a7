package dev.sluice.core.event;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/**
 * The envelope of a record aggregated by the Kinesis Producer Library: the magic bytes {@code F3 89
 * 9A C2}, the protobuf {@code AggregatedRecord}, then the MD5 digest of the protobuf bytes. The
 * core only recognises the envelope (no protobuf here); consumers de-aggregate before the chain
 * (Lambda: {@code dev.sluice.aws.kpl}; KCL: the KCL itself), so an aggregate that reaches a chain is
 * one its consumer could not read, dead-lettered as {@link ReasonCode#MALFORMED_AGGREGATE}.
 */
public final class KplFormat {

    /** The first four bytes of every aggregated record. No UTF-8 text starts with them. */
    private static final byte[] MAGIC = {(byte) 0xF3, (byte) 0x89, (byte) 0x9A, (byte) 0xC2};

    /** The length of the trailing MD5 digest. */
    public static final int DIGEST_BYTES = 16;

    private KplFormat() {}

    /** The magic bytes (a copy). */
    public static byte[] magic() {
        return MAGIC.clone();
    }

    /** Whether {@code data} starts with the aggregate magic bytes. */
    public static boolean hasMagic(byte[] data) {
        return data.length >= MAGIC.length && Arrays.equals(data, 0, MAGIC.length, MAGIC, 0, MAGIC.length);
    }

    /** The MD5 digest of {@code data[from, to)}. */
    public static byte[] md5(byte[] data, int from, int to) {
        try {
            MessageDigest md5 = MessageDigest.getInstance("MD5");
            md5.update(data, from, to - from);
            return md5.digest();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JVM has no MD5", e);
        }
    }

    /**
     * Whether the digest at the end of an aggregate matches its protobuf bytes; {@code false} when
     * {@code data} is too short to hold the magic bytes and a digest.
     */
    public static boolean digestMatches(byte[] data) {
        int end = data.length - DIGEST_BYTES;
        if (!hasMagic(data) || end < MAGIC.length) {
            return false;
        }
        return Arrays.equals(md5(data, MAGIC.length, end), 0, DIGEST_BYTES, data, end, data.length);
    }

    /** Why an aggregate that reached a chain could not be de-aggregated, for its dead letter. */
    public static String diagnose(byte[] data) {
        if (data.length < MAGIC.length + DIGEST_BYTES) {
            return "KPL aggregate of " + data.length + " bytes, too short for the magic bytes and an MD5 digest";
        }
        if (!digestMatches(data)) {
            return "KPL aggregate of " + data.length
                    + " bytes whose MD5 digest does not match its protobuf bytes (corrupt or truncated)";
        }
        return "KPL aggregate of " + data.length + " bytes whose protobuf AggregatedRecord does not decode";
    }
}
