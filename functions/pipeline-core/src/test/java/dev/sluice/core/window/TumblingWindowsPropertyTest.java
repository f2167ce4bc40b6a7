package dev.sluice.core.window;

import static dev.sluice.core.testing.Theories.assertFalsified;
import static dev.sluice.core.testing.Theories.qt;
import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.longs;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.BinaryOperator;
import java.util.function.Function;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.quicktheories.api.Pair;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * However a shard's records are cut into batches (retries, bisection, different batch sizes), the
 * partials add up to the same aggregate and the same events are late: the properties the DynamoDB
 * aggregate sink's exactly-once guard relies on.
 *
 * <p>QuickTheories, 1,000 examples per property, fixed seed ({@link dev.sluice.core.testing.Theories}). Each
 * property takes the {@link Implementation} under test; {@link BrokenImplementationsAreCaught} runs
 * each against a deliberately broken one, which it must falsify.
 */
class TumblingWindowsPropertyTest {

    static final Instant BASE = Instant.parse("2026-11-30T10:00:00Z");
    static final Duration SIZE = Duration.ofMinutes(1);
    static final Duration LATENESS = Duration.ofSeconds(20);
    /** Read for records without an arrival time: 10:02:30, after the first window's limit. */
    static final Clock CLOCK = Clock.fixed(BASE.plusSeconds(150), ZoneOffset.UTC);

    static final String SHARD = "shardId-000000000007";
    static final int MAX_EVENTS = 150;
    static final int TRIES = 1000;

    /** One record of the shard, in shard order. */
    record Event(String key, Instant time, BigDecimal value, Instant arrivedAt, String sequenceNumber) {}

    /** What one batch produced. */
    record Outcome(List<PartialAggregate> partials, List<Verdict> verdicts) {}

    /** One windows instance: runs one batch of a shard's records at a time. */
    interface Windows {
        Outcome run(List<Event> events);
    }

    /**
     * What the properties exercise: a new windows instance for a set of functions, the merge of two
     * partials, and the restriction of a partial to the records after a watermark.
     */
    record Implementation(
            Function<Set<AggregateFunction>, Windows> windows,
            BinaryOperator<PartialAggregate> merge,
            BiFunction<PartialAggregate, String, Optional<PartialAggregate>> after) {

        Implementation withWindows(Function<Set<AggregateFunction>, Windows> other) {
            return new Implementation(other, merge, after);
        }

        Implementation withMerge(BinaryOperator<PartialAggregate> other) {
            return new Implementation(windows, other, after);
        }

        Implementation withAfter(BiFunction<PartialAggregate, String, Optional<PartialAggregate>> other) {
            return new Implementation(windows, merge, other);
        }
    }

    /** The real thing: {@link TumblingWindows}, {@link PartialAggregate#merge}, {@link PartialAggregate#after}. */
    static final Implementation REAL = new Implementation(
            functions -> {
                TumblingWindows windows = windows(functions);
                return events -> run(windows, events);
            },
            PartialAggregate::merge,
            PartialAggregate::after);

    @Test
    void mergedPartialsOfAnySplitEqualThePartialsOfOneBatch() {
        mergedPartialsOfAnySplitEqualThePartialsOfOneBatch(REAL);
    }

    @Test
    void theSameEventsAreLateHoweverTheListIsSplit() {
        theSameEventsAreLateHoweverTheListIsSplit(REAL);
    }

    @Test
    void redeliveringAPrefixBatchYieldsIdenticalPartials() {
        redeliveringAPrefixBatchYieldsIdenticalPartials(REAL);
    }

    @Test
    void everyEventIsCountedOnceOrReported() {
        everyEventIsCountedOnceOrReported(REAL);
    }

    @Test
    void restrictingPartialsToAfterAWatermarkEqualsAggregatingOnlyTheRecordsAfterIt() {
        restrictingPartialsToAfterAWatermarkEqualsAggregatingOnlyTheRecordsAfterIt(REAL);
    }

