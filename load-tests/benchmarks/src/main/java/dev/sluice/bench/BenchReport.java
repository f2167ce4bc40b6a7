package dev.sluice.bench;

import dev.sluice.report.Chart;
import dev.sluice.report.Report;
import dev.sluice.report.ReportWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;

/** A JMH run as a {@link Report}: every benchmark's score, error and measured iterations. */
public final class BenchReport {

    /**
     * One benchmark's result (report.json's {@code data.benchmarks}).
     *
     * @param benchmark the method, {@code Class.method}
     * @param params its JMH parameters
     * @param score the primary score
     * @param error half-width of the 99.9 % confidence interval (NaN with too few iterations)
     * @param unit the score's unit (operations are events here)
     * @param iterations the measured iterations' scores, in order
     */
    record Benchmark(
            String benchmark,
            Map<String, String> params,
            String mode,
            double score,
            double error,
            String unit,
            List<Double> iterations) {}

    /** report.json's {@code data}. */
    record Data(String workload, String plan, List<Benchmark> benchmarks) {}

    private BenchReport() {}

    static List<Benchmark> benchmarks(Collection<RunResult> results) {
        List<Benchmark> list = new ArrayList<>();
        for (RunResult run : results) {
            Result<?> primary = run.getPrimaryResult();
            Map<String, String> params = new LinkedHashMap<>();
            for (String key : run.getParams().getParamsKeys()) {
                params.put(key, run.getParams().getParam(key));
            }
            List<Double> iterations = new ArrayList<>();
            for (BenchmarkResult fork : run.getBenchmarkResults()) {
                for (IterationResult iteration : fork.getIterationResults()) {
                    iterations.add(iteration.getPrimaryResult().getScore());
                }
            }
            String name = run.getParams().getBenchmark();
            list.add(new Benchmark(
                    name.substring(name.lastIndexOf('.', name.lastIndexOf('.') - 1) + 1),
                    params,
                    run.getParams().getMode().shortLabel(),
                    primary.getScore(),
                    primary.getScoreError(),
                    primary.getScoreUnit(),
                    iterations));
        }
        return list;
    }

    static Report report(List<Benchmark> benchmarks, String workload, String plan, Instant endedAt) {
        Map<String, Object> summary = new LinkedHashMap<>();
        summary.put("workload", workload);
        summary.put("iterations", plan);
        for (Benchmark b : benchmarks) {
            summary.put(
                    b.benchmark(),
                    String.format(
                            Locale.ROOT,
                            "%,.0f %s%s",
                            b.score(),
                            b.unit(),
                            Double.isNaN(b.error()) ? "" : String.format(Locale.ROOT, " ± %,.0f", b.error())));
        }
        List<String> names = benchmarks.stream().map(Benchmark::benchmark).toList();
        List<Chart> charts = new ArrayList<>();
        charts.add(Chart.bars(
                "scores",
                "Throughput per benchmark",
                benchmarks.isEmpty() ? "" : benchmarks.get(0).unit(),
                names,
                List.of(Chart.Series.bars(
                        "score", benchmarks.stream().map(Benchmark::score).toList()))));
        List<Chart.Series> series = new ArrayList<>();
        for (Benchmark b : benchmarks) {
            List<Double> x = new ArrayList<>();
            for (int i = 0; i < b.iterations().size(); i++) {
                x.add(i + 1.0);
            }
            series.add(new Chart.Series(b.benchmark(), x, b.iterations()));
        }
        charts.add(Chart.line(
                "iterations",
                "Measured iterations",
                "iteration",
                benchmarks.isEmpty() ? "" : benchmarks.get(0).unit(),
                series));
        List<List<String>> rows = new ArrayList<>();
        for (Benchmark b : benchmarks) {
            rows.add(List.of(
                    b.benchmark(),
                    b.params().toString(),
                    b.mode(),
                    String.format(Locale.ROOT, "%,.0f", b.score()),
                    Double.isNaN(b.error()) ? "n/a" : String.format(Locale.ROOT, "± %,.0f", b.error()),
                    b.unit()));
        }
        return new Report(
                "bench",
                "JMH benchmarks of the Sluice core",
                endedAt.toString(),
                Report.thisMachine(),
                summary,
                charts,
                List.of(new Report.Table(
                        "Every benchmark",
                        List.of("benchmark", "params", "mode", "score", "error (99.9 %)", "unit"),
                        rows,
                        "one operation is one event (@OperationsPerInvocation(100) on 100-event batches)")),
                List.of("JMH, one fork per benchmark, one thread, fixed 1 GiB heap; scores are C2 peak throughput after"
                        + " warm-up (see load-tests/benchmarks/README.md). On a shared machine the scores move"
                        + " with whatever else runs."),
                new Data(workload, plan, benchmarks));
    }

    /**
     * Where a benchmark run's report goes: {@code load-tests/reports/<UTC time>} of the checkout
     * ({@code -Dsluice.root}), else {@code ./sluice-bench-reports/<UTC time>}.
     */
    public static Path directory(Instant at) {
        String root = System.getProperty("sluice.root");
        Path reports = root != null && !root.isBlank() && Files.isDirectory(Path.of(root, "load-tests"))
                ? Path.of(root, "load-tests", "reports")
                : Path.of("sluice-bench-reports").toAbsolutePath();
        return ReportWriter.directoryFor(reports, at);
    }

    /** Writes the report under the checkout's load-tests/reports (or ./sluice-bench-reports) and returns its directory. */
    static Path write(Collection<RunResult> results, BenchCore.Settings settings, String stage, String workload) {
        Instant now = Instant.now();
        Path directory = directory(now);
        String plan = String.format(
                Locale.ROOT,
                "%d × %s warm-up, %d × %s measurement%s",
                settings.warmupIterations(),
                settings.warmupTime(),
                settings.measurementIterations(),
                settings.measurementTime(),
                settings.quick() ? " (quick)" : "");
        new ReportWriter().write(directory, report(benchmarks(results), workload, plan, now));
        return directory;
    }
}
