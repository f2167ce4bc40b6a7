package dev.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The real launcher script run with a dry-run switch set: what it printed, and its exit status. */
record LauncherProcess(int status, String output) {

    private static final Path ROOT = Path.of(System.getProperty("sluice.root", "../.."));

    /**
     * Runs {@code ./sluice ARGS} with {@code dryRunVariable=1} in its environment. Only call it with
     * arguments the launcher answers without running anything under that switch.
     */
    static LauncherProcess run(String dryRunVariable, List<String> args) throws IOException, InterruptedException {
        List<String> command =
                new ArrayList<>(List.of("bash", ROOT.resolve("sluice").toString()));
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put(dryRunVariable, "1");
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return new LauncherProcess(process.exitValue(), output);
    }
}