    @Test
    void watermarkGuardedApplyOfAnyRedeliveryScheduleCountsEachRecordOnce() {
        watermarkGuardedApplyOfAnyRedeliveryScheduleCountsEachRecordOnce(REAL);
    }

    // ------------------------------------------------------------------------------------------
    // the properties

    static void mergedPartialsOfAnySplitEqualThePartialsOfOneBatch(Implementation impl) {
        int[] batchCounts = new int[3]; // 1, 2-3, 4+
        qt(TRIES).forAll(functions(), events(), batchSizes()).checkAssert((functions, events, batchSizes) -> {
            Windows windows = impl.windows().apply(functions);
            List<PartialAggregate> whole = windows.run(events).partials;

            Map<String, PartialAggregate> merged = new LinkedHashMap<>();
            List<List<Event>> batches = split(events, batchSizes);
            for (List<Event> batch : batches) {
                for (PartialAggregate partial : windows.run(batch).partials) {
                    merged.merge(partial.windowStart() + " " + partial.key(), partial, impl.merge());
                }
            }
            List<PartialAggregate> recombined = new ArrayList<>(merged.values());
            recombined.sort(Comparator.comparing(PartialAggregate::windowStart).thenComparing(PartialAggregate::key));

            assertThat(recombined).isEqualTo(whole);
            batchCounts[batches.size() == 1 ? 0 : batches.size() <= 3 ? 1 : 2]++;
        });
        assertThat(percent(batchCounts[2]))
                .as("%% of examples split into 4+ batches")
                .isGreaterThan(10);
    }

    static void theSameEventsAreLateHoweverTheListIsSplit(Implementation impl) {
        int[] noneLate = new int[1];
        qt(TRIES).forAll(functions(), events(), batchSizes()).checkAssert((functions, events, batchSizes) -> {
            Windows windows = impl.windows().apply(functions);
            List<Verdict> whole = windows.run(events).verdicts;

            List<Verdict> pieced = new ArrayList<>();
            for (List<Event> batch : split(events, batchSizes)) {
                pieced.addAll(windows.run(batch).verdicts);
            }

            assertThat(pieced).isEqualTo(whole);
            noneLate[0] += whole.stream().noneMatch(v -> v.kind() == Verdict.Kind.LATE) ? 1 : 0;
        });
        assertThat(percent(noneLate[0]))
                .as("%% of examples without a late event")
                .isLessThan(50);
    }

    static void redeliveringAPrefixBatchYieldsIdenticalPartials(Implementation impl) {
        qt(TRIES)
                .forAll(functions(), events(), Generate.range(0, MAX_EVENTS))
                .checkAssert((functions, events, prefixLength) -> {
                    Windows windows = impl.windows().apply(functions);
                    List<Event> prefix = events.subList(0, Math.min(prefixLength, events.size()));
                    Outcome first = windows.run(prefix);

                    windows.run(events.subList(prefix.size(), events.size())); // the rest of the shard meanwhile
                    Outcome redelivered = windows.run(prefix);
                    Outcome onAnotherInstance = impl.windows().apply(functions).run(prefix);

                    assertThat(redelivered.partials).isEqualTo(first.partials);
                    assertThat(redelivered.verdicts).isEqualTo(first.verdicts);
                    assertThat(onAnotherInstance.partials).isEqualTo(first.partials);
                });
    }

