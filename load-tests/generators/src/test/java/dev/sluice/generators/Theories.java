package dev.sluice.generators;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.quicktheories.QuickTheory;

/**
 * How the property tests of this module run: QuickTheories inside plain JUnit 5 tests, with a fixed
 * seed so that every build tries the same examples; {@code -DQT_SEED=<long>} runs them with another
 * seed. The same conventions as pipeline-core's {@code dev.sluice.core.Theories} (test classes are not
 * shared between modules).
 */
final class Theories {

    /** The seed of every property run unless {@code QT_SEED} is set. */
    static final long DEFAULT_SEED = 20_261_201L;

    /** How many smaller examples QuickTheories tries after a failure; {@code -DQT_SHRINKS=<n>} overrides it. */
    static final int DEFAULT_SHRINK_CYCLES = 500;

    /**
     * Shrink cycles while a mutation check runs: it needs the falsification, not the smallest
     * falsifying example, and shrinking a slow property takes long.
     */
    private static final ThreadLocal<Integer> SHRINK_CYCLES_OVERRIDE = new ThreadLocal<>();

    private Theories() {}

    /** A theory that tries {@code examples} examples with the build's seed. */
    static QuickTheory qt(int examples) {
        String seed = System.getProperty("QT_SEED");
        return QuickTheory.qt()
                .withFixedSeed(seed == null || seed.isBlank() ? DEFAULT_SEED : Long.parseLong(seed.trim()))
                .withExamples(examples)
                .withShrinkCycles(shrinkCycles());
    }

    private static int shrinkCycles() {
        Integer override = SHRINK_CYCLES_OVERRIDE.get();
        return override != null ? override : Integer.getInteger("QT_SHRINKS", DEFAULT_SHRINK_CYCLES);
    }

    /**
     * Runs a property against a deliberately broken implementation: QuickTheories must falsify it, and
     * by one of the property's assertions (not because the broken implementation threw). It does
     * not shrink the falsifying example.
     */
    static void assertFalsified(Runnable property) {
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
}
