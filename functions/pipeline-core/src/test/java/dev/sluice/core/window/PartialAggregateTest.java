package dev.sluice.core.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
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

    /** Events at {@code sequences} with {@code values}, with their contributions. */
    static PartialAggregate withContributions(List<String> sequences, List<String> values) {
        List<BigDecimal> amounts = values.stream().map(BigDecimal::new).toList();
        BigDecimal sum = amounts.stream().reduce(BigDecimal.ZERO, BigDecimal::add);
        BigDecimal min = amounts.stream().min(BigDecimal::compareTo).orElseThrow();
        BigDecimal max = amounts.stream().max(BigDecimal::compareTo).orElseThrow();
        String first = sequences.stream().min(SequenceNumbers::compare).orElseThrow();
        String last = sequences.stream().max(SequenceNumbers::compare).orElseThrow();
        return new PartialAggregate(
                "spend",
                "cust-1",
                START,
                END,
                sequences.size(),
                sum,
                min,
                max,
                SHARD,
                first,
                last,
                Contributions.of(sequences, amounts));
    }

    @Test
    void aRedeliveredAggregateOfWhichSomeUserRecordsWereCountedAddsOnlyTheOthers() {
        // user records 0..3 of the KPL aggregate at sequence number 12; 0 and 1 were counted
        PartialAggregate partial =
                withContributions(List.of("12", "12.1", "12.2", "12.3"), List.of("1.00", "2.00", "3.00", "4.00"));

        PartialAggregate rest = partial.after("12.1").orElseThrow();

        assertThat(rest.count()).isEqualTo(2);
        assertThat(rest.sum()).isEqualByComparingTo("7.00");
        assertThat(rest.firstSequenceNumber()).isEqualTo("12.2");
        assertThat(rest.lastSequenceNumber()).isEqualTo("12.3");
        assertThat(partial.after("12.3")).isEmpty();
        assertThat(partial.after("11")).containsSame(partial);
    }

    @Test
    void partialEntirelyAfterTheWatermarkAppliesWhole() {
        PartialAggregate partial = withContributions(List.of("11", "12", "13"), List.of("1.00", "2.00", "3.00"));

        assertThat(partial.after(null)).containsSame(partial);
        assertThat(partial.after("10")).containsSame(partial);
    }

    @Test
    void partialEntirelyAtOrBeforeTheWatermarkIsADuplicate() {
        PartialAggregate partial = withContributions(List.of("11", "12", "13"), List.of("1.00", "2.00", "3.00"));

        assertThat(partial.after("13")).isEmpty();
        assertThat(partial.after("200")).isEmpty();
    }

    @Test
    void partialStraddlingTheWatermarkIsReaggregatedFromTheRecordsAfterIt() {
        // first delivery applied 5..10; the redelivery brings 5..15
        PartialAggregate redelivered = withContributions(
                List.of("5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15"),
                List.of("-9.00", "100.00", "1", "1", "1", "1", "2.50", "0.25", "7", "-1.00", "3"));

        Optional<PartialAggregate> rest = redelivered.after("10");

        assertThat(rest)
                .contains(withContributions(
                        List.of("11", "12", "13", "14", "15"), List.of("2.50", "0.25", "7", "-1.00", "3")));
        assertThat(rest.orElseThrow().count()).isEqualTo(5);
        assertThat(rest.orElseThrow().sum()).isEqualByComparingTo("11.75");
        assertThat(rest.orElseThrow().min()).isEqualByComparingTo("-1.00");
        assertThat(rest.orElseThrow().max()).isEqualByComparingTo("7");
        assertThat(rest.orElseThrow().firstSequenceNumber()).isEqualTo("11");
        assertThat(rest.orElseThrow().lastSequenceNumber()).isEqualTo("15");
    }

    @Test
    void restrictionKeepsOrDropsTheRecordsOfOneAggregatedRecordTogether() {
        // three user records of one aggregated Kinesis record share sequence number 20
        PartialAggregate partial =
                withContributions(List.of("19", "20", "20", "20", "21"), List.of("1", "2", "3", "4", "5"));

        assertThat(partial.after("19").orElseThrow().count()).isEqualTo(4);
        assertThat(partial.after("20").orElseThrow().count()).isEqualTo(1);
        assertThat(partial.after("20").orElseThrow().sum()).isEqualByComparingTo("5");
    }

    @Test
    void watermarkIsComparedAsANumberNotAsText() {
        String shorter = "9";
        PartialAggregate partial = withContributions(List.of("8", "10", "11"), List.of("1", "2", "3"));
        String big = "49590338271490256608559692538361571095921575989136588898";
        PartialAggregate realistic = withContributions(
                List.of(big, "49590338271490256608559692538361571095921575989136588899"), List.of("1", "2"));

        assertThat(partial.after(shorter).orElseThrow().count()).isEqualTo(2);
        assertThat(realistic.after(big).orElseThrow().count()).isEqualTo(1);
        assertThat(SequenceNumbers.fromFixedWidth(SequenceNumbers.fixedWidth(big)))
                .isEqualTo(big);
        assertThat(SequenceNumbers.fixedWidth("9").compareTo(SequenceNumbers.fixedWidth("10")))
                .isNegative();
        assertThat(SequenceNumbers.fromFixedWidth(SequenceNumbers.fixedWidth("0")))
                .isEqualTo("0");
    }

    @Test
    void straddlingPartialWithoutContributionsCannotBeRestricted() {
        PartialAggregate partial = partial(3, "6", "1", "3", "11", "13");

        assertThat(partial.after("10")).containsSame(partial);
        assertThat(partial.after("13")).isEmpty();
        assertThatThrownBy(() -> partial.after("12"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("straddles watermark 12");
    }

    @Test
    void mergeConcatenatesContributions() {
        PartialAggregate earlier = withContributions(List.of("1", "2"), List.of("1", "2"));
        PartialAggregate later = withContributions(List.of("3"), List.of("3"));

        assertThat(earlier.merge(later)).isEqualTo(withContributions(List.of("1", "2", "3"), List.of("1", "2", "3")));
        assertThat(earlier.merge(partial(1, "3", "3", "3", "3", "3")).contributions())
                .isNull();
    }

    @Test
    void contributionsMustMatchTheCount() {
        assertThatThrownBy(() -> new PartialAggregate(
                        "spend",
                        "cust-1",
                        START,
                        END,
                        2,
                        null,
                        null,
                        null,
                        SHARD,
                        "1",
                        "2",
                        Contributions.of(List.of("1"), null)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1 contributions for a partial aggregate of 2 events");
    }
}
