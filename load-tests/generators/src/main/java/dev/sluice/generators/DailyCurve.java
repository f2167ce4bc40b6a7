package dev.sluice.generators;

import java.time.Instant;
import java.time.ZoneOffset;

/**
 * How busy a time of day is, as a multiplier of the day's average rate: quiet nights (about a
 * ninth of the average at 03:30–04:30), a morning rise, a lunch bump and an evening peak (about
 * 2.3× the average at 19:30, when people shop after work). Hourly weights, linearly interpolated
 * between the middles of the hours, scaled so that the day averages exactly 1 — a harness running
 * at {@code rate × multiplier(t)} produces {@code rate × 86,400} events a day.
 *
 * <p>Times are read in the curve's zone offset (the customers' local time; UTC by default).
 */
public final class DailyCurve {

    /** Relative weights per hour 00..23 (local time), before scaling to an average of 1. */
    private static final double[] HOURLY = {
        0.35, 0.20, 0.14, 0.12, 0.12, 0.18, 0.40, 0.75, 1.05, 1.10, 1.15, 1.30,
        1.50, 1.35, 1.15, 1.10, 1.25, 1.60, 2.05, 2.40, 2.30, 1.75, 1.10, 0.65
    };

    private static final double MEAN;

    static {
        // the mean of the interpolated curve: each hour's segment averages its two end points
        double sum = 0;
        for (int h = 0; h < 24; h++) {
            sum += (HOURLY[h] + HOURLY[(h + 1) % 24]) / 2;
        }
        MEAN = sum / 24;
    }

    private final ZoneOffset zone;

    public DailyCurve(ZoneOffset zone) {
        this.zone = zone;
    }

    /** The curve in UTC. */
    public static DailyCurve utc() {
        return new DailyCurve(ZoneOffset.UTC);
    }

    /** The rate multiplier at an instant (above 0; averages 1 over a day). */
    public double multiplier(Instant at) {
        long seconds = Math.floorMod(at.getEpochSecond() + zone.getTotalSeconds(), 86_400L);
        return multiplierAtSecondOfDay(seconds + at.getNano() / 1e9);
    }

    /** The multiplier at a second of the (local) day, 0 to 86,400. */
    public double multiplierAtSecondOfDay(double secondOfDay) {
        // weights sit at the middle of their hour; interpolate between neighbours
        double hours = secondOfDay / 3_600.0 - 0.5;
        int lower = (int) Math.floor(hours);
        double fraction = hours - lower;
        double a = HOURLY[Math.floorMod(lower, 24)];
        double b = HOURLY[Math.floorMod(lower + 1, 24)];
        return (a + (b - a) * fraction) / MEAN;
    }

    /** The busiest multiplier of the day (the evening peak). */
    public double peak() {
        double max = 0;
        for (double w : HOURLY) {
            max = Math.max(max, w);
        }
        return max / MEAN;
    }

    /** The quietest multiplier of the day (the small hours). */
    public double trough() {
        double min = Double.MAX_VALUE;
        for (double w : HOURLY) {
            min = Math.min(min, w);
        }
        return min / MEAN;
    }
}
