package dev.sluice.core.schema.fast;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;

/** {@code minimum}, {@code maximum}, {@code exclusiveMinimum}, {@code exclusiveMaximum} and {@code multipleOf}. */
final class NumberChecks {

    private NumberChecks() {}

    enum Kind {
        MINIMUM,
        MAXIMUM,
        EXCLUSIVE_MINIMUM,
        EXCLUSIVE_MAXIMUM;

        boolean lower() {
            return this == MINIMUM || this == EXCLUSIVE_MINIMUM;
        }

        boolean accepts(int comparison) {
            switch (this) {
                case MINIMUM:
                    return comparison >= 0;
                case EXCLUSIVE_MINIMUM:
                    return comparison > 0;
                case MAXIMUM:
                    return comparison <= 0;
                default:
                    return comparison < 0;
            }
        }
    }

    /**
     * A bound, compared the way networknt does: the instance's decimal text ({@code new BigDecimal(node.asText())},
     * so a double counts as its shortest decimal, e.g. {@code 42.95}) against the schema's decimal text, exactly. A
     * double is first compared with the bound rounded to a double; rounding is monotonic, so a strict difference
     * there is the exact answer, and only a double equal to the rounded bound takes the exact (allocating) path.
     * Integers compare as longs against the bound's floor and ceiling. When the schema's {@code type} is {@code
     * "integer"} and the bound is an int/long, networknt compares {@code node.asLong()} instead — and so does this.
     */
    static final class Bound {
        private final Kind kind;
        private final boolean integerPath;
        private final long integerLimit;
        private final BigInteger bigIntegerLimit;
        private final BigDecimal limit;
        private final double limitAsDouble;
        private final boolean limitIntegral;
        private final int outsideLongRange; // -1: limit < Long.MIN_VALUE, +1: limit > Long.MAX_VALUE, 0: inside
        private final long floor;
        private final long ceiling;

        Bound(Kind kind, JsonNode schemaValue, JsonNode parentSchema) {
            if (!schemaValue.isNumber()
                    || ((schemaValue.isDouble() || schemaValue.isFloat())
                            && !Double.isFinite(schemaValue.doubleValue()))) {
                throw new FastValidator.Unsupported(kind + " is not a finite number");
            }
            this.kind = kind;
            String text = schemaValue.asText();
            JsonNode type = parentSchema.get("type");
            this.integerPath =
                    (schemaValue.isLong() || schemaValue.isInt()) && type != null && "integer".equals(type.asText());
            this.integerLimit = schemaValue.asLong();
            this.bigIntegerLimit = integerPath ? new BigInteger(text) : null;
            this.limit = new BigDecimal(text);
            this.limitAsDouble = limit.doubleValue();
            this.limitIntegral =
                    limit.signum() == 0 || limit.stripTrailingZeros().scale() <= 0;
            BigDecimal lowest = BigDecimal.valueOf(Long.MIN_VALUE);
            BigDecimal highest = BigDecimal.valueOf(Long.MAX_VALUE);
            if (limit.compareTo(lowest) < 0) {
                outsideLongRange = -1;
                floor = ceiling = 0;
            } else if (limit.compareTo(highest) > 0) {
                outsideLongRange = 1;
                floor = ceiling = 0;
            } else {
                outsideLongRange = 0;
                floor = limit.setScale(0, RoundingMode.FLOOR).longValueExact();
                ceiling = limitIntegral
                        ? floor
                        : limit.setScale(0, RoundingMode.CEILING).longValueExact();
            }
        }

