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
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;
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
    private final YAMLFactory yaml;
    private final ObjectMapper mapper;

    public DefinitionLoader(SchemaCatalog schemas) {
        this.schemas = schemas;
        this.yaml = YAMLFactory.builder().build();
        this.mapper = new ObjectMapper(yaml)
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
                .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
    }

    /** Reads one definition file. */
    public PipelineDefinition load(Path file) {
        try {
            return parse(file.toString(), Files.readString(file, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read pipeline definition " + file, e);
        }
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
            return parse(resource, new String(in.readAllBytes(), StandardCharsets.UTF_8));
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
        new DefinitionChecks(file, locator, schemas).check(definition);
        return definition;
    }

    private static DefinitionException bindingError(String file, YamlLocator locator, JsonProcessingException e) {
        int line = e.getLocation() == null ? 0 : e.getLocation().getLineNr();
        String field = "";
        String problem = e.getOriginalMessage();
        if (e instanceof JsonMappingException mapping) {
            JsonPointer pointer = pointer(mapping.getPath());
            field = YamlLocator.dotted(pointer);
            int located = locator.line(pointer);
            line = located > 0 ? located : line;
            if (mapping instanceof UnrecognizedPropertyException unknown) {
                problem = "unknown field '" + unknown.getPropertyName() + "' (known: "
                        + known(unknown.getKnownPropertyIds()) + ")";
            } else if (mapping instanceof ValueInstantiationException || mapping.getCause() != null) {
                Throwable cause = mapping.getCause() == null ? mapping : mapping.getCause();
                problem = cause instanceof JsonProcessingException processing
                        ? processing.getOriginalMessage()
                        : cause.getMessage();
            } else if (mapping instanceof InvalidFormatException invalid) {
                problem = "cannot read '" + invalid.getValue() + "' as " + typeName(invalid.getTargetType());
            } else if (mapping instanceof MismatchedInputException mismatched) {
                problem = "expected " + typeName(mismatched.getTargetType()) + " here";
            }
        }
        return new DefinitionException(file, line, field, problem);
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
