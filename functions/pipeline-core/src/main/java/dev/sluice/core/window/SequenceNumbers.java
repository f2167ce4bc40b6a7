package dev.sluice.core.window;

/**
 * Kinesis sequence numbers as strings of up to 129 decimal digits without leading zeros
 * ({@code 0|([1-9]\d{0,128})}). They are compared as numbers without parsing them: a shorter one is
 * smaller, equal lengths compare character by character; this is the order of the zero-padded
 * fixed-width strings that the sinks store. Never as doubles.
 */
public final class SequenceNumbers {

    /** The longest sequence number the Kinesis API allows. */
    public static final int MAX_DIGITS = 129;

    private SequenceNumbers() {}

    /**
     * Compares two valid sequence numbers numerically.
     *
     * @return negative, zero or positive as {@code a} is smaller than, equal to or greater than
     *     {@code b}
     */
    public static int compare(String a, String b) {
        int byLength = Integer.compare(a.length(), b.length());
        return byLength != 0 ? byLength : a.compareTo(b);
    }

    /** Whether {@code s} is a sequence number in Kinesis' canonical form. */
    public static boolean isValid(String s) {
        int n = s.length();
        if (n == 0 || n > MAX_DIGITS || (n > 1 && s.charAt(0) == '0')) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    /**
     * Returns {@code s} if it is a valid sequence number.
     *
     * @throws IllegalArgumentException naming the bad value otherwise
     */
    public static String requireValid(String s, String what) {
        if (s == null) {
            throw new NullPointerException(what);
        }
        if (!isValid(s)) {
            throw new IllegalArgumentException(
                    what + " is not a Kinesis sequence number (decimal digits, no leading zero): '" + s + "'");
        }
        return s;
    }

    /**
     * The sequence number left-padded with zeros to {@link #MAX_DIGITS} digits: fixed-width strings
     * whose order as strings is the numbers' order, as sinks store them (e.g. a shard's watermark on
     * an aggregate item).
     */
    public static String fixedWidth(String sequenceNumber) {
        requireValid(sequenceNumber, "sequenceNumber");
        StringBuilder s = new StringBuilder(MAX_DIGITS);
        for (int i = sequenceNumber.length(); i < MAX_DIGITS; i++) {
            s.append('0');
        }
        return s.append(sequenceNumber).toString();
    }

    /**
     * The canonical sequence number of a {@link #fixedWidth} string.
     *
     * @throws IllegalArgumentException if {@code fixed} is not {@link #MAX_DIGITS} decimal digits
     */
    public static String fromFixedWidth(String fixed) {
        if (fixed == null) {
            throw new NullPointerException("fixed-width sequence number");
        }
        if (fixed.length() != MAX_DIGITS) {
            throw new IllegalArgumentException(
                    "not a fixed-width sequence number of " + MAX_DIGITS + " digits: '" + fixed + "'");
        }
        int start = 0;
        while (start < MAX_DIGITS - 1 && fixed.charAt(start) == '0') {
            start++;
        }
        return requireValid(fixed.substring(start), "fixed-width sequence number");
    }
}