    static void everyEventIsCountedOnceOrReported(Implementation impl) {
        qt(TRIES).forAll(functions(), events()).checkAssert((functions, events) -> {
            Outcome outcome = impl.windows().apply(functions).run(events);

            long counted =
                    outcome.partials.stream().mapToLong(PartialAggregate::count).sum();
            long reported = outcome.verdicts.stream().filter(v -> !v.accepted()).count();
            assertThat(counted + reported).isEqualTo(events.size());

            if (functions.contains(AggregateFunction.SUM)) {
                BigDecimal accepted = BigDecimal.ZERO;
                for (int i = 0; i < events.size(); i++) {
                    if (outcome.verdicts.get(i).accepted()) {
                        accepted = accepted.add(events.get(i).value());
                    }
                }
                BigDecimal summed =
                        outcome.partials.stream().map(PartialAggregate::sum).reduce(BigDecimal.ZERO, BigDecimal::add);
                assertThat(summed).isEqualByComparingTo(accepted);
            }
        });
    }

    static void restrictingPartialsToAfterAWatermarkEqualsAggregatingOnlyTheRecordsAfterIt(Implementation impl) {
        qt(TRIES)
                .forAll(functions(), events(), Generate.range(0, MAX_EVENTS))
                .checkAssert((functions, events, watermarkIndex) -> {
                    Windows windows = impl.windows().apply(functions);
                    String watermark = events.isEmpty()
                            ? "1"
                            : events.get(Math.min(watermarkIndex, events.size() - 1))
                                    .sequenceNumber();
                    List<Event> afterIt = events.stream()
                            .filter(e -> SequenceNumbers.compare(e.sequenceNumber(), watermark) > 0)
                            .toList();

                    List<PartialAggregate> restricted = new ArrayList<>();
                    for (PartialAggregate partial : windows.run(events).partials) {
                        impl.after().apply(partial, watermark).ifPresent(restricted::add);
                    }

                    assertThat(restricted).isEqualTo(windows.run(afterIt).partials);
                });
    }

    /**
     * The event-source mapping's delivery schedule, modelled: each delivery starts at the checkpoint
     * (everything before it is applied) and runs for some length, so a redelivery re-sends an
     * already-applied prefix, shorter (bisected), the same, or extended by newer records. Some
     * partials of a delivery fail to apply (then the checkpoint stays), and even a delivery whose
     * partials all applied may not be acknowledged (another sink failed). Applying every delivery's
     * partials to an in-memory table guarded by per-shard watermarks, exactly as the DynamoDB
     * aggregate sink does, counts every record exactly once.
     */
    static void watermarkGuardedApplyOfAnyRedeliveryScheduleCountsEachRecordOnce(Implementation impl) {
        int[] withDuplicates = new int[1];
        int[] withStraddles = new int[1];
        qt(TRIES).forAll(functions(), events(), deliveries()).checkAssert((functions, events, schedule) -> {
            Windows windows = impl.windows().apply(functions);
            WatermarkedTable table = new WatermarkedTable(impl);
            int checkpoint = 0;
            long absorbed = 0;
            long straddles = 0;
            for (Delivery delivery : schedule) {
                if (checkpoint == events.size()) {
                    break;
                }
                int end = Math.min(events.size(), checkpoint + delivery.length());
                boolean allApplied = true;
                int index = 0;
                for (PartialAggregate partial : windows.run(events.subList(checkpoint, end)).partials) {
                    if ((delivery.failures() >>> (index++ % 64) & 1) == 1) {
                        allApplied = false; // this item's write failed; the others of the batch went through
                        continue;
                    }
                    WatermarkedTable.Applied applied = table.apply(partial);
                    absorbed += applied.absorbed();
                    straddles += applied.absorbed() > 0 && applied.counted() > 0 ? 1 : 0;
                }
                if (allApplied && delivery.acknowledged()) {
                    checkpoint = end;
                }
            }
            while (checkpoint < events.size()) { // the shard drains without faults
                int end = Math.min(events.size(), checkpoint + 30);
                windows.run(events.subList(checkpoint, end)).partials.forEach(table::apply);
                checkpoint = end;
            }

            assertThat(table.asPartials()).isEqualTo(onceEach(windows.run(events).partials));
            withDuplicates[0] += absorbed > 0 ? 1 : 0;
            withStraddles[0] += straddles > 0 ? 1 : 0;
        });
        assertThat(percent(withDuplicates[0]))
                .as("%% of examples with absorbed duplicates")
                .isGreaterThan(30);
        assertThat(percent(withStraddles[0]))
                .as("%% of examples with straddling partials")
                .isGreaterThan(10);
    }

