package dev.sluice.core.pii;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Keeps each secret for a while so that a function asks its secret store once per {@code ttl}, not
 * once per batch. A value older than {@code ttl} is fetched again on its next use; a rotated secret
 * is therefore picked up within {@code ttl}. Concurrent callers asking for the same expired secret
 * wait for one fetch instead of each fetching it.
 *
 * <p>Failures are not cached: when a refresh fails, the exception reaches the caller (a Lambda batch
 * then fails and is retried, which is safe because every sink is idempotent) and the next call tries
 * again. The expired value is not served past its {@code ttl}, so a revoked secret stops working.
 *
 * <p>Callers receive a copy of the cached bytes on each call and may clear it.
 */
public final class CachingSecretProvider implements SecretProvider {

    private final SecretProvider delegate;
    private final Duration ttl;
    private final Clock clock;
    private final ConcurrentMap<String, Entry> cache = new ConcurrentHashMap<>();

    /**
     * @param delegate the provider to ask on a miss
     * @param ttl how long a value is used before it is fetched again; positive
     * @param clock the clock that ages the values ({@link Clock#systemUTC()} outside tests)
     */
    public CachingSecretProvider(SecretProvider delegate, Duration ttl, Clock clock) {
        if (delegate == null || ttl == null || clock == null) {
            throw new IllegalArgumentException("delegate, ttl and clock must not be null");
        }
        if (ttl.isNegative() || ttl.isZero()) {
            throw new IllegalArgumentException("ttl must be positive, was " + ttl);
        }
        this.delegate = delegate;
        this.ttl = ttl;
        this.clock = clock;
    }

    @Override
    public byte[] secret(String name) {
        SecretNames.require(name);
        Entry entry = cache.get(name);
        if (entry == null || entry.expired(clock.instant())) {
            entry = cache.compute(name, (key, current) -> {
                Instant now = clock.instant();
                if (current != null && !current.expired(now)) {
                    return current; // another caller refreshed it meanwhile
                }
                byte[] value = delegate.secret(key);
                if (value == null || value.length == 0) {
                    throw new SecretUnavailableException(key, delegate + " returned no value");
                }
                return new Entry(value, now.plus(ttl));
            });
        }
        return entry.value.clone();
    }

    /** Forgets one secret, e.g. after its consumer found it rejected; the next call fetches it. */
    public void invalidate(String name) {
        cache.remove(name);
    }

    /** Forgets every secret. */
    public void invalidateAll() {
        cache.clear();
    }

    @Override
    public String toString() {
        return "CachingSecretProvider[" + delegate + ", ttl=" + ttl + "]";
    }

    private static final class Entry {
        private final byte[] value;
        private final Instant expiresAt;

        /** Takes ownership of {@code value}: providers hand out arrays the caller owns. */
        Entry(byte[] value, Instant expiresAt) {
            this.value = value;
            this.expiresAt = expiresAt;
        }

        boolean expired(Instant now) {
            return !now.isBefore(expiresAt);
        }
    }
}
