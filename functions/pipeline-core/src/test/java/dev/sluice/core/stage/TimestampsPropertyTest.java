package dev.sluice.core.stage;

import static dev.sluice.core.testing.Theories.assertFalsified;
import static dev.sluice.core.testing.Theories.fromRandom;
import static dev.sluice.core.testing.Theories.qt;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * {@link Timestamps#parse}, which reads the common RFC 3339 shape by hand ({@link
 * Timestamps#strict}) and leaves the rest to ethlo, gives exactly ethlo's reading of every text:
 * generated date-times near and off that shape (impossible dates, leap days and leap seconds, hours
 * 24, fractions of 0 to 10 digits, {@code Z}, {@code z} and offsets up to ±19:60, {@code -00:00},
 * lower-case {@code t}, a char replaced, dropped or added). {@link
 * #aStrictReadingThatDropsTheFractionIsCaught} runs the property with a hand reading that loses the
 * fraction, which it must falsify.
 */
class TimestampsPropertyTest {

    static Gen<String> texts() {
        return fromRandom(TimestampsPropertyTest::text);
    }

    private static String text(Random random) {
        int[] years = {0, 1, 1969, 1970, 2000, 2016, 2024, 2025, 2100, 9999};
        int year = random.nextBoolean() ? years[random.nextInt(years.length)] : random.nextInt(10_000);
        StringBuilder s = new StringBuilder();
        s.append(String.format("%04d-%02d-%02d", year, random.nextInt(14), random.nextInt(33)));
        s.append(random.nextInt(20) == 0 ? 't' : 'T');
        s.append(String.format(
                "%02d:%02d:%02d",
                random.nextInt(25), random.nextInt(61), random.nextInt(8) == 0 ? 60 : random.nextInt(61)));
        if (random.nextBoolean()) {
            s.append('.');
            int digits = random.nextInt(11);
            for (int i = 0; i < digits; i++) {
                s.append((char) ('0' + random.nextInt(10)));
            }
        }
        switch (random.nextInt(5)) {
            case 0 -> s.append('Z');
            case 1 -> s.append(random.nextBoolean() ? 'z' : "-00:00");
            default ->
                s.append(random.nextBoolean() ? '+' : '-')
                        .append(String.format("%02d:%02d", random.nextInt(20), random.nextInt(61)));
        }
        if (random.nextInt(6) == 0) {
            int at = random.nextInt(s.length());
            switch (random.nextInt(3)) {
                case 0 -> s.setCharAt(at, "0123456789-:T.Z+ x".charAt(random.nextInt(18)));
                case 1 -> s.deleteCharAt(at);
                default -> s.insert(at, "0123456789-:.".charAt(random.nextInt(13)));
            }
        }
        return s.toString();
    }

    @Test
    void theHandReadingIsEthlosReading() {
        theHandReadingIsEthlosReading(Timestamps::parse);
    }

    /** Broken: the hand reading keeps whole seconds only. */
    @Test
    void aStrictReadingThatDropsTheFractionIsCaught() {
        assertFalsified(() -> theHandReadingIsEthlosReading(text -> {
            Instant strict = Timestamps.strict(text);
            return strict != null ? strict.truncatedTo(ChronoUnit.SECONDS) : Timestamps.parseWithEthlo(text);
        }));
    }

    static void theHandReadingIsEthlosReading(Function<String, Instant> parse) {
        AtomicInteger strict = new AtomicInteger();
        AtomicInteger all = new AtomicInteger();
        qt(5_000).forAll(texts()).checkAssert(text -> {
            all.incrementAndGet();
            if (Timestamps.strict(text) != null) {
                strict.incrementAndGet();
            }
            assertThat(parse.apply(text)).as(text).isEqualTo(Timestamps.parseWithEthlo(text));
        });
        // the generator reaches both the hand reading and ethlo's
        assertThat(strict.get()).isGreaterThan(all.get() / 10);
        assertThat(all.get() - strict.get()).isGreaterThan(all.get() / 10);
    }
}
