package dev.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Which JIT the launcher gives the JVM it starts: a load run (minutes, measuring throughput) the full
 * tiered compiler; the short commands the first tier only, as the deployed functions run. Runs the
 * real script with {@code SLUICE_DRY_RUN=1}, which prints the JVM command instead of building and
 * running it.
 */
class LauncherJitTest {

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

    private static String launch(String... args) throws Exception {
        LauncherProcess run = LauncherProcess.run("SLUICE_DRY_RUN", List.of(args));
        assertThat(run.status()).as(run.output()).isZero();
        return run.output()
                .lines()
                .filter(line -> line.startsWith("java "))
                .findFirst()
                .orElse(run.output());
    }
}
