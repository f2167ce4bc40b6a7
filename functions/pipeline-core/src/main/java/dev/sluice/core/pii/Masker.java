package dev.sluice.core.pii;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The {@code mask} action: hides a value but keeps its shape, and for long digit strings (card
 * numbers, account numbers) its last four digits, so people can still tell "the card ending 1111".
 *
 * <p>Rules, applied to the value's text:
 *
 * <ol>
 *   <li>A string of ASCII digits only, at least {@value #MIN_LENGTH_TO_KEEP_LAST} long, keeps its
 *       last {@value #KEEP_LAST} digits and every other digit becomes {@code *}: {@code
 *       4111111111111111} → {@code ************1111}. (The minimum length ensures that at least as
 *       many digits are hidden as shown: a five-digit postcode or PIN is not reduced to a guess out
 *       of ten.)
 *   <li>Every other value — shorter digit strings, any value of at most four characters, text,
 *       formatted numbers such as {@code 4111 1111 1111 1111} — becomes one {@code *} per code point:
 *       {@code alice@example.com} → {@code *****************}, {@code 1234} → {@code ****}. Only the
 *       length survives.
 *   <li>The empty string stays empty.
 * </ol>
 *
 * Non-string values are masked by {@link PiiPolicy} through their JSON text and become strings:
 * the number {@code 4111111111111111} becomes {@code "************1111"}, {@code true} becomes
 * {@code "****"}.
 *
 * <p>Stateless and thread-safe; masks of up to {@value #CACHED_STARS} characters of rule 2 are
 * shared constants, so masking them allocates nothing.
 */
public final class Masker {

    /** The character that replaces hidden characters. */
    public static final char MASK_CHAR = '*';

    /** How many trailing digits rule 1 keeps. */
    public static final int KEEP_LAST = 4;

    /** The shortest digit string that keeps its last digits; shorter ones are masked completely. */
    public static final int MIN_LENGTH_TO_KEEP_LAST = 2 * KEEP_LAST;

    static final int CACHED_STARS = 64;

    private static final String[] STARS = new String[CACHED_STARS + 1];

    static {
        for (int i = 0; i <= CACHED_STARS; i++) {
            STARS[i] = String.valueOf(MASK_CHAR).repeat(i);
        }
    }

    private Masker() {}

    /** The masked form of a value, by the rules above. */
    public static String mask(String value) {
        if (value == null) {
            throw new IllegalArgumentException("cannot mask null");
        }
        int length = value.length();
        if (length >= MIN_LENGTH_TO_KEEP_LAST && isAsciiDigits(value)) {
            // ASCII only: built as Latin-1 bytes, which the string takes without compressing chars
            byte[] masked = new byte[length];
            int hidden = length - KEEP_LAST;
            Arrays.fill(masked, 0, hidden, (byte) MASK_CHAR);
            for (int i = hidden; i < length; i++) {
                masked[i] = (byte) value.charAt(i);
            }
            return new String(masked, StandardCharsets.ISO_8859_1);
        }
        return stars(value.codePointCount(0, length));
    }

    private static boolean isAsciiDigits(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    private static String stars(int count) {
        return count <= CACHED_STARS ? STARS[count] : String.valueOf(MASK_CHAR).repeat(count);
    }
}
