package dev.sluice.localstack.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Command-line errors: exit status 2, one line naming the problem, then the usage. */
class SluiceCliTest {

    @ParameterizedTest(name = "[{index}] {1}")
    @CsvSource(delimiter = '|', textBlock = """
            ''                              | sluice: no command given
            frobnicate                      | sluice: unknown command 'frobnicate'
            demo --events                   | sluice: option --events needs a value
            demo --events abc               | sluice: option --events must be a positive whole number, got 'abc'
            demo --events 0                 | sluice: option --events must be a positive whole number, got '0'
            demo --speed 3                  | sluice: unknown option --speed for 'demo'
            demo --events 5 --events 6      | sluice: option --events given twice
            demo extra                      | sluice: 'demo' takes no argument 'extra'
            invoke                          | sluice: invoke needs --event FILE
            invoke --event /no/such/file    | sluice: no such file: /no/such/file
            """)
    void badCommandLineExitsTwoWithOneClearLineAndTheUsage(String args, String firstLine) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        SluiceCli cli = new SluiceCli(
                Path.of(System.getProperty("sluice.root")),
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));

        int status = cli.run(args.isEmpty() ? List.of() : List.of(args.split(" ")));

        assertThat(status).isEqualTo(2);
        List<String> lines = err.toString(StandardCharsets.UTF_8).lines().toList();
        assertThat(lines.get(0)).isEqualTo(firstLine);
        assertThat(lines.get(1)).startsWith("usage: ./sluice <command>");
        assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
    }
}
