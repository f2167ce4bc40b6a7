package dev.sluice.load;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The live line: done and lag in the same unit as what the consumer acknowledges. */
class LoadProgressTest {

    @Test
    void withoutAggregationDoneAndLagCountEvents() {
        String line = LoadProgress.line("producing", 10, 60, 2_000, 2_000, 1_500, false, -1);

        assertThat(line).contains("sent 2,000 (200/s)").contains("done 1,500  lag 500");
    }

    @Test
    void withAggregationDoneAndLagCountKinesisRecordsAgainstTheRecordsSent() {
        // 2,000 events in 25 aggregates, 20 of them acknowledged: 5 records behind, not 1,980 events
        String line = LoadProgress.line("producing", 10, 60, 2_000, 25, 20, false, -1);

        assertThat(line).contains("sent 2,000 (200/s)").contains("in 25 Kinesis records: done 20  lag 5 records");
    }

    @Test
    void offATerminalALineIsPrintedOnceEveryTenSeconds() {
        assertThat(LoadProgress.line("producing", 12, 60, 10, 10, 5, false, 1)).isEmpty();
        assertThat(LoadProgress.line("producing", 21, 60, 10, 10, 5, false, 1)).endsWith(System.lineSeparator());
        assertThat(LoadProgress.line("producing", 12, 60, 10, 10, 5, true, 1)).startsWith("\r");
    }
}
