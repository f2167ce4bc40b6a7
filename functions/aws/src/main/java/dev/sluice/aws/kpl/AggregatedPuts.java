package dev.sluice.aws.kpl;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * Puts user records as the KPL does with aggregation on, across reshards: packed per shard of a
 * kept {@link ShardMapCache} ({@code ListShards} once, not before every put), put in waves of at
 * most one aggregate per shard, and each aggregate's result compared with the shard it was packed
 * for. Kinesis routes an aggregate by its explicit hash key (its first record's) to the open shard
 * holding that key; when that is another shard than predicted, the predicted one closed — the
 * stream was resharded — and the map is listed again. The aggregate then stays where it landed if
 * every one of its records hashes into that shard's range; otherwise consumers drop it whole: the
 * KCL's {@code AggregatorUtil.deaggregate(records, startingHashKey, endingHashKey)} removes every
 * record of an aggregate one of whose records lies outside the shard it was read from (and so does
 * Sluice's {@link Deaggregation} with the shard's range). Its records are then packed again with
 * the fresh map, together with all not yet sent, in their order, and put — so each record takes
 * effect once, and a key's records stay in order on the one shard that now holds the key. This is
 * the KPL's "Wrong Shard" retry, narrowed to the aggregates consumers really drop (the KPL re-sends
 * every mispredicted record, which a consumer then sees twice when its aggregate was kept).
 */
public final class AggregatedPuts {

    /** Where Kinesis put one aggregate. */
    public record Landed(String shardId, String sequenceNumber) {}

    /** An aggregate Kinesis accepted and consumers will read, and where it is. */
    public record Placed(KplAggregator.Aggregate aggregate, Landed landed) {}

    /**
     * Puts one wave: at most one aggregate per shard (so a refused aggregate is in its shard before
     * any later one of that shard, and per-key order holds under partial failures).
     *
     * @param <E> what the put throws when it gives up
     */
    @FunctionalInterface
    public interface WavePut<E extends Exception> {
        /** Puts the aggregates until Kinesis accepted each; returns where each landed, in order. */
        List<Landed> put(List<KplAggregator.Aggregate> wave) throws E;
    }

    /** Thrown when aggregates still land on unpredicted shards after this many listings in a row. */
    public static final int MAX_LISTINGS_IN_A_ROW = 3;

    /** Raised when the shards keep changing under the producer ({@link #MAX_LISTINGS_IN_A_ROW}). */
    public static final class StillMisplacedException extends RuntimeException {
        StillMisplacedException(String message) {
            super(message);
        }
    }

    private final ShardMapCache shards;
    private final int maxBytes;
    private final Function<KplAggregator.Aggregate, List<KplAggregator.Aggregate>> shape;
    private final AtomicLong misplaced = new AtomicLong();

    /**
     * @param maxBytes each aggregate's size limit ({@link KplAggregator#DEFAULT_MAX_BYTES} is the KPL's)
     * @param shape what is put for each aggregate packed (the identity for a real producer; the fault
     *     suite corrupts some), each of its shard
     */
    public AggregatedPuts(
            ShardMapCache shards,
            int maxBytes,
            Function<KplAggregator.Aggregate, List<KplAggregator.Aggregate>> shape) {
        this.shards = shards;
        this.maxBytes = maxBytes;
        this.shape = shape;
    }

    public AggregatedPuts(ShardMapCache shards, int maxBytes) {
        this(shards, maxBytes, List::of);
    }

    /** The shard map this producer keeps. */
    public ShardMapCache shards() {
        return shards;
    }

    /** Aggregates put that landed where consumers drop them, and were put again. */
    public long misplaced() {
        return misplaced.get();
    }

