package dev.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The usage text is made from the commands themselves, and every option a command accepts is in
 * its usage lines and in the command reference (the launcher's, load runs' and the planner's
 * READMEs); the README's
 * command table names every command.
 */
class CommandUsageTest {

    private final Path root = Path.of(System.getProperty("sluice.root", "../.."));
    private final SluiceCli cli = new SluiceCli(
            root,
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));

    @Test
    void everyCommandAndEachOfItsOptionsIsInTheUsageAndTheDocs() throws IOException {
        for (Command command : cli.commands()) {
            assertThat(cli.usage()).contains(command.usage());
        }
        assertThat(problems(cli.commands(), readme(), reference())).isEmpty();
    }

    @Test
    void anOptionOrCommandTheDocsDoNotKnowIsCaught() throws IOException {
        Command invented = new Command() {
            @Override
            public String name() {
                return "invented";
            }

            @Override
            public String usage() {
                return "  invented [--events N]";
            }

            @Override
            public Set<String> options() {
                return Set.of("events", "invented-option");
            }

            @Override
            public int run(Arguments args) {
                return 0;
            }
        };
        assertThat(problems(List.of(invented), readme(), reference()))
                .containsExactlyInAnyOrder(
                        "README.md: ./sluice invented",
                        "usage of invented: --invented-option",
                        "command reference: invented --invented-option");
    }

    private static List<String> problems(List<Command> commands, String readme, String reference) {
        List<String> problems = new ArrayList<>();
        for (Command command : commands) {
            if (!readme.contains("`./sluice " + command.shownAs())) {
                problems.add("README.md: ./sluice " + command.shownAs());
            }
            List<String> options = new ArrayList<>(command.options());
            options.addAll(command.flags());
            for (String option : options) {
                if (!command.usage().contains("--" + option)) {
                    problems.add("usage of " + command.name() + ": --" + option);
                }
                if (!reference.contains("--" + option)) {
                    problems.add("command reference: " + command.name() + " --" + option);
                }
            }
        }
        return problems;
    }

    private String readme() throws IOException {
        return Files.readString(root.resolve("README.md"));
    }

    /** The command reference the README's table links to: the launcher, load runs, the planner. */
    private String reference() throws IOException {
        StringBuilder text = new StringBuilder();
        for (String doc : List.of("localstack/README.md", "load-tests/README.md", "load-tests/planner/README.md")) {
            text.append(Files.readString(root.resolve(doc)));
        }
        return text.toString();
    }
}
