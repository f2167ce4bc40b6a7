package dev.sluice.core.schema;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.JsonMetaSchema;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.NonValidationKeyword;
import com.networknt.schema.SchemaValidatorsConfig;
import com.networknt.schema.SpecVersion;
import dev.sluice.core.schema.fast.FastValidator;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The event schemas of {@code schemas/}: JSON Schema 2020-12, one file per event type and version
 * ({@code payments.transaction.v1.json}). Each schema is read and compiled once and then shared by
 * every record and thread.
 */
public final class SchemaCatalog {

    /** The annotation that marks personal data: {@code "x-pii": "tokenize" | "mask" | "drop"}. */
    public static final String PII_KEYWORD = "x-pii";

    /** The classpath folder that holds the schemas inside a deployed artifact. */
    public static final String CLASSPATH_FOLDER = "sluice/schemas/";

    private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9-]*(\\.[a-z0-9-]+)*\\.v[0-9]+");

    private final SchemaSource source;
    private final ObjectMapper mapper;
    private final JsonSchemaFactory factory;
    private final SchemaValidatorsConfig config;
    private final Map<String, EventSchema> compiled = new ConcurrentHashMap<>();

    private SchemaCatalog(SchemaSource source, ObjectMapper mapper) {
        this.source = source;
        this.mapper = mapper;
        JsonMetaSchema dialect = JsonMetaSchema.builder(JsonMetaSchema.getV202012())
                .keyword(new NonValidationKeyword(PII_KEYWORD))
                .build();
        this.factory = JsonSchemaFactory.builder(JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012))
                .metaSchema(dialect)
                .defaultMetaSchemaIri(dialect.getIri())
                .build();
        this.config = SchemaValidatorsConfig.builder()
                .formatAssertionsEnabled(true)
                .pathType(com.networknt.schema.PathType.JSON_PATH)
                .locale(Locale.ROOT)
                .build();
    }

    /** Schemas read from a folder such as the repository's {@code schemas/}. */
    public static SchemaCatalog fromDirectory(Path directory, ObjectMapper mapper) {
        if (!Files.isDirectory(directory)) {
            throw new IllegalArgumentException("schema folder " + directory + " does not exist");
        }
        return new SchemaCatalog(
                name -> {
                    Path file = directory.resolve(name + ".json");
                    return Files.isRegularFile(file) ? Optional.of(Files.newInputStream(file)) : Optional.empty();
                },
                mapper);
    }

    /** Schemas packaged in an artifact under {@value #CLASSPATH_FOLDER}. */
    public static SchemaCatalog fromClasspath(ClassLoader loader, ObjectMapper mapper) {
        return new SchemaCatalog(
                name -> Optional.ofNullable(loader.getResourceAsStream(CLASSPATH_FOLDER + name + ".json")), mapper);
    }

    /** Whether a schema of this name exists. */
    public boolean contains(String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            return false;
        }
        if (compiled.containsKey(name)) {
            return true;
        }
        try (InputStream in = source.open(name).orElse(null)) {
            return in != null;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The compiled schema of this name, compiled on first use.
     *
     * @throws IllegalArgumentException if there is no such schema
     */
    public EventSchema schema(String name) {
        return compiled.computeIfAbsent(name, this::compile);
    }

    private EventSchema compile(String name) {
        if (!contains(name)) {
            throw new IllegalArgumentException("unknown schema '" + name + "'");
        }
        try (InputStream in = source.open(name).orElseThrow()) {
            JsonNode document = mapper.readTree(in);
            JsonSchema schema = factory.getSchema(document, config);
            schema.initializeValidators();
            return new EventSchema(name, schema, document, FastValidator.compile(document));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read schema '" + name + "'", e);
        }
    }

    @FunctionalInterface
    private interface SchemaSource {
        Optional<InputStream> open(String name) throws IOException;
    }
}
