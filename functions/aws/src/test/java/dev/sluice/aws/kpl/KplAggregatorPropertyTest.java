package dev.sluice.aws.kpl;

import static dev.sluice.core.testing.Theories.assertFalsified;
import static dev.sluice.core.testing.Theories.fromRandom;
import static dev.sluice.core.testing.Theories.qt;
import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * Aggregate, then de-aggregate, gives back every user record once, in order per shard, with its
 * partition key, explicit hash key and bytes; every aggregate stays within its size limit and holds
 * records of its own shard only. Run against arbitrary user records (empty and large payloads,
 * non-ASCII keys, explicit hash keys or not), shard layouts and size limits; {@link
 * #aBrokenAggregatorIsCaught} runs it against an aggregator that reverses each aggregate's records.
 */
class KplAggregatorPropertyTest {

    /** Generated user records, the stream's shard count and the aggregates' size limit. */
    record Case(List<UserRecord> records, int shards, int maxBytes) {}

    static Gen<Case> cases() {
        return fromRandom(random -> {
            int n = random.nextInt(120);
            List<String> keys = new ArrayList<>();
            int distinctKeys = 1 + random.nextInt(12);
            for (int i = 0; i < distinctKeys; i++) {
                keys.add(text(random, 1 + random.nextInt(40)));
            }
            List<UserRecord> records = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                byte[] data = new byte[random.nextInt(10) == 0 ? random.nextInt(3000) : random.nextInt(200)];
                random.nextBytes(data);
                String hashKey = random.nextInt(4) == 0 ? new BigInteger(128, random).toString() : null;
                records.add(new UserRecord(keys.get(random.nextInt(keys.size())), hashKey, data));
            }
            return new Case(records, 1 + random.nextInt(5), 3200 + random.nextInt(20_000));
        });
    }

    private static String text(Random random, int length) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < length; i++) {
            s.appendCodePoint(random.nextInt(6) == 0 ? 0x00E9 + random.nextInt(0x500) : 'a' + random.nextInt(26));
        }
        return s.toString();
    }

    static ShardMap shards(int count) {
        List<ShardMap.Range> ranges = new ArrayList<>();
        BigInteger width = ShardMap.MAX_HASH_KEY.add(BigInteger.ONE).divide(BigInteger.valueOf(count));
        for (int i = 0; i < count; i++) {
            BigInteger start = width.multiply(BigInteger.valueOf(i));
            BigInteger end =
                    i == count - 1 ? ShardMap.MAX_HASH_KEY : start.add(width).subtract(BigInteger.ONE);
            ranges.add(new ShardMap.Range("shardId-00000000000" + i, start, end));
        }
        return new ShardMap(ranges);
    }

    @Test
    void aggregatedRecordsDeaggregateToThemselvesOncePerShardInOrder() {
        aggregatedRecordsDeaggregateToThemselves((map, max) -> new KplAggregator(map, max)::aggregate);
    }

    /** Broken: every aggregate holds its records in reverse order. */
    @Test
    void aBrokenAggregatorIsCaught() {
        assertFalsified(() -> aggregatedRecordsDeaggregateToThemselves((map, max) -> records -> {
            List<KplAggregator.Aggregate> out = new ArrayList<>();
            for (KplAggregator.Aggregate a : new KplAggregator(map, max).aggregate(records)) {
                List<UserRecord> reversed = new ArrayList<>();
                a.indexes().forEach(i -> reversed.add(0, records.get(i)));
                out.add(new KplAggregator.Aggregate(
                        a.shardId(),
                        a.partitionKey(),
                        a.explicitHashKey(),
                        KplAggregates.encode(reversed),
                        a.indexes()));
            }
            return out;
        }));
    }

    interface Aggregating {
        List<KplAggregator.Aggregate> aggregate(List<UserRecord> records);
    }

    void aggregatedRecordsDeaggregateToThemselves(BiFunction<ShardMap, Integer, Aggregating> aggregator) {
        qt(200).forAll(cases()).checkAssert(c -> {
            ShardMap map = shards(c.shards());
            List<KplAggregator.Aggregate> aggregates =
                    aggregator.apply(map, c.maxBytes()).aggregate(c.records());
            List<Integer> seen = new ArrayList<>();
            for (KplAggregator.Aggregate a : aggregates) {
                int kinesisBytes = a.data().length + a.partitionKey().getBytes(StandardCharsets.UTF_8).length;
                assertThat(kinesisBytes).isLessThanOrEqualTo(c.maxBytes());
                assertThat(map.shardFor(new BigInteger(a.explicitHashKey()))).isEqualTo(a.shardId());
                List<UserRecord> decoded;
                try {
                    decoded = KplAggregates.decode(a.data());
                } catch (MalformedAggregateException e) {
                    throw new AssertionError("an aggregate does not decode: " + e.getMessage(), e);
                }
                assertThat(decoded).hasSameSizeAs(a.indexes());
                for (int j = 0; j < decoded.size(); j++) {
                    UserRecord expected = c.records().get(a.indexes().get(j));
                    UserRecord actual = decoded.get(j);
                    assertThat(actual.partitionKey()).isEqualTo(expected.partitionKey());
                    assertThat(actual.explicitHashKey()).isEqualTo(expected.explicitHashKey());
                    assertThat(actual.data()).isEqualTo(expected.data());
                    assertThat(map.shardFor(ShardMap.hashKey(actual.partitionKey(), actual.explicitHashKey())))
                            .isEqualTo(a.shardId());
                }
                seen.addAll(a.indexes());
            }
            assertThat(seen)
                    .containsExactlyInAnyOrderElementsOf(
                            java.util.stream.IntStream.range(0, c.records().size())
                                    .boxed()
                                    .toList());
            // per shard, the aggregates (in put order) hold their records in the order given
            java.util.Map<String, List<Integer>> perShard = new java.util.HashMap<>();
            for (KplAggregator.Aggregate a : aggregates) {
                perShard.computeIfAbsent(a.shardId(), s -> new ArrayList<>()).addAll(a.indexes());
            }
            perShard.values().forEach(order -> assertThat(order).isSorted());
        });
    }
}
