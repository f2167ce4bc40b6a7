package dev.sluice.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportWriterTest {

    private static Report sample() {
        Map<String, Object> summary = new LinkedHashMap<>();
        summary.put("events", 1200);
        summary.put("p99 ms", 850.0);
        return new Report(
                "load",
                "payments at 200/s <local>",
                "2026-12-01T01:00:00Z",
                Map.of("cores", "2"),
                summary,
                List.of(
                        Chart.line(
                                "throughput",
                                "Throughput over time",
                                "seconds",
                                "events/s",
                                List.of(new Chart.Series(
                                        "produced", List.of(0.0, 1.0, 2.0), List.of(190.0, 200.0, 210.0)))),
                        Chart.bars(
                                "requests",
                                "AWS requests per 1,000 events",
                                "requests",
                                List.of("kinesis", "dynamodb"),
                                List.of(Chart.Series.bars("measured", List.of(20.0, 1010.0))))),
                List.of(new Report.Table(
                        "Cost", List.of("pipeline", "USD"), List.of(List.of("payments", "1.23")), "note")),
                List.of("latency is measured from occurredAt"),
                Map.of("latency", Map.of("p50", 400)));
    }

    @Test
    void writesJsonWithEveryFigureAndHtmlWithTheChartsDrawn(@TempDir Path dir) throws IOException {
        new ReportWriter().write(dir, sample());

        JsonNode json =
                new ObjectMapper().readTree(dir.resolve(ReportWriter.JSON).toFile());
        assertThat(json.path("kind").asText()).isEqualTo("load");
        assertThat(json.at("/summary/events").asInt()).isEqualTo(1200);
        assertThat(json.at("/charts/0/series/0/y/2").asDouble()).isEqualTo(210.0);
        assertThat(json.at("/data/latency/p50").asInt()).isEqualTo(400);
        assertThat(json.at("/tables/0/rows/0/1").asText()).isEqualTo("1.23");

        String html = Files.readString(dir.resolve(ReportWriter.HTML));
        assertThat(html).startsWith("<!DOCTYPE html>").doesNotContain("<script").doesNotContain("http://cdn");
        assertThat(html).contains("<svg id='throughput'").contains("<svg id='requests'");
        // the line through the three points, and a bar per category
        assertThat(html)
                .containsPattern(
                        "<polyline class='series' data-series='produced'[^>]*points='[0-9.]+,[0-9.]+ [0-9.]+,[0-9.]+ [0-9.]+,[0-9.]+'");
        assertThat(html).contains("<title>measured: 1010</title>").contains("<title>measured: 20</title>");
        assertThat(html)
                .contains("payments at 200/s &lt;local&gt;")
                .contains("<td class='n'>1.23</td>")
                .contains("<td>payments</td>");
    }

    @Test
    void ticksAreRoundAndCoverTheRange() {
        assertThat(Svg.ticks(0, 937)).containsExactly(0, 200, 400, 600, 800, 1000);
        assertThat(Svg.ticks(0, 1)).containsExactly(0, 0.2, 0.4, 0.6000000000000001, 0.8, 1);
        assertThat(Svg.label(12_500)).isEqualTo("12.5k");
        assertThat(Svg.label(2_000_000)).isEqualTo("2M");
        assertThat(Svg.label(0.25)).isEqualTo("0.25");
    }

    @Test
    void directoriesAreNamedByUtcTime() {
        assertThat(ReportWriter.directoryFor(Path.of("r"), Instant.parse("2026-12-01T01:02:03.9Z")))
                .isEqualTo(Path.of("r/20261201T010203Z"));
    }
}