    private static double percent(int examples) {
        return 100.0 * examples / TRIES;
    }

    /** One delivery: its length, which of its partials fail to apply (bit i), and whether it is acknowledged. */
    record Delivery(int length, long failures, boolean acknowledged) {}

    static Gen<List<Delivery>> deliveries() {
        Gen<Long> failures = Generate.frequency(Pair.of(3, Generate.constant(0L)), Pair.of(1, longs().all()));
        Gen<Delivery> delivery =
                Generate.range(1, 40).zip(failures, Generate.pick(List.of(true, true, false)), Delivery::new);
        return lists().of(delivery).ofSizeBetween(0, 25);
    }

    /** Up to ten batch sizes of 1 to 30 records. */
    static Gen<List<Integer>> batchSizes() {
        return lists().of(Generate.range(1, 30)).ofSizeBetween(0, 10);
    }

    /** What the table holds per (window, key), in the partials' form: count, sum, min, max only. */
    static List<List<Object>> onceEach(List<PartialAggregate> partials) {
        List<List<Object>> rows = new ArrayList<>();
        for (PartialAggregate p : partials) {
            rows.add(
                    Arrays.asList(p.windowStart(), p.key(), p.count(), plain(p.sum()), plain(p.min()), plain(p.max())));
        }
        return rows;
    }

    private static String plain(BigDecimal value) {
        return value == null ? null : value.stripTrailingZeros().toPlainString();
    }

    /**
     * An in-memory aggregate table with the sink's guard: per item, per shard, the sequence number of
     * the last record counted; a partial adds only its records after it.
     */
    static final class WatermarkedTable {
        record Applied(long counted, long absorbed) {}

        private final Implementation impl;
        private final Map<String, PartialAggregate> items = new java.util.TreeMap<>();
        private final Map<String, String> watermarks = new java.util.HashMap<>();

        WatermarkedTable(Implementation impl) {
            this.impl = impl;
        }

        Applied apply(PartialAggregate partial) {
            String item = partial.windowStart() + " " + partial.key();
            String watermarkKey = item + " " + partial.shardId();
            Optional<PartialAggregate> rest = impl.after().apply(partial, watermarks.get(watermarkKey));
            if (rest.isEmpty()) {
                return new Applied(0, partial.count());
            }
            PartialAggregate counted = rest.get();
            items.merge(item, counted, impl.merge());
            watermarks.put(watermarkKey, counted.lastSequenceNumber());
            return new Applied(counted.count(), partial.count() - counted.count());
        }

        List<List<Object>> asPartials() {
            List<PartialAggregate> all = new ArrayList<>(items.values());
            all.sort(Comparator.comparing(PartialAggregate::windowStart).thenComparing(PartialAggregate::key));
            return onceEach(all);
        }
    }

    /** A non-empty subset of the aggregate functions. */
    static Gen<Set<AggregateFunction>> functions() {
        AggregateFunction[] all = AggregateFunction.values();
        return Generate.range(1, (1 << all.length) - 1).map(mask -> {
            Set<AggregateFunction> set = EnumSet.noneOf(AggregateFunction.class);
            for (int i = 0; i < all.length; i++) {
                if ((mask >>> i & 1) == 1) {
                    set.add(all[i]);
                }
            }
            return set;
        });
    }

