package dev.sluice.core.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class PartialAggregateTest {

    static final Instant START = Instant.parse("2026-11-30T10:00:00Z");
    static final Instant END = Instant.parse("2026-11-30T10:01:00Z");
    static final String SHARD = "shardId-000000000001";

    static PartialAggregate partial(long count, String sum, String min, String max, String first, String last) {
        return new PartialAggregate(
                "spend",
                "cust-1",
                START,
                END,
                count,
                sum == null ? null : new BigDecimal(sum),
                min == null ? null : new BigDecimal(min),
                max == null ? null : new BigDecimal(max),
                SHARD,
                first,
                last);
    }

    @Test
    void mergeAddsCountsAndSumsKeepsExtremesAndWidensTheSequenceRange() {
        PartialAggregate earlier = partial(2, "0.30", "0.10", "0.20", "9", "95");
        PartialAggregate later = partial(3, "-1.05", "-1.00", "0.15", "100", "1000");

        assertThat(earlier.merge(later)).isEqualTo(partial(5, "-0.75", "-1.00", "0.20", "9", "1000"));
        assertThat(later.merge(earlier)).isEqualTo(partial(5, "-0.75", "-1.00", "0.20", "9", "1000"));
    }

    @Test
    void mergeOfCountOnlyPartialsCarriesNoValues() {
        PartialAggregate merged = partial(1, null, null, null, "5", "5").merge(partial(1, null, null, null, "6", "6"));

        assertThat(merged.count()).isEqualTo(2);
        assertThat(merged.sum()).isNull();
        assertThat(merged.min()).isNull();
        assertThat(merged.max()).isNull();
        assertThat(merged.firstSequenceNumber()).isEqualTo("5");
        assertThat(merged.lastSequenceNumber()).isEqualTo("6");
    }

    @Test
    void mergeRefusesPartialsOfAnotherKeyWindowShardOrFunctions() {
        PartialAggregate mine = partial(1, "1", "1", "1", "1", "1");

        assertThatThrownBy(() -> mine.merge(new PartialAggregate(
                        "spend",
                        "cust-2",
                        START,
                        END,
                        1,
                        BigDecimal.ONE,
                        BigDecimal.ONE,
                        BigDecimal.ONE,
                        SHARD,
                        "2",
                        "2")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("different key");
        assertThatThrownBy(() -> mine.merge(new PartialAggregate(
                        "spend",
                        "cust-1",
                        END,
                        END.plusSeconds(60),
                        1,
                        BigDecimal.ONE,
                        BigDecimal.ONE,
                        BigDecimal.ONE,
                        SHARD,
                        "2",
                        "2")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("different window start");
        assertThatThrownBy(() -> mine.merge(new PartialAggregate(
                        "spend",
                        "cust-1",
                        START,
                        END,
                        1,
                        BigDecimal.ONE,
                        BigDecimal.ONE,
                        BigDecimal.ONE,
                        "shardId-000000000002",
                        "2",
                        "2")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("different shard");
        assertThatThrownBy(() -> mine.merge(partial(1, null, "1", "1", "2", "2")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("with a sum and one without");
    }

    @Test
    void inconsistentPartialsAreRefused() {
        assertThatThrownBy(() -> partial(0, null, null, null, "1", "1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one event");
        assertThatThrownBy(() -> partial(1, null, null, null, "10", "9"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("after the last");
        assertThatThrownBy(() -> partial(1, null, null, null, "1.0", "9"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a Kinesis sequence number");
        assertThatThrownBy(() -> partial(1, null, "2", "1", "1", "1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("greater than max");
        assertThatThrownBy(() -> new PartialAggregate("s", "k", END, START, 1, null, null, null, SHARD, "1", "1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not after its start");
    }

    @Test
    void sequenceNumbersOrderAsNumbers() {
        assertThat(SequenceNumbers.compare("99", "100")).isNegative();
        assertThat(SequenceNumbers.compare("100", "99")).isPositive();
        assertThat(SequenceNumbers.compare("123", "123")).isZero();
        assertThat(SequenceNumbers.compare("124", "123")).isPositive();
        assertThat(SequenceNumbers.isValid("0")).isTrue();
        assertThat(SequenceNumbers.isValid("1".repeat(129))).isTrue();
        assertThat(SequenceNumbers.isValid("01")).isFalse();
    }
}
