package dev.sluice.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class LatencyAccountingTest {

    private static final long T0 = 1_700_000_000_000L;

    private static LatencyAccounting.Sent sent(String shard, String sequence, long occurredAt, long acked) {
        return new LatencyAccounting.Sent(shard, sequence, T0 + occurredAt, T0 + acked);
    }

    private static EmfBatch batch(long at, String shard, String first, String last, String failedFrom) {
        return new EmfBatch(T0 + at, shard, first, last, failedFrom, 0, 0, 0);
    }

    @Test
    void eachRecordTakesTheFirstBatchThatCompletedIt() {
        List<LatencyAccounting.Sent> sent = List.of(
                sent("s0", "100", 0, 50),
                sent("s0", "200", 100, 150),
                sent("s0", "300", 1_100, 1_150),
                sent("s1", "100", 200, 250));
        List<EmfBatch> batches = List.of(
                // failed from 200: only 100 is done at 1,000 ms
                batch(1_000, "s0", "100", "300", "200"),
                // the redelivery completes 200 and 300; 100 again is not counted twice
                batch(2_500, "s0", "100", "300", null),
                batch(1_200, "s1", "100", "100", null));

        LatencyAccounting.Result r = LatencyAccounting.account(sent, batches, T0);

        assertThat(r.matched()).isEqualTo(4);
        assertThat(r.unmatched()).isZero();
        // latencies: 1,000 (s0/100), 2,400 (s0/200), 1,400 (s0/300), 1,000 (s1/100)
        assertThat(r.histogram().getMaxValue()).isBetween(2_399L, 2_401L);
        assertThat(r.histogram().getMinValue()).isBetween(999L, 1_001L);
        assertThat(r.histogram().getTotalCount()).isEqualTo(4);
        // second 0: 3 produced, none completed; 1: 1 produced, 2 completed; 2: 2 completed
        assertThat(r.seconds()).extracting(LatencyAccounting.Second::produced).containsExactly(3L, 1L, 0L);
        assertThat(r.seconds()).extracting(LatencyAccounting.Second::completed).containsExactly(0L, 2L, 2L);
        assertThat(r.seconds()).extracting(LatencyAccounting.Second::lag).containsExactly(3L, 2L, 0L);
        assertThat(r.seconds().get(2).p50Ms()).isBetween(1_399.0, 1_401.0);
    }

    @Test
    void aCompressedDayAveragesTheTargetRateAndPeaksInTheEvening() {
        double sum = 0;
        int steps = 10_000;
        for (int i = 0; i < steps; i++) {
            sum += LoadRun.rateMultiplier(true, (i + 0.5) / steps);
            assertThat(LoadRun.rateMultiplier(false, (i + 0.5) / steps)).isEqualTo(1.0);
        }
        assertThat(sum / steps).isBetween(0.999, 1.001);
        assertThat(LoadRun.rateMultiplier(true, 19.5 / 24)).isGreaterThan(2.2);
        assertThat(LoadRun.rateMultiplier(true, 4.0 / 24)).isLessThan(0.15);
    }

    @Test
    void lagNeverGoesBelowZeroWhenAPutIsAcknowledgedAfterItsRecordsWereConsumed() {
        // sent at 0.9 s, consumed at 1.2 s, but the put returned only at 2.5 s
        List<LatencyAccounting.Sent> sent = List.of(sent("s0", "1", 900, 2_500));
        LatencyAccounting.Result r = LatencyAccounting.account(sent, List.of(batch(1_200, "s0", "1", "1", null)), T0);
        assertThat(r.seconds()).extracting(LatencyAccounting.Second::lag).containsExactly(1L, 0L);
    }

    @Test
    void sequenceNumbersCompareAsNumbersNotText() {
        // "99" < "100" numerically, though not as text
        List<LatencyAccounting.Sent> sent = List.of(sent("s0", "99", 0, 10), sent("s0", "100", 0, 10));
        LatencyAccounting.Result r = LatencyAccounting.account(sent, List.of(batch(500, "s0", "99", "100", null)), T0);
        assertThat(r.matched()).isEqualTo(2);
    }

    @Test
    void recordsNoBatchReportsAreUnmatchedNotGuessed() {
        List<LatencyAccounting.Sent> sent = List.of(sent("s0", "1", 0, 10), sent("s0", "2", 0, 10));
        LatencyAccounting.Result r = LatencyAccounting.account(
                sent,
                List.of(
                        batch(500, "s0", "1", "1", null),
                        batch(600, "s9", "1", "2", null),
                        batch(700, "s0", null, null, null)),
                T0);
        assertThat(r.matched()).isEqualTo(1);
        assertThat(r.unmatched()).isEqualTo(1);
    }

    @Test
    void emfLinesOfOtherStagesAreIgnored() {
        String line = "{\"_aws\":{\"Timestamp\":5},\"pipeline\":\"payments\",\"stage\":\"validate\",\"shardId\":\"s0\","
                + "\"firstSequenceNumber\":\"1\",\"lastSequenceNumber\":\"9\",\"Records\":9,\"DeadLettered\":1,"
                + "\"AbsorbedDuplicates\":2}";
        EmfBatch batch = EmfBatch.parse(line, "payments", "validate");
        assertThat(batch).isEqualTo(new EmfBatch(5, "s0", "1", "9", null, 9, 1, 2));
        assertThat(EmfBatch.parse(line, "payments", "other")).isNull();
        assertThat(EmfBatch.parse("{\"_aws\":", "payments", "validate")).isNull();
    }
}
