package dev.sluice.verify.reconcile;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.DoubleUnaryOperator;
import java.util.function.LongSupplier;

/**
 * Paces a producer at a steady rate: every tick it hands the events due since the last one to a
 * {@link Batch} (one PutRecords or more), parking until the next tick when none are due. When the
 * producer falls behind by more than {@link #MAX_PER_TICK} it skips the excess instead of bursting,
 * so event times stay fresh (the rate achieved shows it). Shared by the load harness ({@code ./sluice
 * load}) and the fault suite's scale-under-load scenarios.
 */
public final class Pacer {

    /** Puts are sent every tick; events due since the last tick go in one PutRecords (or more). */
    public static final Duration TICK = Duration.ofMillis(100);
    /** At most this many events per tick, so event times stay fresh when Kinesis falls behind. */
    public static final int MAX_PER_TICK = 2_000;

    /** Sends {@code count} events created at {@code now}. */
    @FunctionalInterface
    public interface Batch {
        void send(int count, Instant now);
    }

    private final double rate;
    private final Duration duration;
    private final DoubleUnaryOperator multiplier;
    private final LongSupplier nanoTime;
    private final Parker parker;

    /** How the pacer waits for the next tick (a real park, or a fake clock's advance in tests). */
    @FunctionalInterface
    interface Parker {
        void park(long nanos);
    }

    /**
     * @param rate events per second
     * @param duration how long to produce; {@code null} for until stopped
     * @param multiplier the rate's multiplier at a fraction of the run (0 to 1; always 0 without a
     *     duration), e.g. a daily curve; {@code f -> 1} for a flat rate
     */
    public Pacer(double rate, Duration duration, DoubleUnaryOperator multiplier) {
        this(rate, duration, multiplier, System::nanoTime, LockSupport::parkNanos);
    }

    Pacer(double rate, Duration duration, DoubleUnaryOperator multiplier, LongSupplier nanoTime, Parker parker) {
        if (!(rate > 0)) {
            throw new IllegalArgumentException("rate must be above 0 events/s, not " + rate);
        }
        this.rate = rate;
        this.duration = duration;
        this.multiplier = multiplier;
        this.nanoTime = nanoTime;
        this.parker = parker;
    }

    /** A flat rate until {@code stop} says so. */
    public static Pacer steady(double rate) {
        return new Pacer(rate, null, f -> 1.0);
    }

    /**
     * Runs the loop until the duration is over or {@code stop} is true, and returns the number of
     * events scheduled (sent plus skipped).
     */
    public long run(Batch batch, BooleanSupplier stop) {
        long durationNanos = duration == null ? Long.MAX_VALUE : duration.toNanos();
        long start = nanoTime.getAsLong();
        long generated = 0;
        double scheduled = 0;
        long previous = 0;
        while (!stop.getAsBoolean()) {
            long elapsed = nanoTime.getAsLong() - start;
            if (elapsed >= durationNanos) {
                break;
            }
            double fraction = duration == null ? 0 : (double) elapsed / durationNanos;
            scheduled += rate * multiplier.applyAsDouble(fraction) * (elapsed - previous) / 1e9;
            previous = elapsed;
            long due = (long) Math.floor(scheduled) - generated;
            if (due <= 0) {
                parker.park(Math.min(TICK.toNanos(), durationNanos - elapsed));
                continue;
            }
            int n = (int) Math.min(due, MAX_PER_TICK);
            generated += n;
            if (due > MAX_PER_TICK) {
                generated += due - MAX_PER_TICK; // fell behind: skip, don't burst (the rate achieved shows it)
            }
            batch.send(n, Instant.now());
        }
        return generated;
    }
}
