package dev.sluice.core.window;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.statistics.Statistics;

/**
 * However a shard's records are cut into batches (retries, bisection, different batch sizes), the
 * partials add up to the same aggregate and the same events are late: the properties the DynamoDB
 * aggregate sink's exactly-once guard relies on.
 */
class TumblingWindowsPropertyTest {

    static final Instant BASE = Instant.parse("2026-11-30T10:00:00Z");
    static final Duration SIZE = Duration.ofMinutes(1);
    static final Duration LATENESS = Duration.ofSeconds(20);
    /** Read for records without an arrival time: 10:02:30, after the first window's limit. */
    static final Clock CLOCK = Clock.fixed(BASE.plusSeconds(150), ZoneOffset.UTC);

    static final String SHARD = "shardId-000000000007";
    static final int MAX_EVENTS = 150;

    /** One record of the shard, in shard order. */
    record Event(String key, Instant time, BigDecimal value, Instant arrivedAt, String sequenceNumber) {}

    @Property(tries = 1000)
    void mergedPartialsOfAnySplitEqualThePartialsOfOneBatch(
            @ForAll("functions") Set<AggregateFunction> functions,
            @ForAll("events") List<Event> events,
            @ForAll @Size(max = 10) List<@IntRange(min = 1, max = 30) Integer> batchSizes) {
        TumblingWindows windows = windows(functions);
        List<PartialAggregate> whole = run(windows, events).partials;

        Map<String, PartialAggregate> merged = new LinkedHashMap<>();
        List<List<Event>> batches = split(events, batchSizes);
        for (List<Event> batch : batches) {
            for (PartialAggregate partial : run(windows, batch).partials) {
                merged.merge(partial.windowStart() + " " + partial.key(), partial, PartialAggregate::merge);
            }
        }
        List<PartialAggregate> recombined = new ArrayList<>(merged.values());
        recombined.sort(Comparator.comparing(PartialAggregate::windowStart).thenComparing(PartialAggregate::key));

        assertThat(recombined).isEqualTo(whole);

        Statistics.label("batches").collect(batches.size() == 1 ? "1" : batches.size() <= 3 ? "2-3" : "4+");
        Statistics.label("batches").coverage(coverage -> coverage.check("4+").percentage(p -> p > 10));
        Statistics.label("events")
                .collect(events.isEmpty() ? "0" : events.size() <= 20 ? "1-20" : events.size() <= 80 ? "21-80" : "81+");
        Statistics.label("has late events")
                .collect(whole.stream().mapToLong(PartialAggregate::count).sum() < events.size());
    }

    @Property(tries = 1000)
    void theSameEventsAreLateHoweverTheListIsSplit(
            @ForAll("functions") Set<AggregateFunction> functions,
            @ForAll("events") List<Event> events,
            @ForAll @Size(max = 10) List<@IntRange(min = 1, max = 30) Integer> batchSizes) {
        TumblingWindows windows = windows(functions);
        List<Verdict> whole = run(windows, events).verdicts;

        List<Verdict> pieced = new ArrayList<>();
        for (List<Event> batch : split(events, batchSizes)) {
            pieced.addAll(run(windows, batch).verdicts);
        }

        assertThat(pieced).isEqualTo(whole);

        long late = whole.stream().filter(v -> v.kind() == Verdict.Kind.LATE).count();
        Statistics.label("late").collect(late == 0 ? "none" : late * 10 < whole.size() ? "under 10%" : "10% or more");
        Statistics.label("late").coverage(coverage -> coverage.check("none").percentage(p -> p < 50));
    }

    @Property(tries = 1000)
    void redeliveringAPrefixBatchYieldsIdenticalPartials(
            @ForAll("functions") Set<AggregateFunction> functions,
            @ForAll("events") List<Event> events,
            @ForAll @IntRange(min = 0, max = MAX_EVENTS) int prefixLength) {
        TumblingWindows windows = windows(functions);
        List<Event> prefix = events.subList(0, Math.min(prefixLength, events.size()));
        Outcome first = run(windows, prefix);

        run(windows, events.subList(prefix.size(), events.size())); // the rest of the shard meanwhile
        Outcome redelivered = run(windows, prefix);
        Outcome onAnotherInstance = run(windows(functions), prefix);

        assertThat(redelivered.partials).isEqualTo(first.partials);
        assertThat(redelivered.verdicts).isEqualTo(first.verdicts);
        assertThat(onAnotherInstance.partials).isEqualTo(first.partials);
    }

    @Property(tries = 1000)
    void everyEventIsCountedOnceOrReported(
            @ForAll("functions") Set<AggregateFunction> functions, @ForAll("events") List<Event> events) {
        Outcome outcome = run(windows(functions), events);

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
    }

