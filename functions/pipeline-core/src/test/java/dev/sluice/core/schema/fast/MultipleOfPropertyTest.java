package dev.sluice.core.schema.fast;

import static dev.sluice.core.testing.Theories.assertFalsified;
import static dev.sluice.core.testing.Theories.fromRandom;
import static dev.sluice.core.testing.Theories.qt;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.DecimalNode;
import java.math.BigDecimal;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * {@code multipleOf} of an exact decimal, which a divisor 10^-k ({@code 0.01}) decides from the
 * dividend's scale alone when the scale is at most k, gives the verdict of the division: for
 * generated decimals (scales -3 to 12, trailing zeros, zero, negatives, more digits than a long) and
 * divisors that are and are not powers of ten. {@link #aScaleRuleOffByOneDecimalIsCaught} runs the
 * property with checks that allow one decimal too many, which it must falsify.
 */
class MultipleOfPropertyTest {

    private static final String[] DIVISORS = {
        "0.01", "0.1", "0.001", "1E-9", "0.010", "0.05", "0.25", "1", "10", "1E+1", "0.02", "2.5"
    };

    record Case(BigDecimal divisor, BigDecimal value) {}

    static Gen<Case> cases() {
        return fromRandom(random -> {
            BigDecimal divisor = new BigDecimal(DIVISORS[random.nextInt(DIVISORS.length)]);
            long unscaled = switch (random.nextInt(4)) {
                case 0 -> random.nextInt(100);
                case 1 -> random.nextLong();
                default -> random.nextInt(2_000_001) - 1_000_000;
            };
            BigDecimal value = BigDecimal.valueOf(unscaled, random.nextInt(16) - 3);
            if (random.nextInt(8) == 0) {
                value = value.multiply(new BigDecimal("1E+20")); // more digits than a long
            }
            return new Case(divisor, value);
        });
    }

    @Test
    void theScaleRuleGivesTheDivisionsVerdict() {
        theScaleRuleGivesTheDivisionsVerdict(0);
    }

    /** Broken: a divisor 10^-k lets decimals of scale k + 1 pass unexamined. */
    @Test
    void aScaleRuleOffByOneDecimalIsCaught() {
        assertFalsified(() -> theScaleRuleGivesTheDivisionsVerdict(1));
    }

    static void theScaleRuleGivesTheDivisionsVerdict(int slack) {
        qt(3_000).forAll(cases()).checkAssert(c -> {
            NumberChecks.MultipleOf check = new NumberChecks.MultipleOf(new DecimalNode(c.divisor()), slack);
            boolean division = c.value().remainder(c.divisor()).signum() == 0;
            assertThat(check.test(new DecimalNode(c.value())))
                    .as("%s multipleOf %s", c.value(), c.divisor())
                    .isEqualTo(division);
        });
    }
}
