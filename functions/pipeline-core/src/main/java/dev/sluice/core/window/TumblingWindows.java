package dev.sluice.core.window;

import java.math.BigDecimal;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * A windowed aggregate over tumbling (fixed, non-overlapping) event-time windows aligned to the
 * epoch: a window of size {@code s} covers {@code [k·s, (k+1)·s)} for an integer {@code k}, so a
 * one-day window runs from midnight UTC to midnight UTC. Immutable and thread-safe; built once per
 * stage. Each batch of records gets its own {@link Batch}, which turns the batch's events into one
 * {@link PartialAggregate} per (key, window).
 *
 * <h2>Lateness</h2>
 *
 * An event is late when it arrived after its window closed and the allowed lateness ran out:
 * {@code arrivedAt > windowEnd + allowedLateness} ({@code windowEnd} exclusive; an event arriving
 * exactly at the limit is on time). {@code arrivedAt} is the record's approximate arrival time in
 * the stream, which is fixed when the stream accepts the record, so a redelivered record is judged
 * the same way every time. Only when a record has no arrival time is the clock read instead (once
 * per batch); such a verdict is not reproducible.
 *
 * <h2>Exactly once</h2>
 *
 * A batch's partials depend on its records and nothing else: no state crosses batches. Merging the
 * partials of any split of a shard's records into consecutive batches gives the partials of one
 * batch holding them all, and redelivering a batch yields the same partials again, with the same
 * sequence range, so the sink's per-shard watermark recognises it. A redelivery that re-sends an
 * applied prefix extended by newer records yields partials that straddle the watermark; each
 * partial carries its events' {@link Contributions}, so {@link PartialAggregate#after} restricts it
 * to the events the sink has not counted.
 *
 * <h2>Precision and scale</h2>
 *
 * SUM, MIN and MAX are fixed-scale decimals: each value is kept with exactly {@link #scale()}
 * decimals (default {@value #DEFAULT_SCALE}, what currency amounts need), and at most {@value
 * #PRECISION} significant digits, the precision a DynamoDB number holds. A value with more decimals
 * than the scale (never rounded: {@code 1E-31} is not a cent) or more digits than the precision is
 * {@link Verdict.Invalid}. Sums of valid values are exact at the same scale; whether a sum still fits
 * the precision once added to what a sink already holds is for the sink to check (see {@link
 * #fits}).
 *
 * <h2>Limits</h2>
 *
 * The size is a whole number of milliseconds (the precision of Kinesis arrival times), at most
 * {@link #MAX_SIZE}. Event times must lie within about ±285 million years of the epoch; outside
 * that an event is {@link Verdict.Invalid}.
 */
public final class TumblingWindows {

    /** The longest window: a hundred years. */
    public static final Duration MAX_SIZE = Duration.ofDays(36_525);

    /** Significant digits a value or sum may have: what a DynamoDB number holds. */
    public static final int PRECISION = 38;

    /** Decimals kept when the definition declares none: currency amounts in major units. */
    public static final int DEFAULT_SCALE = 2;

    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    private static final long NANOS_PER_MILLI = 1_000_000L;
    /** Event times whose epoch second lies beyond this are out of range: their millis would overflow. */
    private static final long MAX_EVENT_SECOND = 9_000_000_000_000_000L;

    private final String name;
    private final Duration size;
    private final long sizeMillis;
    private final Duration allowedLateness;
    private final long latenessSeconds;
    private final int latenessNanos;
    private final Set<AggregateFunction> functions;
    private final boolean sum;
    private final boolean min;
    private final boolean max;
    /** Whether the events' values are kept (SUM, MIN or MAX is computed). */
    private final boolean valued;
    /** Decimals of every value, sum, min and max. */
    private final int scale;

    private final Verdict missingValue;
    private final Clock clock;

    /**
     * An aggregate whose lateness verdicts for records without an arrival time use the system's UTC
     * clock.
     *
     * @see #TumblingWindows(String, Duration, Duration, Set, Clock)
     */
    public TumblingWindows(String name, Duration size, Duration allowedLateness, Set<AggregateFunction> functions) {
        this(name, size, allowedLateness, functions, Clock.systemUTC());
    }

    /**
     * An aggregate of the {@linkplain #DEFAULT_SCALE default scale}.
     *
     * @see #TumblingWindows(String, Duration, Duration, Set, int, Clock)
     */
    public TumblingWindows(
            String name, Duration size, Duration allowedLateness, Set<AggregateFunction> functions, Clock clock) {
        this(name, size, allowedLateness, functions, DEFAULT_SCALE, clock);
    }

    /**
     * An aggregate.
     *
     * @param name the aggregate's name, carried by its partials and verdicts
     * @param size the window size: positive, whole milliseconds, at most {@link #MAX_SIZE}
     * @param allowedLateness how long after a window's end its events are still accepted; zero or
     *     more
     * @param functions what to compute, at least one; the count is carried in any case
     * @param scale decimals of values, sums, minima and maxima: 0 or more, less than {@link
     *     #PRECISION}
     * @param clock read (once per batch) for records that have no arrival time
     * @throws IllegalArgumentException if a setting is out of range
     */
    public TumblingWindows(
            String name,
            Duration size,
            Duration allowedLateness,
            Set<AggregateFunction> functions,
            int scale,
            Clock clock) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(size, "size");
        Objects.requireNonNull(allowedLateness, "allowedLateness");
        Objects.requireNonNull(functions, "functions");
        Objects.requireNonNull(clock, "clock");
        if (name.isBlank()) {
            throw new IllegalArgumentException("an aggregate needs a name");
        }
        if (size.isNegative() || size.isZero()) {
            throw new IllegalArgumentException("aggregate '" + name + "': window size must be positive, not " + size);
        }
        if (size.compareTo(MAX_SIZE) > 0) {
            throw new IllegalArgumentException(
                    "aggregate '" + name + "': window size " + size + " is longer than " + MAX_SIZE);
        }
        if (size.getNano() % NANOS_PER_MILLI != 0) {
            throw new IllegalArgumentException(
                    "aggregate '" + name + "': window size " + size + " is not a whole number of milliseconds");
        }
        if (allowedLateness.isNegative()) {
            throw new IllegalArgumentException(
                    "aggregate '" + name + "': allowed lateness must be zero or more, not " + allowedLateness);
        }
        if (functions.isEmpty() || functions.stream().anyMatch(Objects::isNull)) {
            throw new IllegalArgumentException(
                    "aggregate '" + name + "': name at least one of " + Arrays.toString(AggregateFunction.values()));
        }
        if (scale < 0 || scale >= PRECISION) {
            throw new IllegalArgumentException(
                    "aggregate '" + name + "': scale must be 0 to " + (PRECISION - 1) + " decimals, not " + scale);
        }
        this.name = name;
        this.scale = scale;
        this.size = size;
        this.sizeMillis = size.toMillis();
        this.allowedLateness = allowedLateness;
        this.latenessSeconds = allowedLateness.getSeconds();
        this.latenessNanos = allowedLateness.getNano();
        this.functions = Collections.unmodifiableSet(EnumSet.copyOf(functions));
        this.sum = functions.contains(AggregateFunction.SUM);
        this.min = functions.contains(AggregateFunction.MIN);
        this.max = functions.contains(AggregateFunction.MAX);
        this.valued = sum || min || max;
        String valued = this.functions.stream()
                .filter(AggregateFunction::needsValue)
                .map(Enum::name)
                .collect(Collectors.joining(", "));
        this.missingValue = valued.isEmpty()
                ? null
                : new Verdict.Invalid(
                        "aggregate '" + name + "' computes " + valued + " and needs a value; the event has none");
        this.clock = clock;
    }

    /** The aggregate's name. */
    public String name() {
        return name;
    }

    /** The window size. */
    public Duration size() {
        return size;
    }

    /** How long after a window's end its events are still accepted. */
    public Duration allowedLateness() {
        return allowedLateness;
    }

    /** What is computed, in declaration order; never empty. */
    public Set<AggregateFunction> functions() {
        return functions;
    }

    /** Decimals of every value, sum, min and max. */
    public int scale() {
        return scale;
    }

    /**
     * Whether a sum (or any figure) of this aggregate fits its declared precision and scale: at most
     * {@link #scale()} decimals and {@value #PRECISION} significant digits. A sink checks the total it
     * is about to store with it.
     */
    public static boolean fits(BigDecimal value, int scale) {
        return value.scale() <= scale && value.precision() - value.scale() + scale <= PRECISION;
    }

    /** Whether events must carry a value (SUM, MIN or MAX is computed). */
    public boolean needsValue() {
        return missingValue != null;
    }

    /**
     * The start (inclusive) of the window that holds an event time.
     *
     * @throws IllegalArgumentException if the time is out of range (see the class comment)
     */
    public Instant windowStart(Instant eventTime) {
        Objects.requireNonNull(eventTime, "eventTime");
        if (outOfRange(eventTime)) {
            throw new IllegalArgumentException(outOfRangeDetail(eventTime));
        }
        return Instant.ofEpochMilli(index(eventTime) * sizeMillis);
    }

    /** Starts aggregating one batch of records of one shard. */
    public Batch startBatch() {
        return new Batch();
    }

    @Override
    public String toString() {
        return "TumblingWindows[" + name + ", size " + size + ", lateness " + allowedLateness + ", " + functions
                + ", scale " + scale + "]";
    }

    private static boolean outOfRange(Instant eventTime) {
        long second = eventTime.getEpochSecond();
        return second > MAX_EVENT_SECOND || second < -MAX_EVENT_SECOND;
    }

    /** The value with exactly {@link #scale} decimals, or {@code null} if that needs rounding or too many digits. */
    private BigDecimal fixedScale(BigDecimal value) {
        BigDecimal fixed;
        if (value.scale() == scale) {
            fixed = value;
        } else if (value.scale() < scale) {
            // the precision of the result is checked below: a huge exponent does not need rounding
            if ((long) value.precision() - value.scale() + scale > PRECISION) {
                return null;
            }
            fixed = value.setScale(scale);
        } else {
            BigDecimal stripped = value.stripTrailingZeros();
            if (stripped.scale() > scale) {
                return null;
            }
            fixed = stripped.setScale(scale);
        }
        return fixed.precision() > PRECISION ? null : fixed;
    }

    private String outOfRangeDetail(Instant eventTime) {
        return "aggregate '" + name + "': event time " + eventTime + " is out of the range windows are computed for";
    }

    /** The window's number: windows are {@code [index·size, (index+1)·size)}. Time must be in range. */
    private long index(Instant eventTime) {
        long millis = eventTime.getEpochSecond() * 1000 + eventTime.getNano() / NANOS_PER_MILLI;
        return Math.floorDiv(millis, sizeMillis);
    }

    /** Whether {@code arrival > windowEnd + allowedLateness}, without allocating. */
    private boolean isLate(long endMillis, Instant arrival) {
        long limitSecond = Math.floorDiv(endMillis, 1000);
        long limitNano = Math.floorMod(endMillis, 1000) * NANOS_PER_MILLI + latenessNanos;
        if (limitNano >= NANOS_PER_SECOND) {
            limitNano -= NANOS_PER_SECOND;
            limitSecond++;
        }
        if (latenessSeconds > Long.MAX_VALUE - limitSecond) {
            return false; // the limit lies beyond any instant
        }
        limitSecond += latenessSeconds;
        long arrivalSecond = arrival.getEpochSecond();
        return arrivalSecond > limitSecond || (arrivalSecond == limitSecond && arrival.getNano() > limitNano);
    }

    /** Partials' order: window start, then key (one comparator, not a chain of key extractors). */
    private static final Comparator<Group> BY_WINDOW_THEN_KEY =
            (a, b) -> a.index != b.index ? Long.compare(a.index, b.index) : a.key.compareTo(b.key);

    private static final Comparator<Group> BY_KEY = (a, b) -> a.key.compareTo(b.key);

    /** Bits of a packed sort key that hold the group's position: batches of up to 65,536 groups. */
    private static final int POSITION_BITS = 16;

    /** Bits of a packed sort key that may hold the window: batches that span up to 65,536 windows. */
    private static final int MAX_WINDOW_BITS = 16;

    /**
     * Sorts groups by {@link #BY_WINDOW_THEN_KEY} without comparing objects for the most part: each
     * group becomes one {@code long} — its window's rank in the batch, the {@linkplain #keyBits first
     * bits} of its key after the keys' common prefix, its position — and the longs are sorted as
     * primitives. Groups whose window and key bits tie are then ordered by their whole keys. Batches
     * too large or spanning too many windows for the packing are sorted with the comparator.
     *
     * @param common how many first chars every group's key shares
     */
    private static void sortByWindowThenKey(Group[] groups, int common) {
        int n = groups.length;
        if (n < 2) {
            return;
        }
        long min = groups[0].index;
        long max = min;
        for (Group g : groups) {
            min = Math.min(min, g.index);
            max = Math.max(max, g.index);
        }
        int windowBits = 64 - Long.numberOfLeadingZeros(max - min); // 0 when every group has one window
        if (n > 1 << POSITION_BITS || windowBits > MAX_WINDOW_BITS) {
            Arrays.sort(groups, BY_WINDOW_THEN_KEY);
            return;
        }
        // keys share a prefix (cust-00...): pack the chars after it, read when the group was made
        int bits = 64 - POSITION_BITS - windowBits;
        long[] packed = new long[n];
        for (int i = 0; i < n; i++) {
            Group g = groups[i];
            long units = g.unitsFrom == common ? g.units : keyUnits(g.key, common);
            long order = (g.index - min) << bits | (bits == 0 ? 0 : units >>> (64 - bits));
            // flipping the sign bit makes the signed sort the unsigned order
            packed[i] = (order << POSITION_BITS | i) ^ Long.MIN_VALUE;
        }
        Arrays.sort(packed);
        Group[] unsorted = groups.clone();
        for (int i = 0; i < n; i++) {
            groups[i] = unsorted[(int) (packed[i] & ((1 << POSITION_BITS) - 1))];
        }
        int run = 0;
        for (int i = 1; i <= n; i++) {
            if (i == n || packed[i] >>> POSITION_BITS != packed[run] >>> POSITION_BITS) {
                if (i - run > 1) {
                    Arrays.sort(groups, run, i, BY_KEY); // same window, same first bits
                }
                run = i;
            }
        }
    }

    /**
     * The first {@code bits} bits (0 to 64) of {@code key}'s chars from {@code from} on, taken as
     * 16-bit units with a missing char (after the key's end) as 0, right-aligned. For keys that agree
     * on their first {@code from} chars, a key smaller than another by {@link String#compareTo} never
     * has greater bits (compared unsigned): equal bits leave the order to {@code compareTo},
     * different ones decide it.
     */
    static long keyBits(String key, int from, int bits) {
        return bits == 0 ? 0 : keyUnits(key, from) >>> (64 - bits);
    }

    /** The four chars of {@code key} from {@code from} on, 16 bits each, a missing char as 0. */
    private static long keyUnits(String key, int from) {
        long units = 0;
        int length = key.length();
        for (int i = from; i < from + 4; i++) {
            units = units << 16 | (i < length ? key.charAt(i) : 0);
        }
        return units;
    }

    /** How many first chars {@code key} shares with {@code other}, at most {@code limit}. */
    static int commonPrefix(String key, String other, int limit) {
        int n = Math.min(limit, Math.min(key.length(), other.length()));
        int i = 0;
        while (i < n && key.charAt(i) == other.charAt(i)) {
            i++;
        }
        return i;
    }

    /**
     * The aggregation of one batch of records of one shard. Not thread-safe; one per batch. Feed it
     * each event with {@link #add}, in the batch's order, then take the partials with
     * {@link #finish}.
     *
     * <p>Accepting an event into a (key, window) already seen in the batch allocates nothing but the
     * new sum ({@link BigDecimal} is immutable) and, now and then, a doubled contributions array
     * (each event's sequence number and value are kept so that a partial can be {@linkplain
     * PartialAggregate#after restricted}); the first event of a (key, window) adds one entry to the
     * batch's table. Only a late or out-of-range event gets a verdict object of its own.
     */
    public final class Batch {

        /** Room for 128 groups before growing: a Kinesis batch of 100 records does not grow it. */
        private static final int INITIAL_CAPACITY = 256;

        /** Open addressing, linear probing; length a power of two, at most half full. */
        private Group[] table = new Group[INITIAL_CAPACITY];

        private int groups;
        /** The first group's key, and how many first chars every group's key shares with it. */
        private String firstKey;

        private int common;
        private String shardId;
        private Instant now;
        private List<PartialAggregate> partials;
        private int accepted;
        private int late;
        private int invalid;

        private Batch() {}

        /**
         * Adds one event.
         *
         * @param key the grouping key
         * @param eventTime the event's time ({@code occurredAt}), which picks its window
         * @param value the value for SUM, MIN and MAX; may be {@code null} when only COUNT is computed
         *     (then it is ignored)
         * @param arrivedAt the record's approximate arrival time in the stream; {@code null} to use
         *     the clock
         * @param shardId the record's shard: the same for every record of a batch
         * @param sequenceNumber the record's sequence ({@link SequenceNumbers}: the sequence number,
         *     with the sub-sequence of a user record of a KPL-aggregated record)
         * @return {@link Verdict#ACCEPTED}; {@link Verdict.Late} when the event is late;
         *     {@link Verdict.Invalid} when it has no value but SUM, MIN or MAX need one, or its time is
         *     out of range. Late and invalid events are left out of the partials.
         * @throws NullPointerException if {@code key}, {@code eventTime}, {@code shardId} or
         *     {@code sequenceNumber} is null
         * @throws IllegalArgumentException if the sequence number is malformed or the shard differs
         *     from the batch's: mistakes of the caller, not of the data
         * @throws IllegalStateException after {@link #finish}
         */
        public Verdict add(
                String key,
                Instant eventTime,
                BigDecimal value,
                Instant arrivedAt,
                String shardId,
                String sequenceNumber) {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(eventTime, "eventTime");
            Objects.requireNonNull(shardId, "shardId");
            SequenceNumbers.requireValid(sequenceNumber, "sequenceNumber");
            if (partials != null) {
                throw new IllegalStateException("aggregate '" + name + "': batch already finished");
            }
            if (this.shardId == null) {
                this.shardId = shardId;
            } else if (shardId != this.shardId && !shardId.equals(this.shardId)) {
                throw new IllegalArgumentException("aggregate '" + name + "': a batch holds the records of one shard; "
                        + shardId + " after " + this.shardId);
            }
            if (value == null && missingValue != null) {
                invalid++;
                return missingValue;
            }
            if (valued) {
                BigDecimal fixed = fixedScale(value);
                if (fixed == null) {
                    invalid++;
                    return new Verdict.Invalid("aggregate '" + name + "' keeps values with at most " + scale
                            + " decimals and " + PRECISION + " digits; " + value.toString() + " does not fit"
                            + " (it is never rounded)");
                }
                value = fixed;
            }
            if (outOfRange(eventTime)) {
                invalid++;
                return new Verdict.Invalid(outOfRangeDetail(eventTime));
            }
            long index = index(eventTime);
            boolean fromClock = arrivedAt == null;
            Instant arrival = fromClock ? now() : arrivedAt;
            long endMillis = (index + 1) * sizeMillis;
            if (isLate(endMillis, arrival)) {
                late++;
                return new Verdict.Late(
                        name,
                        Instant.ofEpochMilli(endMillis - sizeMillis),
                        Instant.ofEpochMilli(endMillis),
                        allowedLateness,
                        arrival,
                        fromClock);
            }
            accepted++;
            Group group = group(key, index, sequenceNumber);
            group.contribute(sequenceNumber, value, valued);
            if (group.count == 0) {
                group.count = 1;
                if (value != null) {
                    group.sum = sum ? value : null;
                    group.min = min ? value : null;
                    group.max = max ? value : null;
                }
                return Verdict.ACCEPTED;
            }
            group.count++;
            if (sum) {
                group.sum = group.sum.add(value);
            }
            if (min && value.compareTo(group.min) < 0) {
                group.min = value;
            }
            if (max && value.compareTo(group.max) > 0) {
                group.max = value;
            }
            if (SequenceNumbers.compare(sequenceNumber, group.first) < 0) {
                group.first = sequenceNumber;
            } else if (SequenceNumbers.compare(sequenceNumber, group.last) > 0) {
                group.last = sequenceNumber;
            }
            return Verdict.ACCEPTED;
        }

        /**
         * Ends the batch: one partial per (key, window) that received an accepted event, ordered by
         * window start, then key. Calling it again returns the same list; {@link #add} is refused
         * from now on.
         *
         * @return an unmodifiable list, empty when no event was accepted
         */
        public List<PartialAggregate> finish() {
            if (partials != null) {
                return partials;
            }
            Group[] all = new Group[groups];
            int n = 0;
            for (Group group : table) {
                if (group != null) {
                    all[n++] = group;
                }
            }
            sortByWindowThenKey(all, common);
            List<PartialAggregate> result = new ArrayList<>(n);
            long lastIndex = 0;
            Instant start = null;
            Instant end = null;
            for (Group g : all) {
                if (start == null || g.index != lastIndex) {
                    lastIndex = g.index;
                    start = Instant.ofEpochMilli(g.index * sizeMillis);
                    end = Instant.ofEpochMilli((g.index + 1) * sizeMillis);
                }
                result.add(new PartialAggregate(
                        name,
                        g.key,
                        start,
                        end,
                        g.count,
                        g.sum,
                        g.min,
                        g.max,
                        shardId,
                        g.first,
                        g.last,
                        new Contributions(g.sequences, g.values, g.contributed)));
            }
            table = null;
            partials = Collections.unmodifiableList(result);
            return partials;
        }

        /** Events accepted so far. */
        public int acceptedCount() {
            return accepted;
        }

        /** Late events so far. */
        public int lateCount() {
            return late;
        }

        /** Invalid events so far. */
        public int invalidCount() {
            return invalid;
        }

        private Instant now() {
            if (now == null) {
                now = clock.instant();
            }
            return now;
        }

        /** The (key, window)'s group, created with count 0 if new. */
        private Group group(String key, long index, String sequenceNumber) {
            int hash = hash(key, index);
            int mask = table.length - 1;
            int i = hash & mask;
            for (Group g = table[i]; g != null; g = table[i]) {
                if (g.index == index && g.hash == hash && g.key.equals(key)) {
                    return g;
                }
                i = (i + 1) & mask;
            }
            Group created = new Group(key, index, hash, sequenceNumber);
            // the key is at hand now: the common prefix so far, and the key's chars after it
            if (firstKey == null) {
                firstKey = key;
                common = key.length();
            } else {
                common = commonPrefix(key, firstKey, common);
            }
            created.unitsFrom = common;
            created.units = keyUnits(key, common);
            table[i] = created;
            if (++groups * 2 > table.length) {
                grow();
            }
            return created;
        }

        private void grow() {
            Group[] bigger = new Group[table.length * 2];
            int mask = bigger.length - 1;
            for (Group g : table) {
                if (g != null) {
                    int i = g.hash & mask;
                    while (bigger[i] != null) {
                        i = (i + 1) & mask;
                    }
                    bigger[i] = g;
                }
            }
            table = bigger;
        }

        private static int hash(String key, long index) {
            int h = key.hashCode() * 31 + Long.hashCode(index * 0x9E3779B97F4A7C15L);
            return h ^ (h >>> 16);
        }
    }

    /**
     * The running aggregate of one (key, window) in a batch, with each event's contribution
     * (sequence number, and value when one is computed) in arrays grown by doubling.
     */
    private static final class Group {
        private static final int INITIAL_CONTRIBUTIONS = 4;

        final String key;
        final long index;
        final int hash;
        /** {@link #keyUnits} of the key from {@link #unitsFrom}, the batch's common prefix when made. */
        long units;

        int unitsFrom;
        long count;
        BigDecimal sum;
        BigDecimal min;
        BigDecimal max;
        String first;
        String last;
        String[] sequences;
        BigDecimal[] values;
        int contributed;

        Group(String key, long index, int hash, String sequenceNumber) {
            this.key = key;
            this.index = index;
            this.hash = hash;
            this.first = sequenceNumber;
            this.last = sequenceNumber;
        }

        void contribute(String sequenceNumber, BigDecimal value, boolean valued) {
            if (sequences == null) {
                sequences = new String[INITIAL_CONTRIBUTIONS];
                values = valued ? new BigDecimal[INITIAL_CONTRIBUTIONS] : null;
            } else if (contributed == sequences.length) {
                sequences = Arrays.copyOf(sequences, contributed * 2);
                if (values != null) {
                    values = Arrays.copyOf(values, contributed * 2);
                }
            }
            sequences[contributed] = sequenceNumber;
            if (values != null) {
                values[contributed] = value;
            }
            contributed++;
        }
    }
}
