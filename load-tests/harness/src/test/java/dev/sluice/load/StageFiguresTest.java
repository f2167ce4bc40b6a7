package dev.sluice.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.aws.metrics.EmfMetrics;
import dev.sluice.core.stage.BatchResult;
import dev.sluice.core.stage.SinkReport;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A KCL stage further down a pipeline, measured from its workers' EMF lines. */
class StageFiguresTest {

    private static final long T0 = Instant.parse("2026-12-02T01:00:00Z").toEpochMilli();

    /** An EMF line exactly as a KCL worker writes it, at {@code T0 + at}. */
    private static String kclLine(long at, String shard, String first, String last, long behind) {
        List<String> lines = new ArrayList<>();
        EmfMetrics metrics = new EmfMetrics(
                "clickstream", "page-counts", lines::add, Clock.fixed(Instant.ofEpochMilli(T0 + at), ZoneOffset.UTC));
        int n = (int) (Long.parseLong(last) - Long.parseLong(first) + 1);
        metrics.kclBatch(
                shard,
                first,
                last,
                new BatchResult(n, n, 0, Map.of("aggregate", new SinkReport(n, 0)), Optional.empty(), Optional.empty()),
                "worker-1",
                behind,
                2);
        return lines.get(0);
    }

    private static StageFigures.StreamRecord record(String shard, String sequence, long occurredAt) {
        String json = "{\"eventId\":\"e" + sequence + "\",\"occurredAt\":\"" + Instant.ofEpochMilli(T0 + occurredAt)
                + "\",\"payload\":{}}";
        return new StageFigures.StreamRecord(
                shard, sequence, T0 + occurredAt + 5, json.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aKclWorkersBatchLineCarriesItsPositionsAndHowFarBehindItIs() {
        EmfBatch batch =
                EmfBatch.parse(kclLine(900, "shardId-000000000001", "10", "12", 350), "clickstream", "page-counts");

        assertThat(batch).isEqualTo(new EmfBatch(T0 + 900, "shardId-000000000001", "10", "12", null, 3, 0, 0, 350));
    }

    @Test
    void recordsReadBackFromTheRekeyHopKeepTheOriginalEventTime() {
        List<LatencyAccounting.Sent> sent = StageFigures.sentFrom(List.of(
                record("s1", "10", 100),
                new StageFigures.StreamRecord("s1", "11", T0, "not json".getBytes(StandardCharsets.UTF_8)),
                new StageFigures.StreamRecord("s1", "12", T0, "{\"eventId\":\"x\"}".getBytes(StandardCharsets.UTF_8))));

        assertThat(sent).containsExactly(new LatencyAccounting.Sent("s1", "10", T0 + 100, T0 + 105));
    }

    @Test
    void aDownstreamKclStageIsMeasuredFromTheEventTimeThroughEveryStageBeforeIt() {
        List<StageFigures.StreamRecord> records = List.of(
                record("s1", "10", 0),
                record("s1", "11", 100),
                record("s1", "12", 200),
                record("s2", "20", 1_000),
                record("s2", "21", 1_500));
        List<EmfBatch> batches = new ArrayList<>();
        for (String line : List.of(
                kclLine(1_000, "s1", "10", "12", 0),
                kclLine(4_000, "s2", "20", "21", 2_000),
                "{\"_aws\":{\"Timestamp\":1},\"pipeline\":\"clickstream\",\"stage\":\"mask-and-rekey\",\"shardId\":\"s1\"}")) {
            EmfBatch batch = EmfBatch.parse(line, "clickstream", "page-counts");
            if (batch != null) {
                batches.add(batch);
            }
        }

        StageFigures figures =
                StageFigures.of("page-counts", "kcl", "clicks-by-page", 5, StageFigures.sentFrom(records), batches, T0);

        // latencies: 1000, 900, 800 (s1, durable at 1 s), 3000, 2500 (s2, durable at 4 s)
        assertThat(figures.latency().matched()).isEqualTo(5);
        assertThat(figures.latency().unmatched()).isZero();
        assertThat(figures.latency().p50()).isEqualTo(1_000);
        // HdrHistogram at 3 significant digits
        assertThat(figures.latency().max()).isCloseTo(3_000L, within(3L));
        assertThat(figures.batches()).isEqualTo(2);
        assertThat(figures.maxMillisBehindLatest()).isEqualTo(2_000);
        // three sent in second 0 and none durable before second 1: the lag peaks at 3
        assertThat(figures.maxLag()).isEqualTo(3);
        assertThat(figures.eventsPerSecond()).isEqualTo(5 / 4.0);
    }
}
