package dev.sluice.emulators.limits;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class KinesisLimitsTest {

    private static final BigInteger HALF = BigInteger.TWO.pow(127);
    private static final BigInteger MAX = BigInteger.TWO.pow(128).subtract(BigInteger.ONE);

    private final TokenBucketTest.FakeClock clock = new TokenBucketTest.FakeClock();
    private final AtomicInteger listings = new AtomicInteger();
    private volatile ShardMap current =
            new ShardMap(List.of(new ShardMap.Range("shardId-000000000000", BigInteger.ZERO, MAX)));
    private final KinesisLimits limits = new KinesisLimits(
            clock,
            stream -> {
                listings.incrementAndGet();
                return current;
            },
            "000000000000");

    private long accepted(int records, String key, long bytes) {
        long ok = 0;
        for (int i = 0; i < records; i++) {
            if (limits.write("raw", key, null, bytes).accepted()) {
                ok++;
            }
        }
        return ok;
    }

    @Test
    void aShardTakesAThousandRecordsASecondAndThrottlesTheRest() {
        assertThat(accepted(1_500, "k", 100)).isEqualTo(1_000);
        assertThat(limits.throttledRecords()).isEqualTo(500);
        clock.advance(Duration.ofMillis(100));
        assertThat(accepted(500, "k", 100)).isEqualTo(100);
    }

    @Test
    void aShardTakesOneMebibyteASecond() {
        assertThat(limits.write("raw", "k", null, 600_000).accepted()).isTrue();
        KinesisLimits.Write second = limits.write("raw", "k", null, 600_000);
        assertThat(second.accepted()).isFalse();
        assertThat(second.shardId()).isEqualTo("shardId-000000000000");
        assertThat(limits.message("raw", second.shardId()))
                .isEqualTo("Rate exceeded for shard shardId-000000000000 in stream raw under account 000000000000.");
    }

    @Test
    void twoShardsHaveTwoAllowances() {
        current = new ShardMap(List.of(
                new ShardMap.Range("shardId-000000000000", BigInteger.ZERO, HALF.subtract(BigInteger.ONE)),
                new ShardMap.Range("shardId-000000000001", HALF, MAX)));
        // "a" hashes into the lower half, "b" into the upper
        assertThat(accepted(1_200, "a", 10)).isEqualTo(1_000);
        assertThat(accepted(1_200, "b", 10)).isEqualTo(1_000);
    }

    @Test
    void aReshardIsReadAgainAndTheChildrenHaveFreshAllowances() {
        assertThat(accepted(1_000, "b", 10)).isEqualTo(1_000);
        current = new ShardMap(List.of(
                new ShardMap.Range("shardId-000000000001", BigInteger.ZERO, HALF.subtract(BigInteger.ONE)),
                new ShardMap.Range("shardId-000000000002", HALF, MAX)));
        limits.reshaped("raw");
        KinesisLimits.Write write = limits.write("raw", "b", null, 10);
        assertThat(write.shardId()).isEqualTo("shardId-000000000002");
        assertThat(write.accepted()).isTrue();
        assertThat(listings).hasValue(2);
    }

    @Test
    void fiveReadsASecondPerShard() {
        for (int i = 0; i < 5; i++) {
            assertThat(limits.read("raw", "shardId-000000000000")).isTrue();
        }
        assertThat(limits.read("raw", "shardId-000000000000")).isFalse();
        assertThat(limits.read("raw", "shardId-000000000001")).isTrue();
        clock.advance(Duration.ofMillis(200));
        assertThat(limits.read("raw", "shardId-000000000000")).isTrue();
        assertThat(limits.throttledReads()).isEqualTo(1);
    }

    @Test
    void aBigReadThrottlesTheShardsNextReadsUntilTwoMebibytesASecondPayItBack() {
        assertThat(limits.read("raw", "s")).isTrue();
        limits.readBytes("raw", "s", 6L << 20); // 6 MiB returned: 2 MiB allowance, 4 MiB debt
        clock.advance(Duration.ofSeconds(1));
        assertThat(limits.read("raw", "s")).isFalse();
        clock.advance(Duration.ofMillis(1_001));
        assertThat(limits.read("raw", "s")).isTrue();
    }
}