        boolean test(JsonNode node) {
            if (!node.isNumber()) {
                return true;
            }
            if (integerPath) {
                int comparison = node.isBigInteger()
                        ? node.bigIntegerValue().compareTo(bigIntegerLimit)
                        : Long.compare(node.asLong(), integerLimit);
                return kind.accepts(comparison);
            }
            if (node.isDouble()) {
                double x = node.doubleValue();
                if (x == Double.POSITIVE_INFINITY) {
                    return kind.lower();
                }
                if (x == Double.NEGATIVE_INFINITY) {
                    return !kind.lower();
                }
                if (x != x) {
                    throw Unsure.INSTANCE; // NaN: networknt fails on it; let it
                }
                if (x < limitAsDouble) {
                    return kind.accepts(-1);
                }
                if (x > limitAsDouble) {
                    return kind.accepts(1);
                }
                return kind.accepts(new BigDecimal(node.asText()).compareTo(limit));
            }
            if (node.isInt() || node.isLong() || node.isShort()) {
                return kind.accepts(compareLong(node.longValue()));
            }
            if (node.isBigDecimal()) {
                return kind.accepts(node.decimalValue().compareTo(limit));
            }
            if (node.isFloat() && !Float.isFinite(node.floatValue())) {
                throw Unsure.INSTANCE; // networknt fails on it; let it
            }
            return kind.accepts(new BigDecimal(node.asText()).compareTo(limit));
        }

        private int compareLong(long value) {
            if (outsideLongRange != 0) {
                return -outsideLongRange;
            }
            if (limitIntegral) {
                return Long.compare(value, floor);
            }
            return value <= floor ? -1 : 1; // floor < limit < ceiling = floor + 1
        }
    }

    /**
     * networknt's {@code multipleOf}: {@code BigDecimal.valueOf(node.doubleValue())} (or the node's own BigDecimal)
     * has no remainder by the divisor. Small integers against a small integral divisor are decided with long
     * arithmetic, which gives the same answer without allocating; everything else takes networknt's BigDecimal path.
     */
    static final class MultipleOf {
        private static final double SMALL = 1e7;
        private final BigDecimal divisor;
        private final long smallDivisor; // 0 when the divisor is not a small integer

        /** k when the divisor is 10^-k (0.01: 2), else 0: then a decimal of scale ≤ k is a multiple. */
        private final int decimals;

        MultipleOf(JsonNode schemaValue) {
            this(schemaValue, 0);
        }

        /**
         * @param slack added to the decimals decided from the scale: a seam for the tests'
         *     deliberately broken checks; 0 for the real one
         */
        MultipleOf(JsonNode schemaValue, int slack) {
            if (!schemaValue.isNumber() || !Double.isFinite(schemaValue.doubleValue())) {
                throw new FastValidator.Unsupported("multipleOf is not a finite number");
            }
            double asDouble = schemaValue.doubleValue();
            this.divisor = asDouble == 0
                    ? null
                    : schemaValue.isBigDecimal() ? schemaValue.decimalValue() : BigDecimal.valueOf(asDouble);
            long small = 0;
            if (divisor != null
                    && (divisor.signum() == 0 || divisor.stripTrailingZeros().scale() <= 0)
                    && divisor.abs().compareTo(BigDecimal.valueOf(SMALL)) < 0) {
                small = Math.abs(divisor.longValueExact());
            }
            this.smallDivisor = small;
            BigDecimal unit = divisor == null ? null : divisor.stripTrailingZeros();
            this.decimals =
                    unit != null && unit.scale() > 0 && unit.unscaledValue().equals(BigInteger.ONE)
                            ? unit.scale() + slack
                            : 0;
        }

        boolean test(JsonNode node) {
            if (divisor == null || !node.isNumber()) {
                return true;
            }
            if (smallDivisor != 0) {
                if (node.isInt() || node.isLong() || node.isShort()) {
                    long value = node.longValue();
                    if (Math.abs(value) < (long) SMALL) {
                        return value % smallDivisor == 0;
                    }
                } else if (node.isDouble()) {
                    double x = node.doubleValue();
                    if (Math.abs(x) < SMALL) {
                        // a non-integral double's decimal text is non-integral too, so no integer divides it
                        return x == Math.rint(x) && ((long) x) % smallDivisor == 0;
                    }
                }
            }
            BigDecimal dividend;
            if (node.isBigDecimal()) {
                dividend = node.decimalValue();
                if (decimals > 0 && dividend.scale() <= decimals) {
                    return true; // unscaled × 10^-scale, scale ≤ k: a whole number of 10^-k
                }
            } else {
                double x = node.doubleValue();
                if (!Double.isFinite(x)) {
                    throw Unsure.INSTANCE; // networknt fails on it; let it
                }
                dividend = BigDecimal.valueOf(x);
            }
            return dividend.divideAndRemainder(divisor)[1].signum() == 0;
        }
    }
}