    /**
     * Up to {@value #MAX_EVENTS} events of four keys over four one-minute windows, values with two
     * decimals (sometimes none), arriving on time, exactly at the lateness limit, a millisecond
     * after it, or much later; sometimes without an arrival time.
     */
    static Gen<List<Event>> events() {
        Gen<String> keys = Generate.pick(List.of("a", "b", "c", "d"));
        Gen<Integer> offsets = Generate.range(0, 4 * 60_000 - 1);
        Gen<BigDecimal> values = longs().between(-100_000, 100_000)
                .map(cents -> BigDecimal.valueOf(cents, 2))
                .toOptionals(3) // 3 % without a value
                .map(value -> value.orElse(null));
        Gen<Integer> arrivals = Generate.frequency(List.of(
                Pair.of(10, Generate.range(0, 30_000)), // delay after the event
                Pair.of(3, Generate.range(0, 240_000)), // long delay, often late
                Pair.of(1, Generate.constant(-1)), // exactly at the lateness limit
                Pair.of(1, Generate.constant(-2)), // a millisecond after the limit
                Pair.of(1, Generate.constant(-3)))); // no arrival time
        Gen<Event> event = keys.zip(offsets, values, arrivals, (key, offset, value, arrival) -> {
            Instant time = BASE.plusMillis(offset);
            Instant limit = BASE.plus(SIZE.multipliedBy(offset / 60_000 + 1)).plus(LATENESS);
            Instant arrivedAt = switch (arrival) {
                case -1 -> limit;
                case -2 -> limit.plusMillis(1);
                case -3 -> null;
                default -> time.plusMillis(arrival);
            };
            return new Event(key, time, value, arrivedAt, null);
        });
        Gen<BigInteger> firstSequence = Generate.pick(List.of(
                new BigInteger("95"), new BigInteger("49590338271490256608559692538361571095921575989136588898")));
        Gen<Integer> steps = Generate.range(1, 3);
        return lists().of(event).ofSizeBetween(0, MAX_EVENTS).zip(firstSequence, steps, (list, first, step) -> {
            List<Event> numbered = new ArrayList<>(list.size());
            BigInteger sequence = first;
            for (Event e : list) {
                numbered.add(new Event(e.key(), e.time(), e.value(), e.arrivedAt(), sequence.toString()));
                sequence = sequence.add(BigInteger.valueOf(step));
            }
            return numbered;
        });
    }

    static TumblingWindows windows(Set<AggregateFunction> functions) {
        return new TumblingWindows("spend-per-minute", SIZE, LATENESS, functions, CLOCK);
    }

    static Outcome run(TumblingWindows windows, List<Event> events) {
        TumblingWindows.Batch batch = windows.startBatch();
        List<Verdict> verdicts = new ArrayList<>(events.size());
        for (Event e : events) {
            verdicts.add(batch.add(e.key(), e.time(), e.value(), e.arrivedAt(), SHARD, e.sequenceNumber()));
        }
        return new Outcome(batch.finish(), verdicts);
    }

    /**
     * Consecutive batches of the given sizes, as long as events remain; the last batch takes the
     * rest.
     */
    static List<List<Event>> split(List<Event> events, List<Integer> batchSizes) {
        List<List<Event>> batches = new ArrayList<>();
        int from = 0;
        for (int size : batchSizes) {
            if (from + size >= events.size()) {
                break;
            }
            batches.add(events.subList(from, from + size));
            from += size;
        }
        batches.add(events.subList(from, events.size()));
        return batches;
    }

    // ------------------------------------------------------------------------------------------
    // mutation checks

    /** Each property, run against a deliberately broken implementation, is falsified. */
    @Nested
    class BrokenImplementationsAreCaught {

        @Test
        void aMergeThatKeepsTheFirstPartialsMin() {
            BinaryOperator<PartialAggregate> keepsFirstMin = (a, b) -> {
                PartialAggregate m = a.merge(b);
                return new PartialAggregate(
                        m.aggregate(),
                        m.key(),
                        m.windowStart(),
                        m.windowEnd(),
                        m.count(),
                        m.sum(),
                        a.min(),
                        m.max(),
                        m.shardId(),
                        m.firstSequenceNumber(),
                        m.lastSequenceNumber(),
                        m.contributions());
            };
            assertFalsified(() -> mergedPartialsOfAnySplitEqualThePartialsOfOneBatch(REAL.withMerge(keepsFirstMin)));
        }

