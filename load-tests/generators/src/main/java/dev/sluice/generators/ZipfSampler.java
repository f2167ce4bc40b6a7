package dev.sluice.generators;

import java.util.SplittableRandom;

/**
 * Zipf-distributed ranks 1..n, P(k) ∝ 1 / k^s, drawn in constant time by rejection-inversion
 * (Hörmann and Derflinger, "Rejection-inversion to generate variates from monotone discrete
 * distributions", 1996 — the method Apache Commons RNG's {@code RejectionInversionZipfSampler}
 * uses). Rank 1 is the most frequent.
 */
public final class ZipfSampler {

    private final int n;
    private final double exponent;
    private final double hIntegralX1;
    private final double hIntegralN;
    private final double s;

    /**
     * @param n how many ranks, at least 1
     * @param exponent the skew {@code s}, above 0 (1 is classic Zipf; smaller is flatter)
     */
    public ZipfSampler(int n, double exponent) {
        if (n < 1) {
            throw new IllegalArgumentException("n must be positive");
        }
        if (!(exponent > 0) || !Double.isFinite(exponent)) {
            throw new IllegalArgumentException("exponent must be above 0");
        }
        this.n = n;
        this.exponent = exponent;
        this.hIntegralX1 = hIntegral(1.5) - 1.0;
        this.hIntegralN = hIntegral(n + 0.5);
        this.s = 2.0 - hIntegralInverse(hIntegral(2.5) - h(2.0));
    }

    public int n() {
        return n;
    }

    public double exponent() {
        return exponent;
    }

    /** A rank from 1 to n. */
    public int sample(SplittableRandom random) {
        while (true) {
            double u = hIntegralN + random.nextDouble() * (hIntegralX1 - hIntegralN);
            double x = hIntegralInverse(u);
            int k = (int) (x + 0.5);
            if (k < 1) {
                k = 1;
            } else if (k > n) {
                k = n;
            }
            if (k - x <= s || u >= hIntegral(k + 0.5) - h(k)) {
                return k;
            }
        }
    }

    /** The exact probability of rank k (for tests and reports; O(n)). */
    public double probability(int k) {
        double norm = 0;
        for (int i = 1; i <= n; i++) {
            norm += Math.pow(i, -exponent);
        }
        return Math.pow(k, -exponent) / norm;
    }

    private double h(double x) {
        return Math.exp(-exponent * Math.log(x));
    }

    private double hIntegral(double x) {
        double logX = Math.log(x);
        return helper2((1.0 - exponent) * logX) * logX;
    }

    private double hIntegralInverse(double x) {
        double t = x * (1.0 - exponent);
        if (t < -1.0) {
            t = -1.0; // numerical safety, as in the reference implementation
        }
        return Math.exp(helper1(t) * x);
    }

    /** log(1 + x) / x, accurate near 0. */
    private static double helper1(double x) {
        return Math.abs(x) > 1e-8 ? Math.log1p(x) / x : 1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x));
    }

    /** (exp(x) - 1) / x, accurate near 0. */
    private static double helper2(double x) {
        return Math.abs(x) > 1e-8 ? Math.expm1(x) / x : 1.0 + x * 0.5 * (1.0 + x / 3.0 * (1.0 + 0.25 * x));
    }
}
