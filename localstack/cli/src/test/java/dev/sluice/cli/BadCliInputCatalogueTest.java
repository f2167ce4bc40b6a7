package dev.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The committed catalogue of bad command lines, {@code bad-input/cli/manifest.txt}, run through the
 * CLI's entry point in this JVM: each exits with its status and says what is wrong in exactly one
 * line (followed by the usage for a usage error), never a stack trace.
 */
class BadCliInputCatalogueTest {

    static final Path ROOT = Path.of(System.getProperty("sluice.root"));

    /** One manifest line: {@code arguments | exit | first line of stderr}. */
    record Case(List<String> args, int exit, String message) {
        @Override
        public String toString() {
            return args.isEmpty() ? "(no arguments)" : String.join(" ", args);
        }
    }

    static List<Case> cases() throws IOException {
        List<Case> cases = new ArrayList<>();
        for (String line : Files.readAllLines(ROOT.resolve("bad-input/cli/manifest.txt"), StandardCharsets.UTF_8)) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] fields = line.split("\\|", 3);
            String args = fields[0].strip();
            cases.add(new Case(
                    args.isEmpty() ? List.of() : Arrays.asList(args.split("\\s+")),
                    Integer.parseInt(fields[1].strip()),
                    fields.length > 2 ? fields[2].strip() : ""));
        }
        return cases;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void eachBadCommandLineExitsWithOneClearLine(Case c) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();

        int status = new SluiceCli(
                        ROOT,
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8))
                .run(c.args());

        List<String> lines = err.toString(StandardCharsets.UTF_8).lines().toList();
        assertThat(status).as("exit status; stderr: %s", lines).isEqualTo(c.exit());
        switch (c.exit()) {
            case 0 -> assertThat(lines).isEmpty();
            case 2 -> {
                assertThat(lines.get(0)).isEqualTo(c.message());
                assertThat(lines.get(1)).startsWith("usage: ./sluice <command>");
                assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
            }
            default -> {
                assertThat(lines).containsExactly(c.message());
                assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
            }
        }
    }
}