    /**
     * Puts the records; returns every aggregate that consumers will read, in the order they were
     * put. The aggregates' indexes are indexes of {@code records}; each record is in exactly one.
     *
     * @throws StillMisplacedException if aggregates were misplaced after {@link
     *     #MAX_LISTINGS_IN_A_ROW} listings in a row (nothing of theirs is in the answer)
     * @throws software.amazon.awssdk.core.exception.SdkException if listing the shards fails
     */
    public <E extends Exception> List<Placed> put(List<UserRecord> records, WavePut<E> put) throws E {
        List<Integer> pending = new ArrayList<>(records.size());
        for (int i = 0; i < records.size(); i++) {
            pending.add(i);
        }
        List<Placed> placed = new ArrayList<>();
        int listingsInARow = 0;
        while (!pending.isEmpty()) {
            List<List<KplAggregator.Aggregate>> waves = waves(pack(shards.current(), records, pending));
            pending = List.of();
            for (int w = 0; w < waves.size(); w++) {
                List<KplAggregator.Aggregate> wave = waves.get(w);
                List<Landed> landed = put.put(wave);
                TreeSet<Integer> again = new TreeSet<>();
                boolean stale = false;
                for (int i = 0; i < wave.size(); i++) {
                    KplAggregator.Aggregate aggregate = wave.get(i);
                    Landed where = landed.get(i);
                    if (!where.shardId().equals(aggregate.shardId())) {
                        if (!stale) {
                            shards.refresh();
                            stale = true;
                        }
                        if (!within(shards.range(where.shardId()), records, aggregate)) {
                            misplaced.incrementAndGet();
                            again.addAll(aggregate.indexes());
                            continue;
                        }
                    }
                    placed.add(new Placed(aggregate, where));
                }
                if (stale) {
                    // packed with a stale map: the rest is packed again with the fresh one
                    listingsInARow = again.isEmpty() ? 0 : listingsInARow + 1;
                    if (listingsInARow == MAX_LISTINGS_IN_A_ROW && !again.isEmpty()) {
                        throw new StillMisplacedException(again.size() + " records of " + shards.stream()
                                + " landed on shards other than theirs after " + MAX_LISTINGS_IN_A_ROW
                                + " listings of its shards in a row");
                    }
                    for (int later = w + 1; later < waves.size(); later++) {
                        waves.get(later).forEach(a -> again.addAll(a.indexes()));
                    }
                    pending = List.copyOf(again);
                    break;
                }
                listingsInARow = 0;
            }
        }
        return placed;
    }

    /** Whether every record of the aggregate hashes into the range (where consumers keep it). */
    private static boolean within(ShardMap.Range range, List<UserRecord> records, KplAggregator.Aggregate aggregate) {
        for (int index : aggregate.indexes()) {
            UserRecord r = records.get(index);
            BigInteger hash = ShardMap.hashKey(r.partitionKey(), r.explicitHashKey());
            if (!ShardMap.holds(range, hash)) {
                return false;
            }
        }
        return true;
    }

    /** The pending records packed with the map, shaped, with indexes of {@code records}. */
    private List<KplAggregator.Aggregate> pack(ShardMap map, List<UserRecord> records, List<Integer> pending) {
        List<UserRecord> users = new ArrayList<>(pending.size());
        pending.forEach(i -> users.add(records.get(i)));
        List<KplAggregator.Aggregate> packed = new ArrayList<>();
        for (KplAggregator.Aggregate a : new KplAggregator(map, maxBytes).aggregate(users)) {
            List<Integer> indexes = new ArrayList<>(a.indexes().size());
            a.indexes().forEach(i -> indexes.add(pending.get(i)));
            packed.addAll(shape.apply(new KplAggregator.Aggregate(
                    a.shardId(), a.partitionKey(), a.explicitHashKey(), a.data(), List.copyOf(indexes))));
        }
        return packed;
    }

    /** The aggregates in waves of at most one per shard, each shard's in order. */
    public static List<List<KplAggregator.Aggregate>> waves(List<KplAggregator.Aggregate> aggregates) {
        Map<String, Integer> seen = new HashMap<>();
        List<List<KplAggregator.Aggregate>> waves = new ArrayList<>();
        for (KplAggregator.Aggregate a : aggregates) {
            int wave = seen.merge(a.shardId(), 1, Integer::sum) - 1;
            if (wave == waves.size()) {
                waves.add(new ArrayList<>());
            }
            waves.get(wave).add(a);
        }
        return waves;
    }
}
