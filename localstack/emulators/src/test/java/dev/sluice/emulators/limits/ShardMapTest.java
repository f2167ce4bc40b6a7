package dev.sluice.emulators.limits;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.util.List;
import org.junit.jupiter.api.Test;

class ShardMapTest {

    private static final BigInteger MAX = BigInteger.TWO.pow(128).subtract(BigInteger.ONE);
    private static final BigInteger HALF = BigInteger.TWO.pow(127);

    private static final ShardMap TWO_SHARDS = new ShardMap(List.of(
            new ShardMap.Range("shardId-000000000000", BigInteger.ZERO, HALF.subtract(BigInteger.ONE)),
            new ShardMap.Range("shardId-000000000001", HALF, MAX)));

    @Test
    void theHashKeyIsTheMd5OfThePartitionKeyAsAnUnsigned128BitNumber() {
        // md5("a") = 0cc175b9c0f1b6a831c399e269772661
        assertThat(ShardMap.hashKey("a", null)).isEqualTo(new BigInteger("0cc175b9c0f1b6a831c399e269772661", 16));
        // md5("b") = 92eb5ffee6ae2fec3ad71c777531578f: its top bit is set, still positive
        assertThat(ShardMap.hashKey("b", null)).isEqualTo(new BigInteger("92eb5ffee6ae2fec3ad71c777531578f", 16));
    }

    @Test
    void aRecordFallsInTheShardWhoseRangeHoldsItsHashKey() {
        assertThat(TWO_SHARDS.shardOf("a", null)).isEqualTo("shardId-000000000000");
        assertThat(TWO_SHARDS.shardOf("b", null)).isEqualTo("shardId-000000000001");
    }

    @Test
    void anExplicitHashKeyWinsOverThePartitionKey() {
        assertThat(TWO_SHARDS.shardOf("a", HALF.toString())).isEqualTo("shardId-000000000001");
        assertThat(TWO_SHARDS.shardOf("b", "0")).isEqualTo("shardId-000000000000");
        assertThat(TWO_SHARDS.shardOf("b", MAX.toString())).isEqualTo("shardId-000000000001");
    }

    @Test
    void aHashKeyInNoOpenShardHasNoShard() {
        ShardMap half = new ShardMap(List.of(TWO_SHARDS.shards().get(0)));
        assertThat(half.shardOf("b", null)).isNull();
    }
}
