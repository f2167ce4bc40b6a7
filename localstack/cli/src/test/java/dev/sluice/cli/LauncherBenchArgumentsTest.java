package dev.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * How the launcher ({@code ./sluice bench ...}) hands its arguments to {@code BenchCore}: the
 * benchmark's name may stand anywhere among the options, and {@code --profile} profiles the chain
 * with or without the name. Runs the real script with {@code SLUICE_BENCH_DRY_RUN=1}, which prints
 * the command instead of building and running it.
 */
class LauncherBenchArgumentsTest {

    @Test
    void profileRunsTheCoreBenchmarkWhereverTheNameStands() throws Exception {
        assertThat(bench("core", "--profile")).isEqualTo(new Run(0, "dev.sluice.bench.BenchCore --profile"));
        assertThat(bench("--profile", "core")).isEqualTo(new Run(0, "dev.sluice.bench.BenchCore --profile"));
        assertThat(bench("--profile")).isEqualTo(new Run(0, "dev.sluice.bench.BenchCore --profile"));
        assertThat(bench("--quick", "core", "--profile"))
                .isEqualTo(new Run(0, "dev.sluice.bench.BenchCore --quick --profile"));
    }

    @Test
    void withoutANameEveryBenchmarkRuns() throws Exception {
        assertThat(bench()).isEqualTo(new Run(0, "dev.sluice.bench.BenchCore --all"));
        assertThat(bench("--quick")).isEqualTo(new Run(0, "dev.sluice.bench.BenchCore --all --quick"));
        assertThat(bench("core", "--pipeline", "p.yaml"))
                .isEqualTo(new Run(0, "dev.sluice.bench.BenchCore --pipeline p.yaml"));
    }

    @Test
    void anUnknownBenchmarkIsRefusedWithOneLineAndTheUsage() throws Exception {
        Run run = bench("fast");
        assertThat(run.status()).isEqualTo(2);
        assertThat(run.firstLine())
                .isEqualTo("sluice bench: unknown benchmark 'fast' (known: core, handler, coldstart, emulators)");
    }

    @Test
    void theHandlerBenchmarkRunsAsTheDeployedFunctionsJvmUnlessAskedForC2() throws Exception {
        String function = "-Xms1g -Xmx1g -XX:+UseSerialGC -XX:+TieredCompilation -XX:TieredStopAtLevel=1";
        assertThat(bench("handler", "--quick"))
                .isEqualTo(new Run(0, function + " dev.sluice.bench.handler.HandlerBench --quick"));
        assertThat(bench("--stage", "validate", "handler"))
                .isEqualTo(new Run(0, function + " dev.sluice.bench.handler.HandlerBench --stage validate"));
        assertThat(bench("handler", "--c2"))
                .isEqualTo(new Run(0, "-Xms1g -Xmx1g -XX:+UseSerialGC dev.sluice.bench.handler.HandlerBench"));
    }

    record Run(int status, String firstLine) {}

    private static Run bench(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("bench"));
        command.addAll(List.of(args));
        LauncherProcess run = LauncherProcess.run("SLUICE_BENCH_DRY_RUN", command);
        return new Run(run.status(), run.output().lines().findFirst().orElse("").strip());
    }
}
