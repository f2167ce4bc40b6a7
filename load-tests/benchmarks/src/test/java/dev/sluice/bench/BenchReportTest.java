package dev.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.report.ReportWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BenchReportTest {

    @Test
    void benchmarkResultsGoIntoTheSameReportFormat(@TempDir Path dir) throws IOException {
        List<BenchReport.Benchmark> benchmarks = List.of(
                new BenchReport.Benchmark(
                        "StageChainBenchmark.chain",
                        Map.of("stage", ""),
                        "thrpt",
                        245_000,
                        12_000,
                        "ops/s",
                        List.of(240_000.0, 250_000.0)),
                new BenchReport.Benchmark(
                        "StageChainBenchmark.baseline",
                        Map.of("stage", ""),
                        "thrpt",
                        440_000,
                        Double.NaN,
                        "ops/s",
                        List.of(430_000.0, 450_000.0)));
        new ReportWriter()
                .write(
                        dir,
                        BenchReport.report(benchmarks, "payments", "2 × 2 s", Instant.parse("2026-12-01T01:00:00Z")));

        JsonNode json = new ObjectMapper().readTree(dir.resolve("report.json").toFile());
        assertThat(json.path("kind").asText()).isEqualTo("bench");
        assertThat(json.at("/data/benchmarks/0/score").asDouble()).isEqualTo(245_000);
        assertThat(json.at("/data/benchmarks/1/iterations/1").asDouble()).isEqualTo(450_000);
        assertThat(json.at("/summary/StageChainBenchmark.chain").asText()).isEqualTo("245,000 ops/s ± 12,000");
        String html = Files.readString(dir.resolve("report.html"));
        assertThat(html)
                .contains("<svg id='scores'")
                .contains("<svg id='iterations'")
                .contains("<title>score: 440k</title>")
                .contains("data-series='StageChainBenchmark.chain'");
    }

    @Test
    void allRunsEveryBenchmarkInTheJar() {
        assertThat(BenchCore.parse(new String[] {"--all", "--quick"}).all()).isTrue();
        assertThat(BenchCore.parse(new String[] {}).all()).isFalse();
    }
}
