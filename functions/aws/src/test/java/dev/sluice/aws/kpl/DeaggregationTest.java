package dev.sluice.aws.kpl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.event.InboundRecord;
import dev.sluice.core.event.Position;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** De-aggregation against the range of the shard a record was read from, as the KCL does it. */
class DeaggregationTest {

    private static final BigInteger HALF = BigInteger.TWO.pow(127);
    private static final ShardMap.Range LOW =
            new ShardMap.Range("shardId-000000000001", BigInteger.ZERO, HALF.subtract(BigInteger.ONE));

    /** A partition key whose MD5 falls in the lower (or upper) half of the hash-key space. */
    private static String key(boolean low) {
        for (int i = 0; ; i++) {
            String key = "k-" + i;
            if (ShardMap.holds(LOW, ShardMap.hashKey(key, null)) == low) {
                return key;
            }
        }
    }

    private static InboundRecord aggregate(String... keys) {
        List<UserRecord> users = java.util.Arrays.stream(keys)
                .map(k -> new UserRecord(k, k.getBytes(StandardCharsets.UTF_8)))
                .toList();
        return new InboundRecord(
                "s", Position.of(LOW.shardId(), "1"), keys[0], KplAggregates.encode(users), Instant.EPOCH);
    }

    @Test
    void anAggregateWithOneRecordOutsideItsShardIsDroppedWholeAndOneInsideIsKept() {
        String in = key(true);
        String out = key(false);
        List<InboundRecord> batch = List.of(aggregate(in, out, in), aggregate(in, in));

        List<InboundRecord> records = Deaggregation.of(batch, (stream, shard) -> LOW);

        assertThat(records)
                .hasSize(2)
                .allSatisfy(r -> assertThat(r.partitionKey()).isEqualTo(in));
        // without the range (the old behaviour) the misplaced aggregate's records would be read too
        assertThat(Deaggregation.of(batch)).hasSize(5);
    }

    @Test
    void aFailureToLearnTheShardsRangeFailsTheBatch() {
        List<InboundRecord> batch = List.of(aggregate(key(true)));

        assertThatThrownBy(() -> Deaggregation.of(batch, (stream, shard) -> {
                    throw new IllegalStateException("ListShards refused");
                }))
                .hasMessageContaining("ListShards refused");
    }
}
