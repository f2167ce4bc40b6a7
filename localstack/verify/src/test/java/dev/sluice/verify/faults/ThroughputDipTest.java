package dev.sluice.verify.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The scale scenarios' throughput dip, on synthetic worker metrics (one EMF document per batch). */
class ThroughputDipTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Instant T0 = Instant.parse("2026-12-02T06:00:00Z");
    private static final Instant CHANGE = T0.plusSeconds(20);
    private static final Duration WINDOW = Duration.ofSeconds(2);

    @Test
    void aSteadyRateThroughTheChangeIsNoDip() {
        List<JsonNode> metrics = steady(0, 60_000, 25);

        ThroughputDip dip = ThroughputDip.measure(metrics, T0.plusSeconds(5), CHANGE, T0.plusSeconds(60), WINDOW)
                .orElseThrow();

        assertThat(dip.beforePerSecond()).isCloseTo(100.0, within(0.01));
        assertThat(dip.lowestPerSecond()).isCloseTo(100.0, within(0.01));
        assertThat(dip.windows()).isEqualTo(20);
        assertThat(dip.percent()).isZero();
        assertThat(dip.afterPerSecond())
                .hasSize(20)
                .allSatisfy(r -> assertThat(r).isCloseTo(100.0, within(0.01)));
        assertThat(dip.stoppedWindows()).isZero();
    }

    @Test
    void aStreamDrainedAtTheChangeGivesNoDip() {
        // everything was processed before the change; the producer had stopped: nothing to measure
        List<JsonNode> metrics = steady(0, 20_000, 25);

        assertThat(ThroughputDip.measure(metrics, T0.plusSeconds(5), CHANGE, CHANGE, WINDOW))
                .isEmpty();
    }

    @Test
    void windowsAfterTheProducerStoppedDoNotCount() {
        // the producer stopped 6 s after the change; the stream ran dry after that, which is no dip,
        // even though a straggler (a batch delivered again after a takeover) came much later
        List<JsonNode> metrics = new ArrayList<>(steady(0, 26_000, 25));
        metrics.add(batch(T0.plusSeconds(40), 25, 0));

        ThroughputDip dip = ThroughputDip.measure(metrics, T0.plusSeconds(5), CHANGE, CHANGE.plusSeconds(6), WINDOW)
                .orElseThrow();

        assertThat(dip.percent()).isZero();
        assertThat(dip.windows()).isEqualTo(3);
    }

    @Test
    void aGapAfterTheChangeGivesItsDepth() {
        // 100 records/s (25 every 250 ms), but between 4 and 6 s after the change one shard of four
        // is handed over and delivers nothing: 75 records/s in that window
        List<JsonNode> metrics = new ArrayList<>();
        for (long ms = 0; ms < 60_000; ms += 250) {
            boolean gap = ms >= 24_000 && ms < 26_000;
            for (int shard = 0; shard < 4; shard++) {
                if (!(gap && shard == 3)) {
                    metrics.add(batch(T0.plusMillis(ms), shard == 0 ? 7 : 6, 0));
                }
            }
        }
        ThroughputDip dip = ThroughputDip.measure(metrics, T0.plusSeconds(5), CHANGE, T0.plusSeconds(60), WINDOW)
                .orElseThrow();

        assertThat(dip.beforePerSecond()).isCloseTo(100.0, within(0.01));
        assertThat(dip.lowestPerSecond()).isCloseTo(76.0, within(0.01));
        assertThat(dip.percent()).isCloseTo(24.0, within(0.01));
        // the third window after the change (4-6 s) is the handed-over shard's gap; nothing stopped
        assertThat(dip.afterPerSecond().get(2)).isCloseTo(76.0, within(0.01));
        assertThat(dip.afterPerSecond().get(1)).isCloseTo(100.0, within(0.01));
        assertThat(dip.stoppedWindows()).isZero();
    }

    @Test
    void aStallWhileTheProducerRunsIsAFullDip() {
        List<JsonNode> metrics = new ArrayList<>(steady(0, 22_000, 25));
        metrics.addAll(steady(25_000, 60_000, 25));

        ThroughputDip dip = ThroughputDip.measure(metrics, T0.plusSeconds(5), CHANGE, T0.plusSeconds(60), WINDOW)
                .orElseThrow();

        assertThat(dip.lowestPerSecond()).isZero();
        assertThat(dip.percent()).isEqualTo(100.0);
        // nothing from 22 to 25 s: the window 22-24 s after T0 (the second after the change) is at 0
        assertThat(dip.stoppedWindows()).isEqualTo(1);
        assertThat(dip.afterWindows()).startsWith("100.0 0.0 50.0 100.0");
    }

    @Test
    void failedBatchesAreNotThroughput() {
        // after the change every batch fails (delivered again later): nothing was processed
        List<JsonNode> metrics = new ArrayList<>(steady(0, 20_000, 25));
        for (long ms = 20_000; ms < 30_000; ms += 250) {
            metrics.add(batch(T0.plusMillis(ms), 25, 1));
        }

        ThroughputDip dip = ThroughputDip.measure(metrics, T0.plusSeconds(5), CHANGE, T0.plusSeconds(30), WINDOW)
                .orElseThrow();

        assertThat(dip.percent()).isEqualTo(100.0);
    }

    @Test
    void nothingProcessedBeforeTheChangeGivesNoRateToCompareWith() {
        List<JsonNode> metrics = steady(20_000, 60_000, 25);

        assertThat(ThroughputDip.measure(metrics, T0.plusSeconds(5), CHANGE, T0.plusSeconds(60), WINDOW))
                .isEmpty();
    }

    @Test
    void theNoiseOfTheSteadyRateIsItsLowestWindowBeforeTheChange() {
        List<JsonNode> metrics = new ArrayList<>(steady(0, 60_000, 25));
        metrics.removeIf(m ->
                m.path("_aws").path("Timestamp").asLong() >= T0.plusSeconds(10).toEpochMilli()
                        && m.path("_aws").path("Timestamp").asLong()
                                < T0.plusSeconds(11).toEpochMilli());

        ThroughputDip dip = ThroughputDip.measure(metrics, T0.plusSeconds(6), CHANGE, T0.plusSeconds(60), WINDOW)
                .orElseThrow();

        assertThat(dip.beforeLowestPerSecond()).isCloseTo(50.0, within(0.01));
        assertThat(dip.beforePerSecond()).isCloseTo(92.86, within(0.01));
        assertThat(dip.percent()).isZero();
    }

    /** A batch of {@code perBatch} records every 250 ms from {@code fromMs} to {@code toMs} after T0. */
    private static List<JsonNode> steady(long fromMs, long toMs, int perBatch) {
        List<JsonNode> metrics = new ArrayList<>();
        for (long ms = fromMs; ms < toMs; ms += 250) {
            metrics.add(batch(T0.plusMillis(ms), perBatch, 0));
        }
        return metrics;
    }

    private static JsonNode batch(Instant at, long records, long failedBatches) {
        ObjectNode m = MAPPER.createObjectNode();
        m.putObject("_aws").put("Timestamp", at.toEpochMilli());
        m.put("workerId", "count-views-worker-1");
        m.put("Records", records);
        m.put("FailedBatches", failedBatches);
        return m;
    }
}
