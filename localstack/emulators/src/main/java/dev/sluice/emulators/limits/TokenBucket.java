package dev.sluice.emulators.limits;

import java.time.InstantSource;

/**
 * A token bucket: {@code capacity} tokens, refilled at {@code perSecond} tokens a second from an
 * injectable clock. Kinesis meters each shard with buckets of one second's allowance.
 */
public final class TokenBucket {

    private final double capacity;
    private final double perSecond;
    private final InstantSource clock;
    private double tokens;
    private long lastNanos;

    public TokenBucket(double capacity, double perSecond, InstantSource clock) {
        if (capacity <= 0 || perSecond <= 0) {
            throw new IllegalArgumentException("capacity and rate must be positive");
        }
        this.capacity = capacity;
        this.perSecond = perSecond;
        this.clock = clock;
        this.tokens = capacity;
        this.lastNanos = nanos();
    }

    private long nanos() {
        java.time.Instant now = clock.instant();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    private void refill() {
        long now = nanos();
        if (now > lastNanos) {
            tokens = Math.min(capacity, tokens + (now - lastNanos) * perSecond / 1e9);
            lastNanos = now;
        }
    }

    /** Whether {@code amount} tokens are available (taking nothing). */
    public synchronized boolean has(double amount) {
        refill();
        return tokens >= amount;
    }

    /** Takes {@code amount} tokens if they are all available. */
    public synchronized boolean tryTake(double amount) {
        refill();
        if (tokens >= amount) {
            tokens -= amount;
            return true;
        }
        return false;
    }

    /** Whether the bucket is not empty (a read may start while any allowance remains). */
    public synchronized boolean positive() {
        refill();
        return tokens > 0;
    }

    /** Takes {@code amount} tokens unconditionally: the bucket may go into debt, as a big read does. */
    public synchronized void debit(double amount) {
        refill();
        tokens -= amount;
    }

    /** The tokens available now. */
    public synchronized double available() {
        refill();
        return tokens;
    }
}
