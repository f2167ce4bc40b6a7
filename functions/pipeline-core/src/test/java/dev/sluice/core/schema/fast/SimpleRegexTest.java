package dev.sluice.core.schema.fast;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The small anchored patterns against {@code java.util.regex} {@code find()}, which is what networknt runs. */
class SimpleRegexTest {

    private static final String ALPHABET = "aAzZ09_-. x\n\r\u2028é😀";

    @Test
    void ourSchemasPatternsCompileToTheFastMatcher() {
        for (String regex : List.of(
                "^[A-Za-z0-9_-]+$",
                "^cust-[0-9]{7}$",
                "^[0-9]{12,19}$",
                "^m-[0-9]{6}$",
                "^[0-9]{4}$",
                "^[A-Z]{2}$",
                "^s-[0-9a-f]{12}$",
                "^v-[0-9a-f]{12}$",
                "^p-[0-9]{6}$")) {
            assertThat(SimpleRegex.compile(regex)).as(regex).isPresent();
        }
    }

    @Test
    void otherSyntaxIsLeftToTheJdk() {
        for (String regex : List.of(
                "x+y", "^(ab)+$", "^a|b$", "^[^a]$", "^a+?$", "^a++$", "^.$", "^\\p{L}$", "^[a-z&&[^x]]$", "^\\$")) {
            assertThat(SimpleRegex.compile(regex)).as(regex).isEmpty();
        }
    }

    @Test
    void randomPatternsAndStringsMatchLikeTheJdk() {
        Random random = new Random(42);
        List<String> disagreements = new ArrayList<>();
        int compiled = 0;
        int matched = 0;
        for (int p = 0; p < 400; p++) {
            List<Atom> atoms = new ArrayList<>();
            String regex = randomRegex(random, atoms);
            Pattern jdk = Pattern.compile(regex);
            Checkers.PatternCheck fast = new Checkers.PatternCheck(regex);
            if (SimpleRegex.compile(regex).isPresent()) {
                compiled++;
            }
            for (int s = 0; s < 300; s++) {
                String input = randomInput(random, atoms);
                boolean expected = jdk.matcher(input).find();
                if (fast.find(input) != expected) {
                    disagreements.add(regex + " on " + input.replace("\n", "\\n"));
                }
                if (expected) {
                    matched++;
                }
            }
        }

        assertThat(disagreements).isEmpty();
        assertThat(compiled).isEqualTo(400);
        assertThat(matched).isGreaterThan(400 * 300 / 5);
    }

    /** One atom of a generated pattern: a sample of the characters it accepts, and its repetition. */
    private record Atom(String sample, int min, int max) {}

    private static String randomRegex(Random random, List<Atom> atoms) {
        StringBuilder b = new StringBuilder("^");
        int count = 1 + random.nextInt(5);
        for (int i = 0; i < count; i++) {
            String sample;
            switch (random.nextInt(5)) {
                case 0 -> {
                    b.append("[a-z]");
                    sample = "abz";
                }
                case 1 -> {
                    b.append("[A-Za-z0-9_-]");
                    sample = "aZ0_-";
                }
                case 2 -> {
                    boolean digit = random.nextBoolean();
                    b.append(digit ? "\\d" : "\\w");
                    sample = digit ? "09" : "a_9Z";
                }
                case 3 -> {
                    boolean letter = random.nextBoolean();
                    b.append(letter ? "a" : "\\.");
                    sample = letter ? "a" : ".";
                }
                default -> {
                    b.append("[.a-]");
                    sample = ".a-";
                }
            }
            int min = 1;
            int max = 1;
            switch (random.nextInt(6)) {
                case 0 -> {
                    b.append('+');
                    max = 4;
                }
                case 1 -> {
                    b.append('*');
                    min = 0;
                    max = 4;
                }
                case 2 -> {
                    b.append('?');
                    min = 0;
                }
                case 3 -> {
                    min = max = random.nextInt(3);
                    b.append('{').append(min).append('}');
                }
                case 4 -> {
                    min = random.nextInt(2);
                    max = 2 + random.nextInt(2);
                    b.append('{').append(min).append(',').append(max).append('}');
                }
                default -> {}
            }
            atoms.add(new Atom(sample, min, max));
        }
        return b.append('$').toString();
    }

    /** A string the pattern matches, then often broken by an edit or a final line terminator. */
    private static String randomInput(Random random, List<Atom> atoms) {
        StringBuilder b = new StringBuilder();
        for (Atom atom : atoms) {
            int repeat = atom.min() + random.nextInt(atom.max() - atom.min() + 1);
            for (int i = 0; i < repeat; i++) {
                b.append(atom.sample().charAt(random.nextInt(atom.sample().length())));
            }
        }
        int edits = random.nextInt(3);
        for (int i = 0; i < edits; i++) {
            int at = random.nextInt(b.length() + 1);
            int index = random.nextInt(ALPHABET.codePointCount(0, ALPHABET.length()));
            String noise = new String(Character.toChars(ALPHABET.codePointAt(ALPHABET.offsetByCodePoints(0, index))));
            if (random.nextBoolean() || at == b.length()) {
                b.insert(at, noise);
            } else {
                b.replace(at, at + 1, noise);
            }
        }
        return b.toString();
    }
}
