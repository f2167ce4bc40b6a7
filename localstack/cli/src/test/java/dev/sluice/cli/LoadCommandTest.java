package dev.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code ./sluice load}'s arguments: a bad one exits 2 with one clear first line, before any stack starts. */
class LoadCommandTest {

    private static final Path ROOT = Path.of(System.getProperty("sluice.root"));

    private record Run(int status, String out, String err) {}

    private static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = new SluiceCli(
                        ROOT,
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8))
                .run(List.of(args));
        return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "load|sluice: load needs --pipeline (payments, clickstream or a definition file)",
                "load --pipeline nope|sluice: no pipeline 'nope' in pipelines/ (payments, clickstream, or a file)",
                "load --pipeline x/none.yaml|sluice: no such pipeline definition: x/none.yaml",
                "load --pipeline payments --rate 0|sluice: option --rate must be a number above 0, got '0'",
                "load --pipeline payments --rate fast|sluice: option --rate must be a number above 0, got 'fast'",
                "load --pipeline payments --duration -5|sluice: option --duration must be a positive whole number of"
                        + " seconds (or 2m, 1h), got '-5'",
                "load --pipeline payments --duration 10x|sluice: option --duration must be a positive whole number of"
                        + " seconds (or 2m, 1h), got '10x'",
                "load --pipeline payments --invalid-share 2|sluice: option --invalid-share must be between 0 and 1,"
                        + " got '2'",
                "load --pipeline payments --stream s|sluice: option --stream needs --aws (locally the stream is the"
                        + " definition's)",
                "load --pipeline payments --speed 3|sluice: unknown option --speed for 'load'",
                "load --pipeline payments --rate|sluice: option --rate needs a value",
                "load --pipeline payments --aws --aws-latency|sluice: option --aws-latency models AWS on the local"
                        + " stack; with --aws the latency is AWS's own",
            })
    void badArgumentsExitTwoWithOneClearLine(String args, String firstLine) {
        Run run = run(args.split(" "));
        assertThat(run.status()).isEqualTo(2);
        assertThat(run.err().lines().findFirst()).contains(firstLine);
        assertThat(run.out()).isEmpty();
    }

    @Test
    void durationsTakeSecondsMinutesAndHours() {
        assertThat(LoadCommand.duration("60")).isEqualTo(Duration.ofSeconds(60));
        assertThat(LoadCommand.duration("45s")).isEqualTo(Duration.ofSeconds(45));
        assertThat(LoadCommand.duration("2m")).isEqualTo(Duration.ofMinutes(2));
        assertThat(LoadCommand.duration("1h")).isEqualTo(Duration.ofHours(1));
    }

    @Test
    void settingsDefaultToTheRepositoryReportsAndPipelineFiles() {
        var settings = new LoadCommand(ROOT, System.out, System.err)
                .settings(new Arguments(
                        "load",
                        List.of("--pipeline", "clickstream", "--rate", "50", "--duration", "5"),
                        LoadCommand.OPTIONS,
                        LoadCommand.FLAGS));
        assertThat(settings.definition()).isEqualTo(ROOT.resolve("pipelines/clickstream.yaml"));
        assertThat(settings.rate()).isEqualTo(50);
        assertThat(settings.duration()).isEqualTo(Duration.ofSeconds(5));
        assertThat(settings.aws()).isFalse();
        assertThat(settings.day()).isFalse();
        assertThat(settings.reports()).isEqualTo(ROOT.resolve("load-tests/reports"));
    }
}
