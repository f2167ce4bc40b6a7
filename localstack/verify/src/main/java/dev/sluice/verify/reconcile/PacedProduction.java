package dev.sluice.verify.reconcile;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntToLongFunction;

/**
 * A producer running at a paced rate in a background thread until stopped (or until a put fails for
 * good: then it stops and {@link #failure()} says why).
 */
public final class PacedProduction {

    private final AtomicBoolean stopping = new AtomicBoolean();
    private final AtomicLong sent = new AtomicLong();
    private final AtomicReference<RuntimeException> failure = new AtomicReference<>();
    private final Instant started = Instant.now();
    private final double rate;
    private volatile Instant stopped;
    private Thread thread;

    private PacedProduction(double rate) {
        this.rate = rate;
    }

    /**
     * Starts {@code pacer} in a thread of its own; each tick's events go to {@code produce}, which
     * returns how many were acknowledged.
     */
    static PacedProduction start(Pacer pacer, double rate, IntToLongFunction produce) {
        PacedProduction p = new PacedProduction(rate);
        p.thread = new Thread(
                () -> {
                    try {
                        pacer.run((n, now) -> p.sent.addAndGet(produce.applyAsLong(n)), p.stopping::get);
                    } catch (RuntimeException e) {
                        p.failure.set(e);
                    } finally {
                        p.stopped = Instant.now();
                    }
                },
                "paced-producer");
        p.thread.setDaemon(true);
        p.thread.start();
        return p;
    }

    /** Stops producing, waits for the put in flight, and returns when production ended. */
    public Instant stop() {
        stopping.set(true);
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while stopping the paced producer", e);
        }
        return stopped;
    }

    /** Whether the producer is still putting (not stopped, not failed). */
    public boolean running() {
        return thread.isAlive();
    }

    public Instant started() {
        return started;
    }

    /** When production ended, or empty while it runs. */
    public Optional<Instant> stopped() {
        return Optional.ofNullable(stopped);
    }

    /** The rate asked for, events per second. */
    public double rate() {
        return rate;
    }

    /** Events acknowledged so far. */
    public long sent() {
        return sent.get();
    }

    /** Events acknowledged per second from start to stop (or to now). */
    public double achievedPerSecond() {
        Instant end = stopped().orElseGet(Instant::now);
        return sent() / Math.max(0.001, Duration.between(started, end).toMillis() / 1000.0);
    }

    /** Why production stopped on its own, if it did. */
    public Optional<RuntimeException> failure() {
        return Optional.ofNullable(failure.get());
    }
}