    @Property(tries = 1000)
    void restrictingPartialsToAfterAWatermarkEqualsAggregatingOnlyTheRecordsAfterIt(
            @ForAll("functions") Set<AggregateFunction> functions,
            @ForAll("events") List<Event> events,
            @ForAll @IntRange(min = 0, max = MAX_EVENTS) int watermarkIndex) {
        TumblingWindows windows = windows(functions);
        String watermark = events.isEmpty()
                ? "1"
                : events.get(Math.min(watermarkIndex, events.size() - 1)).sequenceNumber();
        List<Event> afterIt = events.stream()
                .filter(e -> SequenceNumbers.compare(e.sequenceNumber(), watermark) > 0)
                .toList();

        List<PartialAggregate> restricted = new ArrayList<>();
        for (PartialAggregate partial : run(windows, events).partials) {
            partial.after(watermark).ifPresent(restricted::add);
        }

        assertThat(restricted).isEqualTo(run(windows, afterIt).partials);
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
    @Property(tries = 1000)
    void watermarkGuardedApplyOfAnyRedeliveryScheduleCountsEachRecordOnce(
            @ForAll("functions") Set<AggregateFunction> functions,
            @ForAll("events") List<Event> events,
            @ForAll("deliveries") List<Delivery> schedule) {
        TumblingWindows windows = windows(functions);
        WatermarkedTable table = new WatermarkedTable();
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
            for (PartialAggregate partial : run(windows, events.subList(checkpoint, end)).partials) {
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
            run(windows, events.subList(checkpoint, end)).partials.forEach(table::apply);
            checkpoint = end;
        }

        assertThat(table.asPartials()).isEqualTo(onceEach(run(windows, events).partials));

        Statistics.label("duplicates absorbed").collect(absorbed == 0 ? "none" : "some");
        Statistics.label("duplicates absorbed").coverage(c -> c.check("some").percentage(p -> p > 30));
        Statistics.label("straddling partials").collect(straddles == 0 ? "none" : "some");
        Statistics.label("straddling partials").coverage(c -> c.check("some").percentage(p -> p > 10));
    }

    /** One delivery: its length, which of its partials fail to apply (bit i), and whether it is acknowledged. */
    record Delivery(int length, long failures, boolean acknowledged) {}

    @Provide
    Arbitrary<List<Delivery>> deliveries() {
        Arbitrary<Long> failures =
                Arbitraries.frequencyOf(Tuple.of(3, Arbitraries.just(0L)), Tuple.of(1, Arbitraries.longs()));
        return Combinators.combine(Arbitraries.integers().between(1, 40), failures, Arbitraries.of(true, true, false))
                .as(Delivery::new)
                .list()
                .ofMaxSize(25);
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

        private final Map<String, PartialAggregate> items = new java.util.TreeMap<>();
        private final Map<String, String> watermarks = new java.util.HashMap<>();

        Applied apply(PartialAggregate partial) {
            String item = partial.windowStart() + " " + partial.key();
            String watermarkKey = item + " " + partial.shardId();
            var rest = partial.after(watermarks.get(watermarkKey));
            if (rest.isEmpty()) {
                return new Applied(0, partial.count());
            }
            PartialAggregate counted = rest.get();
            items.merge(item, counted, PartialAggregate::merge);
            watermarks.put(watermarkKey, counted.lastSequenceNumber());
            return new Applied(counted.count(), partial.count() - counted.count());
        }

        List<List<Object>> asPartials() {
            List<PartialAggregate> all = new ArrayList<>(items.values());
            all.sort(Comparator.comparing(PartialAggregate::windowStart).thenComparing(PartialAggregate::key));
            return onceEach(all);
        }
    }

    @Provide
    Arbitrary<Set<AggregateFunction>> functions() {
        return Arbitraries.subsetOf(AggregateFunction.values()).ofMinSize(1).map(EnumSet::copyOf);
    }

    /**
     * Up to {@value #MAX_EVENTS} events of four keys over four one-minute windows, values with two
     * decimals (sometimes none), arriving on time, exactly at the lateness limit, a millisecond
     * after it, or much later; sometimes without an arrival time.
     */
    @Provide
    Arbitrary<List<Event>> events() {
        Arbitrary<String> keys = Arbitraries.of("a", "b", "c", "d");
        Arbitrary<Integer> offsets = Arbitraries.integers().between(0, 4 * 60_000 - 1);
        Arbitrary<BigDecimal> values = Arbitraries.longs()
                .between(-100_000, 100_000)
                .map(cents -> BigDecimal.valueOf(cents, 2))
                .injectNull(0.03);
        Arbitrary<Integer> arrivals = Arbitraries.frequencyOf(
                Tuple.of(10, Arbitraries.integers().between(0, 30_000)), // delay after the event
                Tuple.of(3, Arbitraries.integers().between(0, 240_000)), // long delay, often late
                Tuple.of(1, Arbitraries.just(-1)), // exactly at the lateness limit
                Tuple.of(1, Arbitraries.just(-2)), // a millisecond after the limit
                Tuple.of(1, Arbitraries.just(-3))); // no arrival time
        Arbitrary<Event> event = Combinators.combine(keys, offsets, values, arrivals)
                .as((key, offset, value, arrival) -> {
                    Instant time = BASE.plusMillis(offset);
                    Instant limit =
                            BASE.plus(SIZE.multipliedBy(offset / 60_000 + 1)).plus(LATENESS);
                    Instant arrivedAt = switch (arrival) {
                        case -1 -> limit;
                        case -2 -> limit.plusMillis(1);
                        case -3 -> null;
                        default -> time.plusMillis(arrival);
                    };
                    return new Event(key, time, value, arrivedAt, null);
                });
        Arbitrary<BigInteger> firstSequence = Arbitraries.of(
                new BigInteger("95"), new BigInteger("49590338271490256608559692538361571095921575989136588898"));
        Arbitrary<Integer> steps = Arbitraries.integers().between(1, 3);
        return Combinators.combine(
                        event.list().ofMaxSize(MAX_EVENTS).withSizeDistribution(RandomDistribution.uniform()),
                        firstSequence,
                        steps)
                .as((list, first, step) -> {
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

    /** What one batch produced. */
    record Outcome(List<PartialAggregate> partials, List<Verdict> verdicts) {}

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
}
