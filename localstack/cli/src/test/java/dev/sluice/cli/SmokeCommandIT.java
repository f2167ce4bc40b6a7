package dev.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code ./sluice smoke --pipeline P} against a local stack, the code path {@code --aws} takes in an
 * account: valid events and catalogued bad records put as source-operator, each target read back as
 * the persona allowed to read it (IAM enforced), and the RESULT line says so. The SnapStart Restore
 * Duration is AWS-only: locally every Lambda stage says n/a, never a figure.
 */
class SmokeCommandIT {

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            payments    | RESULT pipeline=payments valid=5 invalid=5 lake=5 table=5 aggregated=5 dead_lettered=5 lost=0 duplicates=0 ok=true restore_ms=n/a restore_ms_validate=n/a iam=enforced access_denied=0
            clickstream | RESULT pipeline=clickstream valid=5 invalid=3 lake=5 table=5 aggregated=5 dead_lettered=3 lost=0 duplicates=0 ok=true restore_ms=n/a restore_ms_mask_and_rekey=n/a iam=enforced access_denied=0
            """)
    void smokePassesAgainstTheLocalStackReadingEachTargetAsItsPersona(String pipeline, String result) {
        Path root = Path.of(System.getProperty("sluice.root"));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        SluiceCli cli = new SluiceCli(
                root,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));

        int status = cli.run(List.of("smoke", "--pipeline", pipeline));

        String printed = out.toString(StandardCharsets.UTF_8);
        assertThat(status).as(printed + err.toString(StandardCharsets.UTF_8)).isZero();
        List<String> lines = printed.lines().toList();
        assertThat(lines.get(lines.size() - 1)).isEqualTo(result);
        // who read what: the dead letters (raw records) only admin may, the rest a reading persona
        assertThat(printed)
                .containsPattern("dead-letter queue (payments|clicks)-dlq +admin\n")
                .containsPattern("producer into (payments|clicks)-raw +source-operator\n")
                .containsPattern("lake (payments|clicks)-lake +analyst\n")
                .containsPattern("  restore: (validate|mask-and-rekey) n/a: Restore Duration is AWS-only \\(the local"
                        + " stack takes no snapshots\\)");
    }
}
