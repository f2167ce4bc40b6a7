package dev.sluice.core.window;

import static dev.sluice.core.window.AggregateFunction.COUNT;
import static dev.sluice.core.window.AggregateFunction.MAX;
import static dev.sluice.core.window.AggregateFunction.MIN;
import static dev.sluice.core.window.AggregateFunction.SUM;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.lang.management.ManagementFactory;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TumblingWindowsTest {

    static final String SHARD = "shardId-000000000003";
    static final Set<AggregateFunction> ALL = EnumSet.allOf(AggregateFunction.class);
    static final Instant T10 = Instant.parse("2026-11-30T10:00:00Z");

    static TumblingWindows minute(Set<AggregateFunction> functions) {
        return new TumblingWindows("spend-per-minute", Duration.ofMinutes(1), Duration.ofSeconds(30), functions);
    }

    static Instant at(String time) {
        return Instant.parse("2026-11-30T" + time + "Z");
    }

    static BigDecimal dec(String value) {
        return new BigDecimal(value);
    }

    @Nested
    class WindowBoundaries {

        private final TumblingWindows windows = minute(ALL);

        @Test
        void eventExactlyAtWindowStartBelongsToThatWindow() {
            assertThat(windows.windowStart(T10)).isEqualTo(T10);
        }

        @Test
        void eventOneNanosecondBeforeTheEndBelongsToThatWindow() {
            assertThat(windows.windowStart(T10.plusSeconds(60).minusNanos(1))).isEqualTo(T10);
        }

        @Test
        void eventExactlyAtTheEndOpensTheNextWindow() {
            assertThat(windows.windowStart(T10.plusSeconds(60))).isEqualTo(T10.plusSeconds(60));
        }

        @Test
        void partialsCarryTheWindowWithAnExclusiveEnd() {
            TumblingWindows.Batch batch = windows.startBatch();
            batch.add("k", T10.plusSeconds(60).minusNanos(1), dec("1"), T10.plusSeconds(60), SHARD, "1");
            batch.add("k", T10.plusSeconds(60), dec("2"), T10.plusSeconds(60), SHARD, "2");

            List<PartialAggregate> partials = batch.finish();

            assertThat(partials)
                    .extracting(PartialAggregate::windowStart, PartialAggregate::windowEnd, PartialAggregate::count)
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple(T10, T10.plusSeconds(60), 1L),
                            org.assertj.core.groups.Tuple.tuple(T10.plusSeconds(60), T10.plusSeconds(120), 1L));
            assertThat(partials.get(0).window()).isEqualTo("2026-11-30T10:00:00Z/PT1M");
        }

        @ParameterizedTest(name = "{0}: {1} -> [{2}, {3})")
        @CsvSource({
            "PT1M, 2026-11-30T10:07:42.500Z, 2026-11-30T10:07:00Z, 2026-11-30T10:08:00Z",
            "PT5M, 2026-11-30T10:07:42.500Z, 2026-11-30T10:05:00Z, 2026-11-30T10:10:00Z",
            "PT1H, 2026-11-30T10:07:42.500Z, 2026-11-30T10:00:00Z, 2026-11-30T11:00:00Z",
            "P1D, 2026-11-30T10:07:42.500Z, 2026-11-30T00:00:00Z, 2026-12-01T00:00:00Z",
            "PT1M, 1969-12-31T23:59:30Z, 1969-12-31T23:59:00Z, 1970-01-01T00:00:00Z",
            "P1D, 1969-12-31T23:59:59.999999999Z, 1969-12-31T00:00:00Z, 1970-01-01T00:00:00Z",
            "PT0.25S, 2026-11-30T10:07:42.600Z, 2026-11-30T10:07:42.500Z, 2026-11-30T10:07:42.750Z",
        })
        void windowsOfAnySizeAreAlignedToTheEpoch(Duration size, Instant event, Instant start, Instant end) {
            TumblingWindows sized = new TumblingWindows("w", size, Duration.ZERO, Set.of(COUNT));
            assertThat(sized.windowStart(event)).isEqualTo(start);

            TumblingWindows.Batch batch = sized.startBatch();
            assertThat(batch.add("k", event, null, event, SHARD, "7")).isSameAs(Verdict.ACCEPTED);
            PartialAggregate partial = batch.finish().get(0);
            assertThat(partial.windowStart()).isEqualTo(start);
            assertThat(partial.windowEnd()).isEqualTo(end);
        }
    }

    @Nested
    class Settings {

        @ParameterizedTest
        @CsvSource({"PT0S", "-PT1M", "PT-0.001S"})
        void zeroOrNegativeSizeIsRejected(Duration size) {
            assertThatThrownBy(() -> new TumblingWindows("w", size, Duration.ZERO, Set.of(COUNT)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("window size must be positive");
        }

        @Test
        void sizeFinerThanAMillisecondIsRejected() {
            assertThatThrownBy(
                            () -> new TumblingWindows("w", Duration.ofNanos(1_500_000), Duration.ZERO, Set.of(COUNT)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("not a whole number of milliseconds");
        }

        @Test
        void sizeBeyondACenturyIsRejected() {
            assertThatThrownBy(() -> new TumblingWindows(
                            "w", TumblingWindows.MAX_SIZE.plusDays(1), Duration.ZERO, Set.of(COUNT)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("longer than");
            assertThat(new TumblingWindows("w", TumblingWindows.MAX_SIZE, Duration.ZERO, Set.of(COUNT)).size())
                    .isEqualTo(TumblingWindows.MAX_SIZE);
        }

        @Test
        void negativeLatenessIsRejected() {
            assertThatThrownBy(() -> new TumblingWindows("w", Duration.ofMinutes(1), Duration.ofMillis(-1), ALL))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("allowed lateness must be zero or more");
        }

        @Test
        void anAggregateComputesSomething() {
            assertThatThrownBy(() -> new TumblingWindows("w", Duration.ofMinutes(1), Duration.ZERO, Set.of()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("COUNT, SUM, MIN, MAX");
            assertThatThrownBy(() -> new TumblingWindows(" ", Duration.ofMinutes(1), Duration.ZERO, ALL))
                    .isInstanceOf(IllegalArgumentException.class);
        }

        @Test
        void settingsAreKept() {
            TumblingWindows windows = minute(EnumSet.of(MAX, COUNT));
            assertThat(windows.name()).isEqualTo("spend-per-minute");
            assertThat(windows.size()).isEqualTo(Duration.ofMinutes(1));
            assertThat(windows.allowedLateness()).isEqualTo(Duration.ofSeconds(30));
            assertThat(windows.functions()).containsExactly(COUNT, MAX);
            assertThat(windows.needsValue()).isTrue();
            assertThat(minute(Set.of(COUNT)).needsValue()).isFalse();
        }
    }

    @Nested
    class Lateness {

        private final TumblingWindows windows = minute(ALL);

        @Test
        void eventArrivingExactlyAtTheLatenessLimitIsOnTime() {
            TumblingWindows.Batch batch = windows.startBatch();

            Verdict verdict = batch.add("k", at("10:00:59.999"), dec("1"), at("10:01:30"), SHARD, "1");

            assertThat(verdict).isSameAs(Verdict.ACCEPTED);
            assertThat(verdict.accepted()).isTrue();
            assertThat(batch.finish()).hasSize(1);
        }

        @Test
        void eventArrivingOneMillisecondAfterTheLimitIsLate() {
            TumblingWindows.Batch batch = windows.startBatch();

            Verdict verdict = batch.add("k", at("10:00:00"), dec("1"), at("10:01:30.001"), SHARD, "1");

            assertThat(verdict.kind()).isEqualTo(Verdict.Kind.LATE);
            Verdict.Late late = (Verdict.Late) verdict;
            assertThat(late.lateBy()).isEqualTo(Duration.ofMillis(1));
            assertThat(late.limit()).isEqualTo(at("10:01:30"));
            assertThat(batch.finish()).isEmpty();
            assertThat(batch.lateCount()).isEqualTo(1);
            assertThat(batch.acceptedCount()).isZero();
        }

        @Test
        void lateDetailNamesTheWindowAndByHowMuch() {
            Verdict verdict = windows.startBatch().add("k", at("10:00:42"), dec("1"), at("10:02:13"), SHARD, "1");

            assertThat(verdict.accepted()).isFalse();
            assertThat(verdict.detail())
                    .isEqualTo(
                            "aggregate 'spend-per-minute': window 2026-11-30T10:00:00Z/PT1M closed at"
                                    + " 2026-11-30T10:01:00Z + PT30S lateness; record arrived 2026-11-30T10:02:13Z, PT43S late");
        }

        @Test
        void withoutLatenessAnEventArrivingAtTheWindowEndIsOnTimeAndOneNanosecondLaterIsLate() {
            TumblingWindows strict = new TumblingWindows("w", Duration.ofMinutes(1), Duration.ZERO, Set.of(COUNT));
            TumblingWindows.Batch batch = strict.startBatch();

            assertThat(batch.add("k", at("10:00:10"), null, at("10:01:00"), SHARD, "1"))
                    .isSameAs(Verdict.ACCEPTED);
            assertThat(batch.add("k", at("10:00:10"), null, at("10:01:00").plusNanos(1), SHARD, "2")
                            .kind())
                    .isEqualTo(Verdict.Kind.LATE);
        }

        @Test
        void lateEventOpensNoWindowAndLeavesItsNeighboursAlone() {
            TumblingWindows.Batch batch = windows.startBatch();
            batch.add("k", at("10:01:05"), dec("5"), at("10:01:06"), SHARD, "1");
            batch.add("k", at("10:00:05"), dec("7"), at("10:01:31"), SHARD, "2");
            batch.add("k", at("10:01:10"), dec("3"), at("10:01:31"), SHARD, "3");

            List<PartialAggregate> partials = batch.finish();

            assertThat(partials).hasSize(1);
            PartialAggregate partial = partials.get(0);
            assertThat(partial.windowStart()).isEqualTo(at("10:01:00"));
            assertThat(partial.count()).isEqualTo(2);
            assertThat(partial.sum()).isEqualByComparingTo("8");
            assertThat(partial.firstSequenceNumber()).isEqualTo("1");
            assertThat(partial.lastSequenceNumber()).isEqualTo("3");
        }

        @Test
        void recordWithoutArrivalTimeIsJudgedByTheClockReadOncePerBatch() {
            AtomicInteger reads = new AtomicInteger();
            Clock clock = new Clock() {
                @Override
                public java.time.ZoneId getZone() {
                    return ZoneOffset.UTC;
                }

                @Override
                public Clock withZone(java.time.ZoneId zone) {
                    return this;
                }

                @Override
                public Instant instant() {
                    reads.incrementAndGet();
                    return at("10:02:00");
                }
            };
            TumblingWindows windows =
                    new TumblingWindows("w", Duration.ofMinutes(1), Duration.ofSeconds(30), Set.of(COUNT), clock);
            TumblingWindows.Batch batch = windows.startBatch();

            Verdict late = batch.add("k", at("10:00:10"), null, null, SHARD, "1");
            Verdict onTime = batch.add("k", at("10:01:10"), null, null, SHARD, "2");
            batch.add("k", at("10:01:20"), null, at("10:01:21"), SHARD, "3");

            assertThat(late.detail())
                    .isEqualTo("aggregate 'w': window 2026-11-30T10:00:00Z/PT1M closed at 2026-11-30T10:01:00Z"
                            + " + PT30S lateness; record had no arrival time and was processed at"
                            + " 2026-11-30T10:02:00Z, PT30S late");
            assertThat(((Verdict.Late) late).arrivalFromClock()).isTrue();
            assertThat(onTime).isSameAs(Verdict.ACCEPTED);
            assertThat(reads).hasValue(1);
        }

        @Test
        void hugeLatenessNeverMakesAnEventLate() {
            TumblingWindows lenient = new TumblingWindows(
                    "w", Duration.ofMinutes(1), Duration.ofSeconds(Long.MAX_VALUE, 999_999_999), Set.of(COUNT));

            assertThat(lenient.startBatch().add("k", at("10:00:00"), null, Instant.MAX, SHARD, "1"))
                    .isSameAs(Verdict.ACCEPTED);
        }
    }

    @Nested
    class Aggregates {

        @Test
        void decimalsAddUpExactly() {
            TumblingWindows.Batch batch = minute(ALL).startBatch();
            batch.add("k", at("10:00:01"), dec("0.1"), at("10:00:01"), SHARD, "1");
            batch.add("k", at("10:00:02"), dec("0.2"), at("10:00:02"), SHARD, "2");

            PartialAggregate partial = batch.finish().get(0);

            assertThat(partial.sum()).isEqualTo(dec("0.30")); // two decimals, the default scale
            assertThat(partial.min()).isEqualTo(dec("0.10"));
            assertThat(partial.max()).isEqualTo(dec("0.20"));
            assertThat(partial.count()).isEqualTo(2);
        }

        @Test
        void countSumMinMaxPerKeyAndWindow() {
            TumblingWindows.Batch batch = minute(ALL).startBatch();
            batch.add("cust-2", at("10:00:05"), dec("19.99"), at("10:00:06"), SHARD, "11");
            batch.add("cust-1", at("10:00:07"), dec("-5.00"), at("10:00:08"), SHARD, "12");
            batch.add("cust-2", at("10:00:09"), dec("0.01"), at("10:00:10"), SHARD, "13");
            batch.add("cust-2", at("10:00:59.5"), dec("1000000000000000000000.05"), at("10:01:01"), SHARD, "14");
            batch.add("cust-1", at("10:01:00"), dec("2.50"), at("10:01:01"), SHARD, "15");
            batch.add("cust-2", at("10:00:30"), dec("-0.50"), at("10:01:02"), SHARD, "16");

            List<PartialAggregate> partials = batch.finish();

            assertThat(partials)
                    .containsExactly(
                            new PartialAggregate(
                                    "spend-per-minute",
                                    "cust-1",
                                    at("10:00:00"),
                                    at("10:01:00"),
                                    1,
                                    dec("-5.00"),
                                    dec("-5.00"),
                                    dec("-5.00"),
                                    SHARD,
                                    "12",
                                    "12",
                                    Contributions.of(List.of("12"), List.of(dec("-5.00")))),
                            new PartialAggregate(
                                    "spend-per-minute",
                                    "cust-2",
                                    at("10:00:00"),
                                    at("10:01:00"),
                                    4,
                                    dec("1000000000000000000019.55"),
                                    dec("-0.50"),
                                    dec("1000000000000000000000.05"),
                                    SHARD,
                                    "11",
                                    "16",
                                    Contributions.of(
                                            List.of("11", "13", "14", "16"),
                                            List.of(
                                                    dec("19.99"),
                                                    dec("0.01"),
                                                    dec("1000000000000000000000.05"),
                                                    dec("-0.50")))),
                            new PartialAggregate(
                                    "spend-per-minute",
                                    "cust-1",
                                    at("10:01:00"),
                                    at("10:02:00"),
                                    1,
                                    dec("2.50"),
                                    dec("2.50"),
                                    dec("2.50"),
                                    SHARD,
                                    "15",
                                    "15",
                                    Contributions.of(List.of("15"), List.of(dec("2.50")))));
        }

        @Test
        void countOnlyIgnoresValuesAndCarriesNoSumMinOrMax() {
            TumblingWindows.Batch batch = minute(Set.of(COUNT)).startBatch();
            batch.add("k", at("10:00:01"), null, at("10:00:01"), SHARD, "1");
            batch.add("k", at("10:00:02"), dec("3"), at("10:00:02"), SHARD, "2");

            PartialAggregate partial = batch.finish().get(0);

            assertThat(partial.count()).isEqualTo(2);
            assertThat(partial.sum()).isNull();
            assertThat(partial.min()).isNull();
            assertThat(partial.max()).isNull();
        }

        @Test
        void onlyTheRequestedFunctionsAreCarried() {
            TumblingWindows.Batch batch = minute(EnumSet.of(SUM, MIN)).startBatch();
            batch.add("k", at("10:00:01"), dec("4"), at("10:00:01"), SHARD, "1");
            batch.add("k", at("10:00:02"), dec("3"), at("10:00:02"), SHARD, "2");

            PartialAggregate partial = batch.finish().get(0);

            assertThat(partial.count()).isEqualTo(2);
            assertThat(partial.sum()).isEqualTo(dec("7.00"));
            assertThat(partial.min()).isEqualTo(dec("3.00"));
            assertThat(partial.max()).isNull();
        }

        @Test
        void missingValueIsInvalidWhenSumMinOrMaxNeedIt() {
            TumblingWindows.Batch batch = minute(EnumSet.of(COUNT, SUM, MAX)).startBatch();
            batch.add("k", at("10:00:01"), dec("4"), at("10:00:01"), SHARD, "1");

            Verdict verdict = batch.add("k", at("10:00:02"), null, at("10:00:02"), SHARD, "2");

            assertThat(verdict.kind()).isEqualTo(Verdict.Kind.INVALID);
            assertThat(verdict.detail())
                    .isEqualTo("aggregate 'spend-per-minute' computes SUM, MAX and needs a value; the event has none");
            assertThat(batch.invalidCount()).isEqualTo(1);
            PartialAggregate partial = batch.finish().get(0);
            assertThat(partial.count()).isEqualTo(1);
            assertThat(partial.lastSequenceNumber()).isEqualTo("1");
        }

        @Test
        void eventTimeOutOfRangeIsInvalid() {
            TumblingWindows windows = minute(Set.of(COUNT));

            Verdict verdict = windows.startBatch().add("k", Instant.MAX, null, T10, SHARD, "1");

            assertThat(verdict.kind()).isEqualTo(Verdict.Kind.INVALID);
            assertThat(verdict.detail()).contains("out of the range");
            assertThatThrownBy(() -> windows.windowStart(Instant.MIN)).isInstanceOf(IllegalArgumentException.class);
        }

        @Test
        void partialsAreOrderedByWindowStartThenKey() {
            TumblingWindows.Batch batch = minute(Set.of(COUNT)).startBatch();
            String[][] events = {
                {"b", "10:02:00"}, {"a", "10:01:00"}, {"c", "10:00:00"}, {"a", "10:02:00"}, {"b", "10:00:00"}
            };
            int sequence = 1;
            for (String[] event : events) {
                batch.add(event[0], at(event[1]), null, at(event[1]), SHARD, Integer.toString(sequence++));
            }

            assertThat(batch.finish())
                    .extracting(p -> p.windowStart().toString().substring(11, 16) + " " + p.key())
                    .containsExactly("10:00 b", "10:00 c", "10:01 a", "10:02 a", "10:02 b");
        }

        @Test
        void manyKeysAndWindowsEachGetTheirPartial() {
            TumblingWindows.Batch batch = minute(EnumSet.of(COUNT, SUM)).startBatch();
            for (int i = 0; i < 10_000; i++) {
                Instant time = T10.plusSeconds(i % 600);
                batch.add("key-" + (i % 97), time, BigDecimal.ONE, time, SHARD, Integer.toString(i + 1));
            }

            List<PartialAggregate> partials = batch.finish();

            assertThat(partials.stream().mapToLong(PartialAggregate::count).sum())
                    .isEqualTo(10_000);
            assertThat(partials.stream().map(PartialAggregate::sum).reduce(BigDecimal.ZERO, BigDecimal::add))
                    .isEqualTo(dec("10000.00"));
            assertThat(partials).hasSize(97 * 10);
        }
    }

    @Nested
    class PrecisionAndScale {

        private final TumblingWindows cents = minute(ALL);

        @Test
        void valuesAreKeptWithExactlyTheDeclaredDecimals() {
            TumblingWindows.Batch batch = cents.startBatch();
            batch.add("k", at("10:00:01"), dec("42.9"), at("10:00:01"), SHARD, "1");
            batch.add("k", at("10:00:02"), dec("1E+2"), at("10:00:02"), SHARD, "2");
            batch.add("k", at("10:00:03"), dec("0.0100"), at("10:00:03"), SHARD, "3");

            PartialAggregate partial = batch.finish().get(0);

            assertThat(cents.scale()).isEqualTo(TumblingWindows.DEFAULT_SCALE).isEqualTo(2);
            assertThat(partial.sum().toPlainString()).isEqualTo("142.91");
            assertThat(partial.min().toPlainString()).isEqualTo("0.01");
            assertThat(partial.max().toPlainString()).isEqualTo("100.00");
            assertThat(partial.contributions().value(0).toPlainString()).isEqualTo("42.90");
        }

        @ParameterizedTest
        @CsvSource({"1E-40", "1E-31", "0.001", "12.345", "1E+37", "12345678901234567890123456789012345678.9"})
        void aValueWithMoreDecimalsOrDigitsThanDeclaredIsInvalidNeverRounded(String value) {
            TumblingWindows.Batch batch = cents.startBatch();
            batch.add("k", at("10:00:01"), dec("5.00"), at("10:00:01"), SHARD, "1");

            Verdict verdict = batch.add("k", at("10:00:02"), dec(value), at("10:00:02"), SHARD, "2");

            assertThat(verdict.kind()).isEqualTo(Verdict.Kind.INVALID);
            assertThat(verdict.detail())
                    .contains("at most 2 decimals and 38 digits")
                    .contains(value);
            PartialAggregate partial = batch.finish().get(0);
            assertThat(partial.count()).isEqualTo(1);
            assertThat(partial.sum().toPlainString()).isEqualTo("5.00");
        }

        @Test
        void theLargestValueThatFitsIsAccepted() {
            String largest = "9".repeat(36) + ".99";
            TumblingWindows.Batch batch = cents.startBatch();

            assertThat(batch.add("k", at("10:00:01"), dec(largest), at("10:00:01"), SHARD, "1"))
                    .isEqualTo(Verdict.ACCEPTED);
            assertThat(batch.finish().get(0).sum().toPlainString()).isEqualTo(largest);
        }

        @Test
        void aWholeNumberAggregateRefusesFractions() {
            TumblingWindows whole = new TumblingWindows(
                    "durations", Duration.ofMinutes(1), Duration.ZERO, Set.of(SUM), 0, Clock.systemUTC());
            TumblingWindows.Batch batch = whole.startBatch();

            assertThat(batch.add("k", at("10:00:01"), dec("1.5"), at("10:00:01"), SHARD, "1")
                            .kind())
                    .isEqualTo(Verdict.Kind.INVALID);
            assertThat(batch.add("k", at("10:00:02"), dec("1500.00"), at("10:00:02"), SHARD, "2"))
                    .isEqualTo(Verdict.ACCEPTED);
            assertThat(batch.finish().get(0).sum().toPlainString()).isEqualTo("1500");
        }

        @ParameterizedTest
        @CsvSource({"-1", "38"})
        void aScaleOutsideThePrecisionIsRejected(int scale) {
            assertThatThrownBy(() -> new TumblingWindows(
                            "w", Duration.ofMinutes(1), Duration.ZERO, ALL, scale, Clock.systemUTC()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("scale");
        }

        @ParameterizedTest
        @CsvSource({
            "99999999999999999999999999999999999999, 0, true",
            "999999999999999999999999999999999999.99, 2, true",
            "1000000000000000000000000000000000000.00, 2, false",
            "0.001, 2, false",
            "1E+36, 2, false",
            "1E+35, 2, true"
        })
        void fitsTellsWhetherATotalStaysWithinThePrecision(String value, int scale, boolean fits) {
            assertThat(TumblingWindows.fits(dec(value), scale)).isEqualTo(fits);
        }
    }

    @Nested
    class Positions {

        private final TumblingWindows windows = minute(Set.of(COUNT));

        @Test
        void partialCarriesTheShardAndItsFirstAndLastSequenceNumbers() {
            TumblingWindows.Batch batch = windows.startBatch();
            String base = "4959033827149025660855969253836157109592157598913658";
            batch.add("a", at("10:00:01"), null, at("10:00:01"), SHARD, base + "8890");
            batch.add("b", at("10:00:02"), null, at("10:00:02"), SHARD, base + "8891");
            batch.add("a", at("10:00:03"), null, at("10:00:03"), SHARD, base + "8892");
            batch.add("a", at("10:00:04"), null, at("10:00:04"), SHARD, base + "8893");

            List<PartialAggregate> partials = batch.finish();

            assertThat(partials)
                    .extracting(
                            PartialAggregate::key,
                            PartialAggregate::shardId,
                            PartialAggregate::firstSequenceNumber,
                            PartialAggregate::lastSequenceNumber)
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple("a", SHARD, base + "8890", base + "8893"),
                            org.assertj.core.groups.Tuple.tuple("b", SHARD, base + "8891", base + "8891"));
        }

        @Test
        void sequenceNumbersCompareAsNumbersNotAsText() {
            TumblingWindows.Batch batch = windows.startBatch();
            batch.add("a", at("10:00:01"), null, at("10:00:01"), SHARD, "100");
            batch.add("a", at("10:00:02"), null, at("10:00:02"), SHARD, "99");
            batch.add("a", at("10:00:03"), null, at("10:00:03"), SHARD, "1000");

            PartialAggregate partial = batch.finish().get(0);

            assertThat(partial.firstSequenceNumber()).isEqualTo("99");
            assertThat(partial.lastSequenceNumber()).isEqualTo("1000");
        }

        @Test
        void aBatchHoldsTheRecordsOfOneShard() {
            TumblingWindows.Batch batch = windows.startBatch();
            batch.add("a", at("10:00:01"), null, at("10:00:01"), SHARD, "1");

            assertThatThrownBy(() -> batch.add("a", at("10:00:01"), null, at("10:00:01"), "shardId-000000000004", "2"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("one shard");
        }

        @Test
        void malformedSequenceNumberIsRefused() {
            TumblingWindows.Batch batch = windows.startBatch();
            for (String bad : List.of("", "007", "12a", "1".repeat(130), "-1")) {
                assertThatThrownBy(() -> batch.add("a", T10, null, T10, SHARD, bad))
                        .as(bad)
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("not a Kinesis sequence number");
            }
        }

        @Test
        void redeliveredBatchYieldsIdenticalPartials() {
            TumblingWindows all = minute(ALL);
            List<PartialAggregate> first = feed(all.startBatch());
            List<PartialAggregate> again = feed(all.startBatch());

            assertThat(again).isEqualTo(first).isNotEmpty();
        }

        private List<PartialAggregate> feed(TumblingWindows.Batch batch) {
            batch.add("a", at("10:00:01"), dec("1.10"), at("10:00:01"), SHARD, "1");
            batch.add("b", at("10:00:02"), dec("2.20"), at("10:00:02"), SHARD, "2");
            batch.add("a", at("09:58:03"), dec("3.30"), at("10:00:03"), SHARD, "3");
            batch.add("a", at("10:01:04"), dec("4.40"), at("10:01:04"), SHARD, "4");
            return batch.finish();
        }
    }

    @Nested
    class Lifecycle {

        @Test
        void finishIsFinal() {
            TumblingWindows.Batch batch = minute(Set.of(COUNT)).startBatch();
            batch.add("a", T10, null, T10, SHARD, "1");
            List<PartialAggregate> partials = batch.finish();

            assertThat(batch.finish()).isSameAs(partials);
            assertThatThrownBy(() -> batch.add("a", T10, null, T10, SHARD, "2"))
                    .isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> partials.add(partials.get(0))).isInstanceOf(UnsupportedOperationException.class);
        }

        @Test
        void emptyBatchHasNoPartials() {
            assertThat(minute(ALL).startBatch().finish()).isEmpty();
        }

        @Test
        void acceptingIntoAKnownWindowAllocatesOnlyTheSumAndAmortisedContributionSlots() {
            java.lang.management.ThreadMXBean bean = ManagementFactory.getThreadMXBean();
            assumeThat(bean).isInstanceOf(com.sun.management.ThreadMXBean.class);
            com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) bean;
            assumeThat(threads.isThreadAllocatedMemorySupported()).isTrue();
            threads.setThreadAllocatedMemoryEnabled(true);

            // each event's contribution (sequence number, and value when one is computed) goes into
            // arrays grown by doubling: amortised, at most two slots per array per event, i.e. at most
            // 16 bytes per array even with uncompressed references; no object per event
            assertThat(bytesPerEvent(threads, minute(EnumSet.of(COUNT)))).isLessThanOrEqualTo(16.0);
            assertThat(bytesPerEvent(threads, minute(EnumSet.of(COUNT, MIN, MAX))))
                    .isLessThanOrEqualTo(32.0);
            // BigDecimal is immutable: each added value makes one new sum (about 40 bytes)
            assertThat(bytesPerEvent(threads, minute(ALL))).isLessThan(64.0 + 32.0);
        }

        private double bytesPerEvent(com.sun.management.ThreadMXBean threads, TumblingWindows windows) {
            int events = 20_000;
            String[] keys = {"a", "b", "c", "d"};
            Instant[] times = {at("10:00:01"), at("10:00:31"), at("10:01:01"), at("10:01:31")};
            BigDecimal[] values = {dec("1.25"), dec("-3.50"), dec("7.00"), dec("0.01")};
            String[] sequences = new String[events];
            for (int i = 0; i < events; i++) {
                sequences[i] = Integer.toString(100_000 + i);
            }
            long threadId = Thread.currentThread().getId();
            double least = Double.MAX_VALUE;
            for (int round = 0; round < 5; round++) {
                TumblingWindows.Batch batch = windows.startBatch();
                for (int k = 0; k < keys.length; k++) {
                    for (Instant time : times) {
                        batch.add(keys[k], time, values[k], time, SHARD, sequences[0]);
                    }
                }
                long before = threads.getThreadAllocatedBytes(threadId);
                for (int i = 0; i < events; i++) {
                    batch.add(keys[i & 3], times[(i >> 2) & 3], values[i & 3], times[0], SHARD, sequences[i]);
                }
                long allocated = threads.getThreadAllocatedBytes(threadId) - before;
                least = Math.min(least, (double) allocated / events);
                assertThat(batch.finish()).hasSize(8); // four keys in two windows
            }
            return least;
        }
    }
}
