package dev.sluice.core.definition;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.sluice.core.schema.SchemaCatalog;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * Reads {@code pipelines/*.yaml} into {@link PipelineDefinition}s and checks them: unknown fields,
 * references to undeclared streams, sinks and queues, numbers out of range and unknown schemas all
 * fail with one {@link DefinitionException} naming the file, line and field.
 */
public final class DefinitionLoader {

    /** The classpath folder that holds the definitions inside a deployed artifact. */
    public static final String CLASSPATH_FOLDER = "sluice/pipelines/";

    private final SchemaCatalog schemas;
    private final Function<String, Optional<String>> handlers;
    private final YAMLFactory yaml;
    private final ObjectMapper mapper;

    public DefinitionLoader(SchemaCatalog schemas) {
        this(schemas, handler -> Optional.empty());
    }

    /**
     * A loader that also checks each stage's {@code handler} where the handler classes are known (the
     * local runtime, whose classpath holds the function artifact).
     *
     * @param handlers the problem with a handler class name, or empty when the class can be loaded
     */
    public DefinitionLoader(SchemaCatalog schemas, Function<String, Optional<String>> handlers) {
        this.schemas = schemas;
        this.handlers = handlers;
        this.yaml = YAMLFactory.builder().build();
        this.mapper = new ObjectMapper(yaml)
                // 1.5 is not a batch size: Jackson would truncate it to 1
                .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
                .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
    }

    /** The mapper that binds a definition's YAML to its records (for tests that introspect the binding). */
    ObjectMapper mapper() {
        return mapper;
    }

    /** Reads one definition file. */
    public PipelineDefinition load(Path file) {
        return load(file, file.toString());
    }

    /**
     * Reads one definition file.
     *
     * @param shownAs the file's name in error messages (the path the user wrote, say)
     */
    public PipelineDefinition load(Path file, String shownAs) {
        byte[] content;
        try {
            content = Files.readAllBytes(file);
        } catch (java.nio.file.NoSuchFileException e) {
            throw new DefinitionException(shownAs, 0, "", "no such file");
        } catch (IOException e) {
            throw new DefinitionException(shownAs, 0, "", "cannot be read: " + e.getMessage());
        }
        return parse(shownAs, content);
    }

    /**
     * Decodes (strictly: UTF-8 only), parses and checks a definition.
     *
     * @param file the name shown in error messages
     * @param content the file's bytes
     */
    public PipelineDefinition parse(String file, byte[] content) {
        return parse(file, utf8(file, content));
    }

    /** The text of a definition file; invalid UTF-8 is reported with its line. */
    private static String utf8(String file, byte[] content) {
        CharsetDecoder decoder = StandardCharsets.UTF_8
                .newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(content);
        CharBuffer out = CharBuffer.allocate(content.length + 1);
        CoderResult result = decoder.decode(in, out, true);
        if (!result.isError()) {
            result = decoder.flush(out);
        }
        if (result.isError()) {
            int at = in.position();
            int line = 1;
            int lineStart = 0;
            for (int i = 0; i < at; i++) {
                if (content[i] == '\n') {
                    line++;
                    lineStart = i + 1;
                }
            }
            throw new DefinitionException(
                    file,
                    line,
                    "",
                    String.format(
                            java.util.Locale.ROOT,
                            "not UTF-8 text: byte 0x%02X at column %d cannot start or continue a UTF-8 character",
                            content[at] & 0xff,
                            at - lineStart + 1));
        }
        out.flip();
        String text = out.toString();
        // a byte-order mark is harmless: drop it
        return text.startsWith("\uFEFF") ? text.substring(1) : text;
    }

    /** Reads every {@code *.yaml} file of a folder, sorted by file name. */
    public List<PipelineDefinition> loadAll(Path directory) {
        try (Stream<Path> files = Files.list(directory)) {
            List<PipelineDefinition> definitions = new ArrayList<>();
            for (Path file : files.filter(f -> f.getFileName().toString().endsWith(".yaml"))
                    .sorted()
                    .toList()) {
                definitions.add(load(file));
            }
            return definitions;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list pipeline definitions in " + directory, e);
        }
    }

    /** Reads the definition packaged under {@value #CLASSPATH_FOLDER}{@code <pipeline>.yaml}. */
    public PipelineDefinition loadResource(ClassLoader loader, String pipeline) {
        String resource = CLASSPATH_FOLDER + pipeline + ".yaml";
        try (InputStream in = loader.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalArgumentException("no pipeline definition '" + resource + "' on the classpath");
            }
            return parse(resource, in.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + resource, e);
        }
    }

    /**
     * Parses and checks a definition.
     *
     * @param file the name shown in error messages
     * @param text the YAML
     */
    public PipelineDefinition parse(String file, String text) {
        if (text.isBlank()) {
            throw new DefinitionException(file, 0, "", "the file is empty");
        }
        YamlLocator locator = new YamlLocator(yaml, text);
        PipelineDefinition definition;
        try {
            definition = mapper.readValue(text, PipelineDefinition.class);
        } catch (JsonProcessingException e) {
            throw bindingError(file, locator, e);
        }
        if (definition == null) {
            throw new DefinitionException(file, 0, "", "the file is empty");
        }
        new DefinitionChecks(file, locator, schemas, handlers).check(definition);
        return definition;
    }

    private static DefinitionException bindingError(String file, YamlLocator locator, JsonProcessingException e) {
        int line = e.getLocation() == null ? 0 : e.getLocation().getLineNr();
        String field = "";
        String problem = e.getOriginalMessage();
        org.yaml.snakeyaml.error.MarkedYAMLException syntax = yamlSyntax(e);
        if (syntax != null) {
            return syntaxError(file, syntax);
        }
        if (locator.duplicate() != null && String.valueOf(problem).startsWith("Duplicate field")) {
            JsonPointer duplicate = locator.duplicate();
            return new DefinitionException(
                    file,
                    locator.duplicateLine(),
                    YamlLocator.dotted(duplicate),
                    "is given twice (first on line " + locator.line(duplicate) + ")");
        }
        if (e instanceof MismatchedInputException && String.valueOf(problem).startsWith("No content to map")) {
            return new DefinitionException(file, 0, "", "the file is empty");
        }
        if (e instanceof JsonMappingException mapping) {
            JsonPointer pointer = pointer(mapping.getPath());
            field = YamlLocator.dotted(pointer);
            int located = locator.line(pointer);
            line = located > 0 ? located : line;
            if (mapping instanceof UnrecognizedPropertyException unknown) {
                problem = "unknown field '" + unknown.getPropertyName() + "' (known: "
                        + known(unknown.getKnownPropertyIds()) + ")";
            } else if (mapping.getCause() instanceof com.fasterxml.jackson.core.exc.InputCoercionException coercion) {
                problem = "'" + text(coercion) + "' is out of range (a whole number up to 2147483647)";
            } else if (mapping instanceof ValueInstantiationException || mapping.getCause() != null) {
                Throwable cause = mapping.getCause() == null ? mapping : mapping.getCause();
                problem = cause instanceof JsonProcessingException processing
                        ? processing.getOriginalMessage()
                        : cause.getMessage();
                if ((problem == null || problem.isBlank()) && cause instanceof NullPointerException) {
                    // a record refusing a null inside a collection (e.g. an option written as '~')
                    problem = "a value here is empty (~ or null): give it a value or leave it out";
                }
            } else if (mapping instanceof InvalidFormatException invalid) {
                problem = "cannot read '" + invalid.getValue() + "' as " + typeName(invalid.getTargetType());
            } else if (mapping instanceof MismatchedInputException mismatched) {
                problem = "expected " + typeName(mismatched.getTargetType()) + " here";
            }
        }
        return new DefinitionException(file, line, field, problem);
    }

    private static String text(com.fasterxml.jackson.core.exc.InputCoercionException e) {
        try {
            if (e.getProcessor() != null && e.getProcessor().getText() != null) {
                return e.getProcessor().getText();
            }
        } catch (IOException ignored) {
            // the number is in the message too
        }
        java.util.regex.Matcher number =
                java.util.regex.Pattern.compile("\\(([-0-9.eE+]+)\\)").matcher(String.valueOf(e.getOriginalMessage()));
        return number.find() ? number.group(1) : "?";
    }

    /** The YAML parser's own error behind a Jackson exception, if the text is not well-formed YAML. */
    private static org.yaml.snakeyaml.error.MarkedYAMLException yamlSyntax(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof org.yaml.snakeyaml.error.MarkedYAMLException marked) {
                return marked;
            }
        }
        return null;
    }

    /**
     * A YAML syntax error as one line at the line of the problem (SnakeYAML's own message spans
     * several lines and quotes the text).
     */
    private static DefinitionException syntaxError(String file, org.yaml.snakeyaml.error.MarkedYAMLException e) {
        org.yaml.snakeyaml.error.Mark mark = e.getProblemMark() != null ? e.getProblemMark() : e.getContextMark();
        int line = mark == null ? 0 : mark.getLine() + 1;
        String problem = e.getProblem() == null ? "" : e.getProblem();
        String context = e.getContext() == null ? "" : e.getContext();
        org.yaml.snakeyaml.error.Mark opened = e.getContextMark();
        if (problem.contains("\\t") || problem.contains("\t")) {
            problem = "a tab character" + (mark == null ? "" : " at column " + (mark.getColumn() + 1))
                    + ": YAML indents with spaces only";
            mark = null;
        } else if (context.startsWith("while parsing a flow") && opened != null) {
            // the bracket left open is the mistake, not the line where the parser noticed it
            problem = "not valid YAML: the '" + (context.contains("sequence") ? "[" : "{") + "' at column "
                    + (opened.getColumn() + 1) + " is not closed (" + problem + " on line " + line + ")";
            line = opened.getLine() + 1;
            mark = null;
        } else if (problem.contains("<block end>")) {
            problem = "not valid YAML: indented differently from the lines above it (" + problem + ")";
        } else {
            problem = "not valid YAML: " + problem + (context.isBlank() ? "" : " (" + context + ")");
        }
        if (mark != null) {
            problem = problem + " at column " + (mark.getColumn() + 1);
        }
        return new DefinitionException(file, line, "", problem);
    }

    private static JsonPointer pointer(List<JsonMappingException.Reference> path) {
        JsonPointer pointer = JsonPointer.empty();
        for (JsonMappingException.Reference reference : path) {
            pointer = reference.getFieldName() != null
                    ? pointer.appendProperty(reference.getFieldName())
                    : pointer.appendIndex(reference.getIndex());
        }
        return pointer;
    }

    private static String known(Collection<Object> ids) {
        return String.join(", ", new TreeSet<>(ids.stream().map(String::valueOf).toList()));
    }

    private static String typeName(Class<?> type) {
        if (type == null) {
            return "a value";
        }
        if (type == Integer.class || type == int.class || type == Long.class) {
            return "a whole number";
        }
        if (type == Boolean.class || type == boolean.class) {
            return "true or false";
        }
        if (type.isEnum()) {
            return "one of " + List.of(type.getEnumConstants());
        }
        if (List.class.isAssignableFrom(type)) {
            return "a list";
        }
        if (java.util.Map.class.isAssignableFrom(type) || type.isRecord()) {
            return "a map of fields";
        }
        return "a " + type.getSimpleName().toLowerCase(java.util.Locale.ROOT);
    }
}
