package dev.sluice.core.window;

import static dev.sluice.core.testing.Theories.assertFalsified;
import static dev.sluice.core.testing.Theories.fromRandom;
import static dev.sluice.core.testing.Theories.qt;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * The order of a batch's partials — window start, then key by {@link String#compareTo} — survives
 * the shortcut {@link TumblingWindows.Batch#finish} sorts with: windows and keys packed into
 * {@code long}s (the window's rank, the first bits of the key after the batch's common prefix,
 * {@link TumblingWindows#keyBits}), sorted as primitives, ties ordered by {@code compareTo}. Keys are
 * generated to hit the shortcut's edges: a long shared prefix, keys that are prefixes of others,
 * chars {@code \u0000} and {@code \uffff} (the extremes of a 16-bit unit), empty keys, keys longer
 * than the packed bits, many ties in those bits; windows in one batch are one, a few, hundreds or
 * hundreds of thousands apart (then the comparator sorts). {@link
 * #aPackingThatPadsWithTheGreatestCharIsCaught} runs the first property with a packing that pads
 * missing chars with {@code \uffff}, which it must falsify.
 */
class PartialOrderPropertyTest {

    private static final String SHARD = "shardId-000000000001";
    private static final Instant BASE = Instant.parse("2026-11-30T10:00:00Z");

    static Gen<List<String>> keySets() {
        return fromRandom(PartialOrderPropertyTest::keys);
    }

    private static List<String> keys(Random random) {
        String shared = random.nextBoolean() ? "" : "cust-00".substring(0, random.nextInt(8));
        int n = 1 + random.nextInt(random.nextBoolean() ? 8 : 120);
        List<String> keys = new ArrayList<>(n);
        String alphabet = "ab\u0000\uffff0";
        for (int i = 0; i < n; i++) {
            if (!keys.isEmpty() && random.nextInt(5) == 0) {
                // a prefix of an earlier key, or an earlier key extended
                String earlier = keys.get(random.nextInt(keys.size()));
                keys.add(
                        random.nextBoolean()
                                ? earlier.substring(0, random.nextInt(earlier.length() + 1))
                                : earlier + alphabet.charAt(random.nextInt(alphabet.length())));
                continue;
            }
            StringBuilder key = new StringBuilder(shared);
            int length = random.nextInt(random.nextBoolean() ? 4 : 9);
            for (int j = 0; j < length; j++) {
                key.append(alphabet.charAt(random.nextInt(alphabet.length())));
            }
            keys.add(key.toString());
        }
        return keys;
    }

    @Test
    void packedBitsThenCompareToIsTheKeysOrder() {
        packedBitsThenCompareToIsTheKeysOrder(TumblingWindows::keyBits);
    }

    /** Broken: a missing char counts as the greatest, so a key sorts after the keys it is a prefix of. */
    @Test
    void aPackingThatPadsWithTheGreatestCharIsCaught() {
        assertFalsified(() -> packedBitsThenCompareToIsTheKeysOrder((key, from, bits) -> {
            long units = 0;
            for (int i = from; i < from + 4; i++) {
                units = units << 16 | (i < key.length() ? key.charAt(i) : 0xffff);
            }
            return bits == 0 ? 0 : units >>> (64 - bits);
        }));
    }

    /** {@link TumblingWindows#keyBits}'s signature. */
    interface Packing {
        long bits(String key, int from, int bits);
    }

    static void packedBitsThenCompareToIsTheKeysOrder(Packing pack) {
        qt(2_000).forAll(keySets(), fromRandom(random -> random.nextInt(65))).checkAssert((keys, bits) -> {
            int common = keys.get(0).length();
            for (String key : keys) {
                common = TumblingWindows.commonPrefix(key, keys.get(0), common);
            }
            int from = common;
            String[] sorted = keys.toArray(String[]::new);
            Arrays.sort(sorted, (a, b) -> {
                long x = pack.bits(a, from, bits);
                long y = pack.bits(b, from, bits);
                return x != y ? Long.compareUnsigned(x, y) : a.compareTo(b);
            });
            String[] expected = keys.toArray(String[]::new);
            Arrays.sort(expected);
            assertThat(sorted).as("keys %s, %d bits", keys, bits).containsExactly(expected);
        });
    }

    @Test
    void aBatchsPartialsComeByWindowThenKey() {
        qt(500).forAll(keySets(), fromRandom(Random::nextLong)).checkAssert((keys, seed) -> {
            Random random = new Random(seed);
            // windows 1, 300 (more than a few bits of rank), or 100,000 (beyond the packing) apart
            long[] spreads = {60, 60, 300 * 60, 100_000 * 60};
            long spread = spreads[random.nextInt(spreads.length)];
            TumblingWindows windows = counting();
            TumblingWindows.Batch batch = windows.startBatch();
            long sequence = 1_000;
            for (String key : keys) {
                Instant time = BASE.plusSeconds(random.nextInt(3) * spread + random.nextInt(60));
                batch.add(key, time, null, BASE, SHARD, Long.toString(sequence++));
            }
            List<PartialAggregate> partials = batch.finish();
            List<PartialAggregate> expected = new ArrayList<>(partials);
            expected.sort(Comparator.comparing(PartialAggregate::windowStart).thenComparing(PartialAggregate::key));
            assertThat(partials).as("keys %s", keys).containsExactlyElementsOf(expected);
            assertThat(partials.stream().mapToLong(PartialAggregate::count).sum())
                    .isEqualTo(keys.size());
        });
    }

    @Test
    void aBatchOfMoreGroupsThanThePackingHoldsIsSortedToo() {
        TumblingWindows windows = counting();
        TumblingWindows.Batch batch = windows.startBatch();
        Random random = new Random(7);
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 70_000; i++) {
            String key = "k" + random.nextInt(1_000_000_000);
            keys.add(key);
            batch.add(key, BASE.plusSeconds(random.nextInt(120)), null, BASE, SHARD, Long.toString(1_000 + i));
        }
        List<PartialAggregate> partials = batch.finish();
        assertThat(partials.size()).isGreaterThan(1 << 16);
        List<PartialAggregate> expected = new ArrayList<>(partials);
        expected.sort(Comparator.comparing(PartialAggregate::windowStart).thenComparing(PartialAggregate::key));
        assertThat(partials).containsExactlyElementsOf(expected);
    }

    /** One-minute windows counting events, a day of allowed lateness, at a fixed clock. */
    private static TumblingWindows counting() {
        return new TumblingWindows(
                "spend",
                Duration.ofMinutes(1),
                Duration.ofDays(1),
                EnumSet.of(AggregateFunction.COUNT),
                Clock.fixed(BASE, ZoneOffset.UTC));
    }
}
