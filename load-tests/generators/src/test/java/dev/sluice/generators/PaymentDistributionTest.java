package dev.sluice.generators;

import static dev.sluice.core.testing.Theories.assertFalsified;
import static dev.sluice.core.testing.Theories.qt;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.generators.SourceDSL.doubles;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import java.util.function.LongFunction;
import java.util.function.ToIntFunction;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The shape of the payments: hot customers, the daily curve, amounts, invalid share, determinism.
 *
 * <p>The three properties run on QuickTheories with a fixed seed ({@link dev.sluice.core.testing.Theories}), 30, 20 and 50
 * examples; each takes the implementation under test, and {@link BrokenImplementationsAreCaught} runs
 * each against a deliberately broken one, which it must falsify.
 */
class PaymentDistributionTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Instant MIDNIGHT = Instant.parse("2026-11-30T00:00:00Z");

    private static JsonNode json(GeneratedEvent event) {
        try {
            return MAPPER.readTree(event.data());
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void sameSeedAndSettingsGiveTheSameBytes() {
        sameSeedAndSettingsGiveTheSameBytes(PaymentGenerator::builder);
    }

    @Test
    void invalidShareIsWhatWasAskedFor() {
        invalidShareIsWhatWasAskedFor((seed, share) ->
                PaymentGenerator.builder(seed).invalidShare(share).build());
    }

    @Test
    void zipfRanksStayInRange() {
        zipfRanksStayInRange((n, exponent) -> new ZipfSampler(n, exponent)::sample);
    }

    static void sameSeedAndSettingsGiveTheSameBytes(LongFunction<PaymentGenerator.Builder> builders) {
        qt(30).forAll(longs().all(), doubles().between(0, 1)).checkAssert((seed, invalidShare) -> {
            PaymentGenerator a = builders.apply(seed)
                    .invalidShare(invalidShare)
                    .simulateDay(50_000)
                    .build();
            PaymentGenerator b = builders.apply(seed)
                    .invalidShare(invalidShare)
                    .simulateDay(50_000)
                    .build();
            for (int i = 0; i < 50; i++) {
                GeneratedEvent x = a.next();
                GeneratedEvent y = b.next();
                assertThat(x.data()).isEqualTo(y.data());
                assertThat(x.expectedReason()).isEqualTo(y.expectedReason());
            }
        });
    }

    static void invalidShareIsWhatWasAskedFor(BiFunction<Long, Double, PaymentGenerator> generators) {
        qt(20).forAll(doubles().between(0, 0.5), longs().all()).checkAssert((share, seed) -> {
            int n = 4_000;
            PaymentGenerator generator = generators.apply(seed, share);
            int invalid = 0;
            for (int i = 0; i < n; i++) {
                invalid += generator.next().valid() ? 0 : 1;
            }
            // binomial: within five standard deviations (plus one event) of n × share
            double sigma = Math.sqrt(n * share * (1 - share));
            assertThat((double) invalid).isCloseTo(n * share, org.assertj.core.data.Offset.offset(5 * sigma + 1));
        });
    }

    static void zipfRanksStayInRange(BiFunction<Integer, Double, ToIntFunction<SplittableRandom>> samplers) {
        qt(50).forAll(integers().between(1, 2_000_000), doubles().between(0.1, 3), longs().all())
                .checkAssert((n, exponent, seed) -> {
                    ToIntFunction<SplittableRandom> zipf = samplers.apply(n, exponent);
                    SplittableRandom random = new SplittableRandom(seed);
                    for (int i = 0; i < 200; i++) {
                        assertThat(zipf.applyAsInt(random)).isBetween(1, n);
                    }
                });
    }

    /** Each property, run against a deliberately broken implementation, is falsified. */
    @Nested
    class BrokenImplementationsAreCaught {

        @Test
        void aBuilderThatDoesNotUseTheSeedAlone() {
            AtomicLong builds = new AtomicLong();
            assertFalsified(() -> sameSeedAndSettingsGiveTheSameBytes(
                    seed -> PaymentGenerator.builder(seed + builds.incrementAndGet())));
        }

        @Test
        void aGeneratorThatMakesHalfTheInvalidShareAskedFor() {
            assertFalsified(() -> invalidShareIsWhatWasAskedFor((seed, share) ->
                    PaymentGenerator.builder(seed).invalidShare(share / 2).build()));
        }

        @Test
        void aSamplerWithZeroBasedRanks() {
            assertFalsified(() -> zipfRanksStayInRange((n, exponent) -> {
                ZipfSampler zipf = new ZipfSampler(n, exponent);
                return random -> zipf.sample(random) - 1;
            }));
        }
    }

    @Test
    void zipfFrequenciesFollowOneOverRankToTheExponent() {
        ZipfSampler zipf = new ZipfSampler(20, 1.0);
        SplittableRandom random = new SplittableRandom(3);
        int draws = 200_000;
        int[] counts = new int[21];
        for (int i = 0; i < draws; i++) {
            counts[zipf.sample(random)]++;
        }
        for (int k : new int[] {1, 2, 5, 20}) {
            double expected = zipf.probability(k) * draws;
            assertThat((double) counts[k]).as("rank " + k).isBetween(expected * 0.95, expected * 1.05);
        }
    }

    @Test
    void aFewHotCustomersPayFarMoreOftenThanTheRest() {
        PaymentGenerator generator = PaymentGenerator.builder(11).build();
        assertThat(generator.customers()).isEqualTo(1_000_000);
        Map<String, Integer> byCustomer = new HashMap<>();
        int n = 100_000;
        for (int i = 0; i < n; i++) {
            byCustomer.merge(generator.next().partitionKey(), 1, Integer::sum);
        }
        List<Integer> counts = new ArrayList<>(byCustomer.values());
        counts.sort((a, b) -> b - a);
        int top100 = counts.stream().limit(100).mapToInt(Integer::intValue).sum();
        // Zipf(0.9) over 1M: the top 100 customers (0.01 %) make a fifth of the payments
        double norm = 0;
        for (int k = 1; k <= 1_000_000; k++) {
            norm += Math.pow(k, -0.9);
        }
        double expected = 0;
        for (int k = 1; k <= 100; k++) {
            expected += Math.pow(k, -0.9) / norm * n;
        }
        assertThat(expected).isBetween(0.18 * n, 0.24 * n);
        assertThat((double) top100).isBetween(expected * 0.93, expected * 1.07);
        assertThat(byCustomer.get("cust-0000000")).isEqualTo(counts.get(0));
        // and yet most payers are seen once or twice: a long tail
        assertThat(byCustomer.size()).isGreaterThan(40_000);
    }

    @Test
    void dailyCurveAveragesOneWithAnEveningPeakAndQuietNights() {
        DailyCurve curve = DailyCurve.utc();
        double sum = 0;
        int steps = 86_400;
        for (int s = 0; s < steps; s++) {
            sum += curve.multiplierAtSecondOfDay(s);
        }
        assertThat(sum / steps).isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-3));
        Instant evening = Instant.parse("2026-11-30T19:30:00Z");
        Instant night = Instant.parse("2026-11-30T03:30:00Z");
        assertThat(curve.multiplier(evening)).isGreaterThan(2.0);
        assertThat(curve.multiplier(night)).isLessThan(0.2);
        assertThat(curve.peak()).isEqualTo(curve.multiplier(evening), org.assertj.core.data.Offset.offset(1e-9));
        // a zone offset shifts the curve: 19:30 in UTC+2 is 17:30 UTC
        assertThat(new DailyCurve(ZoneOffset.ofHours(2)).multiplier(Instant.parse("2026-11-30T17:30:00Z")))
                .isEqualTo(curve.multiplier(evening), org.assertj.core.data.Offset.offset(1e-9));
    }

    @Test
    void aSimulatedDayFollowsTheCurve() {
        double perDay = 200_000;
        PaymentGenerator generator =
                PaymentGenerator.builder(5).start(MIDNIGHT).simulateDay(perDay).build();
        int[] perHour = new int[24];
        int total = 0;
        Instant end = MIDNIGHT.plus(Duration.ofDays(1));
        Instant previous = MIDNIGHT;
        while (true) {
            Instant at = Instant.parse(json(generator.next()).get("occurredAt").asText());
            assertThat(at).isAfterOrEqualTo(previous);
            previous = at;
            if (!at.isBefore(end)) {
                break;
            }
            perHour[(int) Duration.between(MIDNIGHT, at).toHours()]++;
            total++;
        }
        assertThat((double) total).isBetween(perDay * 0.97, perDay * 1.03);
        DailyCurve curve = DailyCurve.utc();
        for (int hour : new int[] {3, 12, 19}) {
            double expected = perDay / 24 * curve.multiplier(MIDNIGHT.plus(Duration.ofMinutes(hour * 60L + 30)));
            assertThat((double) perHour[hour]).as("hour " + hour).isBetween(expected * 0.85, expected * 1.15);
        }
        assertThat(perHour[19]).isGreaterThan(10 * perHour[3]);
    }

    @Test
    void amountsCurrenciesAndMerchantsLookLikeCardPayments() {
        PaymentGenerator generator = PaymentGenerator.builder(8).build();
        Map<String, Integer> currencies = new HashMap<>();
        List<Double> coffee = new ArrayList<>();
        List<Double> flights = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            JsonNode p = json(generator.next()).get("payload");
            String currency = p.get("currency").asText();
            currencies.merge(currency, 1, Integer::sum);
            assertThat(currency)
                    .isEqualTo(PaymentGenerator.currency(p.get("country").asText()));
            double amount = p.get("amount").asDouble();
            assertThat(amount).isGreaterThan(0);
            String mcc = p.at("/merchant/category").asText();
            if (mcc.equals("6011")) {
                assertThat(amount % 10).isZero();
                assertThat(p.get("channel").asText()).isEqualTo("ATM");
            } else if (mcc.equals("5814") && currency.equals("EUR")) {
                coffee.add(amount);
            } else if (mcc.equals("4511") && currency.equals("EUR")) {
                flights.add(amount);
            }
        }
        assertThat(currencies.get("EUR")).isGreaterThan(10_000);
        assertThat(currencies).containsKeys("GBP", "PLN", "USD");
        assertThat(median(coffee)).isBetween(3.5, 6.0);
        assertThat(median(flights)).isBetween(250.0, 500.0);
    }

    @Test
    void badSettingsAreRefused() {
        assertThatThrownBy(() -> PaymentGenerator.builder(1).customers(0).build())
                .hasMessage("customers must be positive");
        assertThatThrownBy(() -> PaymentGenerator.builder(1).invalidShare(-0.1).build())
                .hasMessage("invalidShare must be between 0 and 1");
        assertThatThrownBy(() -> PaymentGenerator.builder(1).simulateDay(0).build())
                .hasMessage("eventsPerDay must be above 0");
        assertThatThrownBy(() -> new ZipfSampler(10, 0)).hasMessage("exponent must be above 0");
    }

    private static double median(List<Double> values) {
        assertThat(values).hasSizeGreaterThan(50);
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(Double::compare);
        return sorted.get(sorted.size() / 2);
    }
}
