package dev.sluice.core.window;

import static dev.sluice.core.testing.Theories.assertFalsified;
import static dev.sluice.core.testing.Theories.fromRandom;
import static dev.sluice.core.testing.Theories.qt;
import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.util.Comparator;
import java.util.Random;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * {@link SequenceNumbers#isValid} and {@link SequenceNumbers#compare}, which read sequences by hand
 * in one pass, agree with their definitions: a regular expression of the canonical form, and the
 * order of the numbers as {@link BigInteger}s, then of the sub-sequences. Texts are generated near
 * the shape (digits and dots, leading zeros, empty and zero sub-sequences, 128 to 130 digits, a
 * stray letter); pairs of sequences share prefixes and lengths so that every branch of the
 * comparison is reached. The {@code ...IsCaught} tests run each property against a deliberately
 * broken reading, which it must falsify.
 */
class SequenceNumbersPropertyTest {

    private static final Pattern CANONICAL = Pattern.compile("(0|[1-9][0-9]{0,128})(\\.[1-9][0-9]{0,4})?");

    static Gen<String> texts() {
        return fromRandom(SequenceNumbersPropertyTest::text);
    }

    private static String text(Random random) {
        StringBuilder s = new StringBuilder();
        int length = switch (random.nextInt(6)) {
            case 0 -> 128 + random.nextInt(3);
            case 1 -> 0;
            default -> 1 + random.nextInt(8);
        };
        for (int i = 0; i < length; i++) {
            s.append((char) ('0' + random.nextInt(10)));
        }
        if (random.nextInt(3) == 0 && s.length() > 1) {
            s.setCharAt(0, '0');
        }
        if (random.nextBoolean()) {
            s.append('.');
            int sub = random.nextInt(8);
            for (int i = 0; i < sub; i++) {
                s.append((char) ('0' + random.nextInt(10)));
            }
        }
        if (random.nextInt(8) == 0) {
            int at = random.nextInt(s.length() + 1);
            s.insert(at, ".a0".charAt(random.nextInt(3)));
        }
        return s.toString();
    }

    /** Two valid sequences, often of the same length, sharing a prefix, or the same number. */
    static Gen<String[]> pairs() {
        return fromRandom(random -> {
            String a = sequence(random, null);
            String b = sequence(random, random.nextBoolean() ? a : null);
            return new String[] {a, b};
        });
    }

    private static String sequence(Random random, String near) {
        String digits;
        if (near != null) {
            int dot = near.indexOf('.');
            String number = dot < 0 ? near : near.substring(0, dot);
            StringBuilder s = new StringBuilder(number);
            if (random.nextBoolean() && s.length() > 1) {
                int at = 1 + random.nextInt(s.length() - 1);
                s.setCharAt(at, (char) ('0' + random.nextInt(10)));
            }
            digits = s.toString();
        } else if (random.nextInt(10) == 0) {
            digits = "0";
        } else {
            int length = random.nextBoolean() ? 1 + random.nextInt(4) : 50 + random.nextInt(80);
            StringBuilder s = new StringBuilder().append((char) ('1' + random.nextInt(9)));
            for (int i = 1; i < length; i++) {
                s.append((char) ('0' + random.nextInt(10)));
            }
            digits = s.toString();
        }
        return random.nextBoolean() ? digits : digits + "." + (1 + random.nextInt(random.nextBoolean() ? 12 : 99_999));
    }

    @Test
    void isValidIsTheCanonicalForm() {
        isValidIsTheCanonicalForm(SequenceNumbers::isValid);
    }

    /** Broken: a sub-sequence with a leading zero passes. */
    @Test
    void aReadingThatAcceptsAPaddedSubSequenceIsCaught() {
        assertFalsified(() -> isValidIsTheCanonicalForm(
                s -> SequenceNumbers.isValid(s) || SequenceNumbers.isValid(s.replace(".0", "."))));
    }

    static void isValidIsTheCanonicalForm(Predicate<String> isValid) {
        qt(3_000)
                .forAll(texts())
                .checkAssert(s -> assertThat(isValid.test(s))
                        .as("'%s'", s)
                        .isEqualTo(CANONICAL.matcher(s).matches()));
    }

    @Test
    void compareIsTheNumbersOrder() {
        compareIsTheNumbersOrder(SequenceNumbers::compare);
    }

    /** Broken: the sub-sequences are compared as text, so 100.10 sorts before 100.9. */
    @Test
    void aComparisonOfSubSequencesAsTextIsCaught() {
        assertFalsified(() -> compareIsTheNumbersOrder(
                Comparator.comparing((String s) -> s.length() - suffix(s)).thenComparing(s -> s)));
    }

    private static int suffix(String s) {
        int dot = s.indexOf('.');
        return dot < 0 ? 0 : s.length() - dot;
    }

    static void compareIsTheNumbersOrder(Comparator<String> compare) {
        qt(3_000).forAll(pairs()).checkAssert(pair -> {
            String a = pair[0];
            String b = pair[1];
            assertThat(Integer.signum(compare.compare(a, b)))
                    .as("%s vs %s", a, b)
                    .isEqualTo(Integer.signum(reference(a, b)));
        });
    }

    private static int reference(String a, String b) {
        String[] x = a.split("\\.");
        String[] y = b.split("\\.");
        int byNumber = new BigInteger(x[0]).compareTo(new BigInteger(y[0]));
        if (byNumber != 0) {
            return byNumber;
        }
        return Long.compare(x.length > 1 ? Long.parseLong(x[1]) : 0, y.length > 1 ? Long.parseLong(y[1]) : 0);
    }
}
