package dev.sluice.core.testing;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.longs;

import java.util.Random;
import java.util.function.Function;
import org.quicktheories.QuickTheory;
import org.quicktheories.api.Pair;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * How the property tests of the reactor run: QuickTheories inside plain JUnit 5 tests, with a fixed
 * seed so that every build tries the same examples. {@code -DQT_SEED=<long>} runs them with another
 * seed; a falsified property reports its seed, so a failure found that way can be replayed.
 *
 * <p>Every property is a method that takes the implementation under test, so that a test can run it
 * against a deliberately broken implementation too and show that the property catches it ({@link
 * #assertFalsified}).
 */
public final class Theories {

    /** The seed of every property run unless {@code QT_SEED} is set. */
    public static final long DEFAULT_SEED = 20_261_201L;

    /**
     * How many smaller examples QuickTheories tries after a failure (its default, a hundred per
     * example, takes minutes on the slower properties); {@code -DQT_SHRINKS=<n>} overrides it.
     */
    public static final int DEFAULT_SHRINK_CYCLES = 500;

    /**
     * Shrink cycles while a mutation check runs: it needs the falsification, not the smallest
     * falsifying example, and shrinking a slow property takes long.
     */
    private static final ThreadLocal<Integer> SHRINK_CYCLES_OVERRIDE = new ThreadLocal<>();

    private Theories() {}

    /** A theory that tries {@code examples} examples with the build's seed. */
    public static QuickTheory qt(int examples) {
        return QuickTheory.qt().withFixedSeed(seed()).withExamples(examples).withShrinkCycles(shrinkCycles());
    }

    private static int shrinkCycles() {
        Integer override = SHRINK_CYCLES_OVERRIDE.get();
        return override != null ? override : Integer.getInteger("QT_SHRINKS", DEFAULT_SHRINK_CYCLES);
    }

    /** The seed in use: {@code -DQT_SEED}, else {@link #DEFAULT_SEED}. */
    public static long seed() {
        String seed = System.getProperty("QT_SEED");
        return seed == null || seed.isBlank() ? DEFAULT_SEED : Long.parseLong(seed.trim());
    }

    /**
     * Runs a property against a deliberately broken implementation: QuickTheories must falsify it, and
     * by one of the property's assertions (not because the broken implementation threw). It does
     * not shrink the falsifying example.
     */
    public static void assertFalsified(Runnable property) {
        SHRINK_CYCLES_OVERRIDE.set(0);
        try {
            assertThatThrownBy(property::run)
                    .isInstanceOf(AssertionError.class)
                    .hasMessageStartingWith("Property falsified")
                    .hasMessageMatching(
                            "(?s).*Cause was :-\\R(org\\.opentest4j\\.AssertionFailedError|java\\.lang\\.AssertionError).*");
        } finally {
            SHRINK_CYCLES_OVERRIDE.remove();
        }
    }

    /**
     * Values built by a function of a {@link Random} seeded from QuickTheories' randomness, for
     * generators that are clearer as plain code. Shrinking such a value shrinks its seed only.
     */
    public static <T> Gen<T> fromRandom(Function<Random, T> build) {
        return longs().all().map(seed -> build.apply(new Random(seed)));
    }

    /**
     * Any text of {@code min} to {@code max} UTF-16 chars, like "all chars": mostly printable ASCII,
     * often any char of the basic plane (controls, lone surrogates, noncharacters included),
     * sometimes a supplementary code point.
     */
    public static Gen<String> text(int min, int max) {
        return text(min, max, (char) 0);
    }

    /** {@link #text(int, int)} without the char {@code excluded} ({@code 0}: no exclusion). */
    public static Gen<String> text(int min, int max, char excluded) {
        Gen<String> unit = Generate.frequency(
                        Pair.of(4, Generate.range(0x20, 0x7e)),
                        Pair.of(2, Generate.range(0, 0xffff)),
                        Pair.of(1, Generate.range(0x10000, Character.MAX_CODE_POINT)))
                .map(codePoint ->
                        codePoint == excluded && excluded != 0 ? "_" : new String(Character.toChars(codePoint)));
        return lists().of(unit).ofSizeBetween(min, max).map(units -> {
            String text = String.join("", units);
            return text.length() > max ? text.substring(0, max) : text;
        });
    }

    /** Strings of {@code min} to {@code max} chars, each picked from {@code alphabet}. */
    public static Gen<String> strings(String alphabet, int min, int max) {
        return lists().of(Generate.range(0, alphabet.length() - 1))
                .ofSizeBetween(min, max)
                .map(indexes -> {
                    StringBuilder b = new StringBuilder(indexes.size());
                    indexes.forEach(i -> b.append(alphabet.charAt(i)));
                    return b.toString();
                });
    }

    /** Strings of exactly {@code length} ASCII digits. */
    public static Gen<String> digits(int length) {
        return strings("0123456789", length, length);
    }
}
