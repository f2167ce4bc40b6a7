package dev.sluice.emulators.limits;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class TokenBucketTest {

    /** A clock that moves only when told. */
    static final class FakeClock implements InstantSource {
        private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-12-01T00:00:00Z"));

        @Override
        public Instant instant() {
            return now.get();
        }

        void advance(Duration duration) {
            now.updateAndGet(instant -> instant.plus(duration));
        }
    }

    @Test
    void aFullBucketGivesOneSecondsAllowanceThenRefusesUntilTimeRefillsIt() {
        FakeClock clock = new FakeClock();
        TokenBucket bucket = new TokenBucket(1_000, 1_000, clock);
        int taken = 0;
        while (bucket.tryTake(1)) {
            taken++;
        }
        assertThat(taken).isEqualTo(1_000);
        clock.advance(Duration.ofMillis(250));
        taken = 0;
        while (bucket.tryTake(1)) {
            taken++;
        }
        assertThat(taken).isEqualTo(250);
    }

    @Test
    void refillNeverExceedsTheCapacity() {
        FakeClock clock = new FakeClock();
        TokenBucket bucket = new TokenBucket(5, 5, clock);
        clock.advance(Duration.ofMinutes(1));
        assertThat(bucket.available()).isEqualTo(5.0);
    }

    @Test
    void aRequestBiggerThanWhatIsLeftTakesNothing() {
        FakeClock clock = new FakeClock();
        TokenBucket bucket = new TokenBucket(1 << 20, 1 << 20, clock);
        assertThat(bucket.tryTake(600_000)).isTrue();
        assertThat(bucket.tryTake(600_000)).isFalse();
        assertThat(bucket.available()).isEqualTo((1 << 20) - 600_000.0);
    }

    @Test
    void aDebtBlocksUntilItIsPaidBack() {
        FakeClock clock = new FakeClock();
        TokenBucket bucket = new TokenBucket(2 << 20, 2 << 20, clock);
        bucket.debit(10L << 20); // a 10 MiB read from a 2 MiB/s shard
        assertThat(bucket.positive()).isFalse();
        clock.advance(Duration.ofSeconds(4));
        assertThat(bucket.positive()).isFalse();
        clock.advance(Duration.ofMillis(1));
        assertThat(bucket.positive()).isTrue();
    }
}
