package dev.sluice.core.definition;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The stage's environment variables have one source of truth, {@link EnvironmentNames#VARIABLES}:
 * every constant of the class is in it, and the table in {@code docs/pipeline-definition.md} lists
 * exactly those variables with the same reader and the same "local runs only".
 */
class EnvironmentDocsTest {

    private static final String HEADER = "| variable | read by | set | value |";

    @Test
    void everyVariableConstantIsInTheTypedList() throws IllegalAccessException {
        List<String> constants = new ArrayList<>();
        for (Field field : EnvironmentNames.class.getDeclaredFields()) {
            if (Modifier.isStatic(field.getModifiers()) && field.getType() == String.class) {
                constants.add((String) field.get(null));
            }
        }
        assertThat(EnvironmentNames.VARIABLES.stream().map(EnvironmentNames.Variable::name))
                .containsExactlyInAnyOrderElementsOf(constants);
    }

    @Test
    void theDocumentedTableIsTheTypedList() throws IOException {
        assertThat(documentedRows(Files.readAllLines(definitionDoc())))
                .containsExactlyInAnyOrderElementsOf(EnvironmentNames.VARIABLES.stream()
                        .map(EnvironmentDocsTest::row)
                        .collect(Collectors.toList()));
    }

    @Test
    void aVariableMissingFromTheTableOrInventedThereIsCaught() throws IOException {
        List<String> lines = new ArrayList<>(Files.readAllLines(definitionDoc()));
        List<String> rows = documentedRows(lines);
        List<String> expected = EnvironmentNames.VARIABLES.stream()
                .map(EnvironmentDocsTest::row)
                .collect(Collectors.toList());

        lines.removeIf(line -> line.startsWith("| `SLUICE_SCHEMAS_DIR`"));
        assertThat(documentedRows(lines)).isNotEqualTo(rows).doesNotContain("SLUICE_SCHEMAS_DIR stage local");

        lines.add(lines.indexOf(HEADER) + 2, "| `SLUICE_INVENTED` | stage | always | nothing |");
        assertThat(documentedRows(lines)).contains("SLUICE_INVENTED stage always");
        assertThat(expected).doesNotContain("SLUICE_INVENTED stage always");
    }

    /** The table's rows as "NAME reader set", e.g. {@code SLUICE_TABLE_<NAME> stage always}. */
    private static List<String> documentedRows(List<String> lines) {
        int header = lines.indexOf(HEADER);
        assertThat(header)
                .as("docs/pipeline-definition.md has the table headed %s", HEADER)
                .isNotNegative();
        List<String> rows = new ArrayList<>();
        for (String line : lines.subList(header + 2, lines.size())) {
            if (!line.startsWith("|")) {
                break;
            }
            List<String> cells = Arrays.stream(line.split("\\|"))
                    .map(String::trim)
                    .filter(cell -> !cell.isEmpty())
                    .collect(Collectors.toList());
            String name = cells.get(0).replace("`", "");
            String set = cells.get(2).equals("local runs only") ? "local" : cells.get(2);
            rows.add(name + " " + cells.get(1).toLowerCase(Locale.ROOT).replace(' ', '-') + " " + set);
        }
        return rows;
    }

    private static String row(EnvironmentNames.Variable variable) {
        String reader = variable.readBy() == EnvironmentNames.Reader.STAGE ? "stage" : "kcl-worker";
        return variable.documented() + " " + reader + " " + (variable.localOnly() ? "local" : "always");
    }

    private static Path definitionDoc() {
        Path root = Path.of(System.getProperty("sluice.root", "../.."));
        return root.resolve("docs").resolve("pipeline-definition.md");
    }
}
