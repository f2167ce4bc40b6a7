package dev.sluice.core.definition;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import dev.sluice.core.TestFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every field a pipeline definition accepts is documented in {@code docs/pipeline-definition.md}, and
 * every field the document's tables name is accepted. The accepted fields come from the code: Jackson's
 * introspection of the records {@link DefinitionLoader} binds the YAML to (with the loader's own
 * mapper), starting at {@link PipelineDefinition}, and {@link StepType} for the steps and their
 * options (steps have their own deserializer). Each block is documented under a heading named after
 * the field that holds it ({@code streams}, {@code batching}, ...; the root under "Top level"), in
 * the first table whose first column is {@code field}, {@code step} (options in the second column)
 * or {@code sink} ({@code - lake: NAME}); the personas the {@code access} map takes as keys ({@link
 * Persona}) in the top level's {@code access} row, after "Personas:".
 */
class DefinitionFieldsDocsTest {

    private static final String TOP_LEVEL = "Top level";
    /** The personas, keys of the top level's access map: listed in its row after "Personas:". */
    private static final String ACCESS = "access";

    private static final Pattern HEADING = Pattern.compile("^#{2,3} (.+)$");
    private static final Pattern CODE = Pattern.compile("`([^`]+)`");
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z][A-Za-z0-9]*");
    private static final Pattern SINK = Pattern.compile("`- ([A-Za-z]+): [A-Z]+`");

    @Test
    void theDocumentNamesExactlyTheFieldsTheDefinitionAccepts() throws IOException {
        assertThat(problems(Files.readAllLines(definitionDoc())))
                .as("docs/pipeline-definition.md against the definition's binding")
                .isEmpty();
    }

    @Test
    void theCodeSideFindsEveryBlock() {
        Map<String, Block> accepted = accepted();

        assertThat(accepted)
                .containsKeys(
                        TOP_LEVEL,
                        "streams",
                        "lakes",
                        "tables",
                        "queues",
                        "references",
                        "stages",
                        "steps",
                        "sinks",
                        "batching",
                        "failure",
                        "function",
                        "access");
        assertThat(accepted.get("references").fields()).contains("default").doesNotContain("defaultItem");
        assertThat(accepted.get("steps").fields()).contains("aggregate", "aggregate.scale", "route.otherwise");
    }

    @Test
    void aFieldMissingFromTheDocumentOrInventedThereIsCaught() throws IOException {
        List<String> lines = new ArrayList<>(Files.readAllLines(definitionDoc()));
        assertThat(lines.removeIf(line -> line.startsWith("| `retentionHours` |")))
                .isTrue();
        int streams = lines.indexOf("## streams");
        lines.add(streams + 4, "| `compression` | string | none | Invented. |");
        int steps = lines.indexOf("### steps");
        int aggregate = steps;
        while (!lines.get(aggregate).startsWith("| `aggregate` |")) {
            aggregate++;
        }
        lines.set(aggregate, lines.get(aggregate).replace("`scale` (default `2`; 0–37), ", ""));

        assertThat(problems(lines))
                .containsExactlyInAnyOrder(
                        "streams: the definition accepts 'retentionHours' (StreamDefinition), the document"
                                + " does not name it",
                        "streams: the document names 'compression', which the definition does not accept",
                        "steps: the definition accepts 'aggregate.scale' (StepType), the document does not name it");
    }

    /** A block of the definition: the class (or enum) that accepts its fields, and the fields. */
    record Block(String owner, Set<String> fields) {}

    /** Each block's accepted fields, by the heading it is documented under; steps as names and step.option. */
    static Map<String, Block> accepted() {
        ObjectMapper mapper = TestFiles.loader().mapper();
        Map<String, Block> blocks = new LinkedHashMap<>();
        walk(mapper, TOP_LEVEL, mapper.constructType(PipelineDefinition.class), blocks);
        // the keys of the access block are personas, read by Persona's @JsonCreator
        blocks.put(
                ACCESS,
                new Block(
                        Persona.class.getSimpleName(),
                        new TreeSet<>(Arrays.stream(Persona.values())
                                .map(Persona::yamlName)
                                .toList())));
        return blocks;
    }

    private static void walk(ObjectMapper mapper, String heading, JavaType type, Map<String, Block> blocks) {
        BeanDescription description = mapper.getDeserializationConfig().introspect(type);
        Set<String> fields = new TreeSet<>();
        blocks.put(heading, new Block(type.getRawClass().getSimpleName(), fields));
        for (BeanPropertyDefinition property : description.findProperties()) {
            if (!property.couldDeserialize()) {
                continue;
            }
            fields.add(property.getName());
            JavaType value = property.getPrimaryType();
            JavaType block = value.isContainerType() ? value.getContentType() : value;
            if (block.hasRawClass(StepDefinition.class)) {
                blocks.put(property.getName(), new Block(StepType.class.getSimpleName(), steps()));
            } else if (isDefinitionRecord(block)) {
                walk(mapper, property.getName(), block, blocks);
            }
        }
    }

    private static boolean isDefinitionRecord(JavaType type) {
        return type.getRawClass().isRecord()
                && type.getRawClass().getPackageName().equals(PipelineDefinition.class.getPackageName());
    }

    private static Set<String> steps() {
        Set<String> steps = new TreeSet<>();
        for (StepType type : StepType.values()) {
            steps.add(type.yamlName());
            type.options().forEach(option -> steps.add(type.yamlName() + "." + option));
        }
        return steps;
    }

    /** Each definition table of the document, by its heading; steps as names and step.option. */
    static Map<String, Set<String>> documented(List<String> lines) {
        Map<String, Set<String>> blocks = new LinkedHashMap<>();
        String heading = null;
        boolean inTable = false;
        String kind = null;
        for (String line : lines) {
            Matcher h = HEADING.matcher(line);
            if (h.matches()) {
                heading = h.group(1).trim();
                inTable = false;
                continue;
            }
            if (!line.startsWith("|")) {
                inTable = false;
                continue;
            }
            List<String> cells = cells(line);
            if (!inTable) {
                inTable = true;
                kind = cells.get(0);
                if (!Set.of("field", "step", "sink").contains(kind) || blocks.containsKey(heading)) {
                    kind = null; // a table of something else (attributes, variables), or a second table
                } else {
                    blocks.put(heading, new TreeSet<>());
                }
                continue;
            }
            if (kind == null || cells.get(0).startsWith("---")) {
                continue;
            }
            Set<String> fields = blocks.get(heading);
            switch (kind) {
                case "field" -> {
                    String field = cells.get(0).replace("`", "");
                    fields.add(field);
                    int personas = cells.get(cells.size() - 1).indexOf("Personas:");
                    if (heading.equals(TOP_LEVEL) && field.equals(ACCESS) && personas >= 0) {
                        Set<String> names = new TreeSet<>();
                        Matcher persona =
                                CODE.matcher(cells.get(cells.size() - 1).substring(personas));
                        while (persona.find()) {
                            names.add(persona.group(1));
                        }
                        blocks.put(ACCESS, names);
                    }
                }
                case "sink" -> {
                    Matcher sink = SINK.matcher(cells.get(0));
                    // a sink's option (`aggregate`) is a row of its own
                    fields.add(sink.find() ? sink.group(1) : cells.get(0).replace("`", ""));
                }
                default -> {
                    String step = cells.get(0).replace("`", "");
                    fields.add(step);
                    // the options are the code spans outside parentheses: `when`: CEL expression,
                    // `functions` (default `[count]`; ...), `rules`: list of `{when: ..., to: ...}`
                    Matcher option = CODE.matcher(cells.get(1).replaceAll("\\([^)]*\\)", ""));
                    while (option.find()) {
                        if (IDENTIFIER.matcher(option.group(1)).matches()) {
                            fields.add(step + "." + option.group(1));
                        }
                    }
                }
            }
        }
        return blocks;
    }

    private static List<String> cells(String row) {
        return Arrays.stream(row.substring(1).split("(?<!\\\\)\\|"))
                .map(String::trim)
                .toList();
    }

    /** What differs, one line a field: "heading: ...". */
    static List<String> problems(List<String> lines) {
        Map<String, Block> accepted = accepted();
        Map<String, Set<String>> documented = documented(lines);
        List<String> problems = new ArrayList<>();
        accepted.forEach((heading, block) -> {
            Set<String> fields = block.fields();
            Set<String> doc = documented.get(heading);
            if (doc == null) {
                problems.add(heading + ": the document has no table of this block's fields under a heading '" + heading
                        + "'");
                return;
            }
            for (String field : fields) {
                if (!doc.contains(field)) {
                    problems.add(heading + ": the definition accepts '" + field + "' (" + block.owner()
                            + "), the document does not name it");
                }
            }
            for (String field : doc) {
                if (!fields.contains(field)) {
                    problems.add(
                            heading + ": the document names '" + field + "', which the definition does not accept");
                }
            }
        });
        documented.keySet().stream()
                .filter(heading -> !accepted.containsKey(heading))
                .forEach(heading -> problems.add(
                        heading + ": the document has a table of fields, but the definition has no such block"));
        return problems;
    }

    private static Path definitionDoc() {
        return TestFiles.root().resolve("docs").resolve("pipeline-definition.md");
    }
}
