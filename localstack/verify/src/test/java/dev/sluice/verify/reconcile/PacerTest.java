package dev.sluice.verify.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The paced producer loop, on a fake clock. */
class PacerTest {

    /** A clock that moves only when the pacer parks or a put takes time. */
    private static final class FakeClock {
        long nanos;

        void advance(Duration d) {
            nanos += d.toNanos();
        }

        void advanceNanos(long n) {
            nanos += n;
        }
    }

    @Test
    void aSteadyRateSendsRateTimesDurationInTicks() {
        FakeClock clock = new FakeClock();
        List<Integer> batches = new ArrayList<>();
        long scheduled = new Pacer(100, Duration.ofSeconds(10), f -> 1.0, () -> clock.nanos, clock::advanceNanos)
                .run((n, now) -> batches.add(n), () -> false);

        // one put per 100 ms tick, 10 events each; the tick at the end of the run is not sent
        assertThat(batches).hasSize(99).containsOnly(10);
        assertThat(scheduled).isEqualTo(990);
    }

    @Test
    void aProducerThatFellBehindSkipsInsteadOfBursting() {
        FakeClock clock = new FakeClock();
        List<Integer> batches = new ArrayList<>();
        // every put takes a second: at 5,000 events/s, 5,000 are due at each tick
        long scheduled = new Pacer(5_000, Duration.ofSeconds(5), f -> 1.0, () -> clock.nanos, clock::advanceNanos)
                .run(
                        (n, now) -> {
                            batches.add(n);
                            clock.advance(Duration.ofSeconds(1));
                        },
                        () -> false);

        assertThat(batches).allMatch(n -> n <= Pacer.MAX_PER_TICK);
        assertThat(batches.stream().mapToInt(Integer::intValue).sum()).isLessThan(5 * 5_000 / 2);
        assertThat(scheduled).isBetween(4L * 5_000, 5L * 5_000);
    }

    @Test
    void withoutADurationItRunsUntilStopped() {
        FakeClock clock = new FakeClock();
        List<Integer> batches = new ArrayList<>();
        long scheduled = new Pacer(50, null, f -> 1.0, () -> clock.nanos, clock::advanceNanos)
                .run(
                        (n, now) -> batches.add(n),
                        () -> clock.nanos >= Duration.ofMinutes(10).toNanos());

        assertThat(scheduled).isBetween(29_990L, 30_000L);
        assertThat(batches).allMatch(n -> n <= 10);
    }

    @Test
    void theMultiplierShapesTheRateOverTheRun() {
        FakeClock clock = new FakeClock();
        List<Integer> firstHalf = new ArrayList<>();
        List<Integer> secondHalf = new ArrayList<>();
        new Pacer(100, Duration.ofSeconds(10), f -> f < 0.5 ? 0.5 : 1.5, () -> clock.nanos, clock::advanceNanos)
                .run(
                        (n, now) -> (clock.nanos < Duration.ofSeconds(5).toNanos() ? firstHalf : secondHalf).add(n),
                        () -> false);

        assertThat(firstHalf.stream().mapToInt(Integer::intValue).sum()).isBetween(240, 260);
        assertThat(secondHalf.stream().mapToInt(Integer::intValue).sum()).isBetween(720, 760);
    }
}
