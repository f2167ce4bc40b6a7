package dev.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Which JIT the launcher gives the JVM it starts: a load run (minutes, measuring throughput) the full
 * tiered compiler; the short commands the first tier only, as the deployed functions run. Runs the
 * real script with {@code SLUICE_DRY_RUN=1}, which prints the JVM command instead of building and
 * running it.
 */
class LauncherJitTest {

    private static final Path ROOT = Path.of(System.getProperty("sluice.root", "../.."));
    private static final String FIRST_TIER_ONLY = "-XX:TieredStopAtLevel=1";

    @Test
    void aLoadRunGetsTheFullTieredCompiler() throws Exception {
        String command = launch("load", "--pipeline", "payments", "--rate", "1000", "--duration", "300");
        assertThat(command)
                .startsWith("java -XX:+UseSerialGC -jar sluice.jar load --pipeline payments")
                .doesNotContain(FIRST_TIER_ONLY);
    }

    @Test
    void shortCommandsStartOnTheFirstTierAsTheDeployedFunctionsDo() throws Exception {
        for (String verb : List.of("demo", "up", "faults", "invoke")) {
            assertThat(launch(verb)).as(verb).contains(FIRST_TIER_ONLY + " -jar sluice.jar " + verb);
        }
        // "load" elsewhere than first is an argument, not the command
        assertThat(launch("demo", "load")).contains(FIRST_TIER_ONLY);
    }

    private static String launch(String... args) throws IOException, InterruptedException {
        List<String> command =
                new ArrayList<>(List.of("bash", ROOT.resolve("sluice").toString()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put("SLUICE_DRY_RUN", "1");
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(output).isZero();
        return output.lines()
                .filter(line -> line.startsWith("java "))
                .findFirst()
                .orElse(output);
    }
}