        @Test
        void windowsThatJudgeLatenessByTheBatchsFirstArrival() {
            assertFalsified(() -> theSameEventsAreLateHoweverTheListIsSplit(
                    REAL.withWindows(functions -> batchArrival(REAL.windows().apply(functions)))));
        }

        @Test
        void windowsThatRememberTheRecordsTheyAlreadyAggregated() {
            assertFalsified(() -> redeliveringAPrefixBatchYieldsIdenticalPartials(
                    REAL.withWindows(functions -> remembering(REAL.windows().apply(functions)))));
        }

        @Test
        void windowsThatSilentlySkipEventsWithoutAValue() {
            assertFalsified(() -> everyEventIsCountedOnceOrReported(REAL.withWindows(
                    functions -> skippingValueless(REAL.windows().apply(functions)))));
        }

        @Test
        void aRestrictionThatKeepsTheRecordAtTheWatermark() {
            assertFalsified(() -> restrictingPartialsToAfterAWatermarkEqualsAggregatingOnlyTheRecordsAfterIt(
                    REAL.withAfter(TumblingWindowsPropertyTest::atOrAfter)));
        }

        @Test
        void aGuardThatAppliesAStraddlingPartialWhole() {
            assertFalsified(() -> watermarkGuardedApplyOfAnyRedeliveryScheduleCountsEachRecordOnce(
                    REAL.withAfter(TumblingWindowsPropertyTest::wholeUnlessAllSeen)));
        }
    }

    /** Broken: every record of a batch is judged by the arrival time of the batch's first record. */
    static Windows batchArrival(Windows real) {
        return events -> {
            Instant first = events.isEmpty() ? null : events.get(0).arrivedAt();
            return real.run(events.stream()
                    .map(e -> new Event(e.key(), e.time(), e.value(), first, e.sequenceNumber()))
                    .toList());
        };
    }

    /** Broken: an instance keeps the sequence numbers it aggregated and leaves them out of later batches. */
    static Windows remembering(Windows real) {
        Set<String> seen = new HashSet<>();
        return events -> {
            List<Event> fresh = events.stream()
                    .filter(e -> !seen.contains(e.sequenceNumber()))
                    .toList();
            Outcome outcome = real.run(fresh);
            fresh.forEach(e -> seen.add(e.sequenceNumber()));
            return outcome;
        };
    }

    /** Broken: events without a value are left out, neither aggregated nor reported. */
    static Windows skippingValueless(Windows real) {
        return events -> {
            Outcome outcome =
                    real.run(events.stream().filter(e -> e.value() != null).toList());
            List<Verdict> verdicts = new ArrayList<>();
            int i = 0;
            for (Event e : events) {
                verdicts.add(
                        e.value() == null
                                ? Verdict.ACCEPTED
                                : outcome.verdicts().get(i++));
            }
            return new Outcome(outcome.partials(), verdicts);
        };
    }

    /** Broken: keeps the records at or after the watermark (an off-by-one in the comparison). */
    static Optional<PartialAggregate> atOrAfter(PartialAggregate partial, String watermark) {
        return partial.after(
                watermark == null
                        ? null
                        : new BigInteger(watermark).subtract(BigInteger.ONE).toString());
    }

    /** Broken: a partial is either a duplicate (all seen) or applied whole, never re-aggregated. */
    static Optional<PartialAggregate> wholeUnlessAllSeen(PartialAggregate partial, String watermark) {
        return watermark == null || SequenceNumbers.compare(partial.lastSequenceNumber(), watermark) > 0
                ? Optional.of(partial)
                : Optional.empty();
    }
}
