package dev.sluice.core.window;

/**
 * Kinesis sequence numbers as strings of up to 129 decimal digits without leading zeros
 * ({@code 0|([1-9]\d{0,128})}), optionally followed by {@code .} and the sub-sequence of a user
 * record taken out of a KPL-aggregated record ({@code 4959...123.7}; sub-sequence 0 is written
 * without a suffix, so a record that was not aggregated keeps its plain sequence number). They are
 * compared as numbers without parsing them: a shorter sequence number is smaller, equal lengths
 * compare character by character, then the sub-sequence; this is the order of the zero-padded
 * fixed-width strings that the sinks store. Never as doubles.
 */
public final class SequenceNumbers {

    /** The longest sequence number the Kinesis API allows. */
    public static final int MAX_DIGITS = 129;

    /** The digits of a sub-sequence in its {@link #fixedWidth} form (at most 99,999). */
    public static final int SUB_DIGITS = 5;

    private SequenceNumbers() {}

    /**
     * The sequence of a user record: {@code sequenceNumber} alone when {@code subSequence} is 0,
     * else {@code sequenceNumber.subSequence}.
     */
    public static String of(String sequenceNumber, long subSequence) {
        return subSequence == 0 ? sequenceNumber : sequenceNumber + "." + subSequence;
    }

    /**
     * Compares two valid sequences numerically: sequence number first, then sub-sequence (none is
     * 0).
     *
     * @return negative, zero or positive as {@code a} is smaller than, equal to or greater than
     *     {@code b}
     */
    public static int compare(String a, String b) {
        int lengthA = digits(a);
        int lengthB = digits(b);
        if (lengthA != lengthB) {
            return Integer.compare(lengthA, lengthB);
        }
        // equal lengths: the first differing digit decides, as String.compareTo would say
        for (int i = 0; i < lengthA; i++) {
            char x = a.charAt(i);
            char y = b.charAt(i);
            if (x != y) {
                return x - y;
            }
        }
        boolean subA = lengthA < a.length();
        boolean subB = lengthB < b.length();
        if (!subA && !subB) {
            return 0;
        }
        return Long.compare(
                subA ? Long.parseLong(a, lengthA + 1, a.length(), 10) : 0,
                subB ? Long.parseLong(b, lengthB + 1, b.length(), 10) : 0);
    }

    /**
     * The length of a valid sequence's sequence number: the position of its {@code .}, which can
     * only be among the last {@link #SUB_DIGITS} + 1 characters, or its length.
     */
    private static int digits(String s) {
        int n = s.length();
        for (int i = n - 2, stop = Math.max(0, n - SUB_DIGITS - 1); i >= stop; i--) {
            if (s.charAt(i) == '.') {
                return i;
            }
        }
        return n;
    }

    /**
     * Whether {@code s} is a sequence number in Kinesis' canonical form, optionally with a canonical
     * non-zero sub-sequence suffix.
     */
    public static boolean isValid(String s) {
        // one pass: the sequence number's digits, then an optional dot and sub-sequence
        int n = s.length();
        int i = 0;
        while (i < n && isDigit(s.charAt(i))) {
            i++;
        }
        if (i == 0 || i > MAX_DIGITS || (i > 1 && s.charAt(0) == '0')) {
            return false;
        }
        if (i == n) {
            return true;
        }
        if (s.charAt(i) != '.') {
            return false;
        }
        int from = ++i;
        while (i < n && isDigit(s.charAt(i))) {
            i++;
        }
        // 1 to SUB_DIGITS digits, no leading zero, not 0 (written without a suffix)
        return i == n && i > from && i - from <= SUB_DIGITS && s.charAt(from) != '0';
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
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
     * The sequence number left-padded with zeros to {@link #MAX_DIGITS} digits, then (only when it
     * has one) {@code .} and the sub-sequence padded to {@link #SUB_DIGITS}: fixed-width strings
     * whose order as strings is the numbers' order, as sinks store them (e.g. a shard's watermark on
     * an aggregate item). A record that was not aggregated keeps the 129-digit form.
     */
    public static String fixedWidth(String sequenceNumber) {
        requireValid(sequenceNumber, "sequenceNumber");
        int dot = sequenceNumber.indexOf('.');
        int digits = dot < 0 ? sequenceNumber.length() : dot;
        StringBuilder s = new StringBuilder(MAX_DIGITS + 1 + SUB_DIGITS);
        for (int i = digits; i < MAX_DIGITS; i++) {
            s.append('0');
        }
        s.append(sequenceNumber, 0, digits);
        if (dot >= 0) {
            s.append('.');
            for (int i = sequenceNumber.length() - dot - 1; i < SUB_DIGITS; i++) {
                s.append('0');
            }
            s.append(sequenceNumber, dot + 1, sequenceNumber.length());
        }
        return s.toString();
    }

    /**
     * The canonical sequence of a {@link #fixedWidth} string.
     *
     * @throws IllegalArgumentException if {@code fixed} is not {@link #MAX_DIGITS} decimal digits,
     *     optionally followed by {@code .} and {@link #SUB_DIGITS} digits
     */
    public static String fromFixedWidth(String fixed) {
        if (fixed == null) {
            throw new NullPointerException("fixed-width sequence number");
        }
        boolean sub = fixed.length() == MAX_DIGITS + 1 + SUB_DIGITS && fixed.charAt(MAX_DIGITS) == '.';
        if (fixed.length() != MAX_DIGITS && !sub) {
            throw new IllegalArgumentException(
                    "not a fixed-width sequence number of " + MAX_DIGITS + " digits: '" + fixed + "'");
        }
        int start = 0;
        while (start < MAX_DIGITS - 1 && fixed.charAt(start) == '0') {
            start++;
        }
        String sequence = fixed.substring(start, MAX_DIGITS);
        if (sub) {
            int from = MAX_DIGITS + 1;
            while (from < fixed.length() - 1 && fixed.charAt(from) == '0') {
                from++;
            }
            String subSequence = fixed.substring(from);
            if (!subSequence.equals("0")) {
                sequence = sequence + "." + subSequence;
            }
        }
        return requireValid(sequence, "fixed-width sequence number");
    }
}
