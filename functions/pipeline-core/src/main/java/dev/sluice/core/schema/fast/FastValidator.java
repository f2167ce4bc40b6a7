package dev.sluice.core.schema.fast;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A JSON Schema 2020-12 validator that only answers "valid or not", compiled once from a schema document into a tree
 * of small checkers over Jackson nodes. It gives exactly the verdicts of networknt's json-schema-validator 1.5.9
 * configured as {@code SchemaCatalog} configures it (2020-12 dialect, format assertions on, JDK regular expressions,
 * no type loosening, no {@code nullable}, no discriminator) for the keywords it supports, and allocates nothing while
 * validating a typical valid event.
 *
 * <p>It is meant to decide the common valid case quickly; networknt stays the one source of violation messages. Its
 * "not valid" therefore also covers the rare inputs it leaves to networknt (binary or POJO nodes, NaN).
 *
 * <p>Supported: {@code type} (one or several names), {@code properties}, {@code required}, {@code
 * additionalProperties} (boolean or schema), {@code const}, {@code enum}, {@code minLength}, {@code maxLength},
 * {@code pattern}, {@code minimum}, {@code maximum}, {@code exclusiveMinimum}, {@code exclusiveMaximum}, {@code
 * multipleOf}, {@code items} (a schema), {@code minItems}, {@code maxItems}, {@code minProperties}, {@code
 * maxProperties}, {@code allOf}, {@code anyOf}, {@code oneOf}, {@code not}, boolean schemas, and {@code format} {@code
 * date-time}, {@code date}, {@code email}, {@code ipv4}, {@code ipv6} and {@code uuid}. Ignored annotations: {@value
 * #ANNOTATIONS_DOC}. A schema with any other keyword (e.g. {@code $ref}, {@code if}, {@code patternProperties},
 * {@code unevaluatedProperties}, another format, another {@code $schema} dialect) does not compile: {@link
 * #compile} returns empty and the caller uses networknt alone.
 */
public final class FastValidator {

    static final String ANNOTATIONS_DOC = "title, description, $id, $schema, $comment, x-pii, examples, default";

    private static final String DIALECT = "https://json-schema.org/draft/2020-12/schema";

    private static final Set<String> ANNOTATIONS =
            Set.of("title", "description", "$id", "$schema", "$comment", "x-pii", "examples", "default");

    /** Every keyword {@link #compile} understands, validation and annotation alike. */
    public static final Set<String> SUPPORTED_KEYWORDS = supportedKeywords();

    private final SchemaChecker root;

    private FastValidator(SchemaChecker root) {
        this.root = root;
    }

    /**
     * Compiles a schema document, or returns empty if it uses a keyword (or a keyword value) this validator does not
     * support, in which case networknt must be used alone.
     */
    public static Optional<FastValidator> compile(JsonNode schema) {
        if (schema == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(new FastValidator(schema(schema)));
        } catch (RuntimeException | LinkageError unsupported) {
            // Unsupported, a bad regex, a malformed keyword value, or a networknt whose formats differ from the ones
            // mirrored here: the fast path is only an optimisation, networknt decides alone
            return Optional.empty();
        }
    }

    /** Whether the instance is valid. No allocation on the valid path for the supported keywords and formats. */
    public boolean isValid(JsonNode instance) {
        if (instance == null) {
            return false;
        }
        try {
            return root.test(instance);
        } catch (RuntimeException unsure) {
            // Unsure, or an input networknt itself would fail on: let networknt decide
            return false;
        }
    }

    /** Thrown while compiling a schema this validator does not support. */
    static final class Unsupported extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Unsupported(String reason) {
            super(reason, null, false, false);
        }
    }

    // ------------------------------------------------------------------------------------------------ compiler

    static SchemaChecker schema(JsonNode schema) {
        if (schema.isBoolean()) {
            return schema.booleanValue() ? SchemaChecker.TRUE : SchemaChecker.FALSE;
        }
        if (!schema.isObject()) {
            throw new Unsupported("a schema must be an object or a boolean");
        }
        for (Iterator<String> names = schema.fieldNames(); names.hasNext(); ) {
            String keyword = names.next();
            if (!SUPPORTED_KEYWORDS.contains(keyword)) {
                throw new Unsupported("keyword " + keyword);
            }
        }
        JsonNode dialect = schema.get("$schema");
        if (dialect != null && !(dialect.isTextual() && DIALECT.equals(dialect.textValue()))) {
            throw new Unsupported("$schema " + dialect);
        }

        SchemaChecker.Builder b = new SchemaChecker.Builder();
        JsonNode type = schema.get("type");
        if (type != null) {
            b.type = types(type);
        }
        JsonNode constant = schema.get("const");
        if (constant != null) {
            b.constant = new Checkers.Const(constant);
        }
        JsonNode values = schema.get("enum");
        if (values != null) {
            if (!values.isArray()) {
                throw new Unsupported("enum must be an array");
            }
            b.values = new Checkers.Enum(values);
        }
        b.strings = strings(schema);
        List<NumberChecks.Bound> bounds = new ArrayList<>();
        addBound(schema, "minimum", NumberChecks.Kind.MINIMUM, bounds);
        addBound(schema, "exclusiveMinimum", NumberChecks.Kind.EXCLUSIVE_MINIMUM, bounds);
        addBound(schema, "maximum", NumberChecks.Kind.MAXIMUM, bounds);
        addBound(schema, "exclusiveMaximum", NumberChecks.Kind.EXCLUSIVE_MAXIMUM, bounds);
        b.bounds = bounds.isEmpty() ? null : bounds.toArray(new NumberChecks.Bound[0]);
        JsonNode multipleOf = schema.get("multipleOf");
        if (multipleOf != null) {
            b.multipleOf = new NumberChecks.MultipleOf(multipleOf);
        }
        b.properties = properties(schema);
        if (schema.has("minProperties") || schema.has("maxProperties")) {
            b.propertyCount = new Checkers.PropertyCount(
                    count(schema.get("minProperties"), 0), count(schema.get("maxProperties"), Integer.MAX_VALUE));
        }
        b.items = items(schema);
        if (schema.has("allOf")) {
            b.allOf = subschemas(schema.get("allOf"));
        }
        if (schema.has("anyOf")) {
            b.anyOf = subschemas(schema.get("anyOf"));
        }
        if (schema.has("oneOf")) {
            b.oneOf = subschemas(schema.get("oneOf"));
        }
        if (schema.has("not")) {
            b.not = schema(schema.get("not"));
        }
        return b.build();
    }

    static int types(JsonNode type) {
        if (type.isTextual()) {
            return typeBit(type.textValue());
        }
        if (!type.isArray() || type.isEmpty()) {
            throw new Unsupported("type must be a name or a non-empty array of names");
        }
        int bits = 0;
        for (JsonNode name : type) {
            if (!name.isTextual()) {
                throw new Unsupported("type array entries must be names");
            }
            bits |= typeBit(name.textValue());
        }
        return bits;
    }

    private static int typeBit(String name) {
        switch (name) {
            case "object":
                return Checkers.OBJECT;
            case "array":
                return Checkers.ARRAY;
            case "string":
                return Checkers.STRING;
            case "number":
                return Checkers.NUMBER;
            case "integer":
                return Checkers.INTEGER;
            case "boolean":
                return Checkers.BOOLEAN;
            case "null":
                return Checkers.NULL;
            default:
                throw new Unsupported("type " + name);
        }
    }

    private static Checkers.StringChecks strings(JsonNode schema) {
        JsonNode minLength = schema.get("minLength");
        JsonNode maxLength = schema.get("maxLength");
        JsonNode pattern = schema.get("pattern");
        JsonNode format = schema.get("format");
        if (minLength == null && maxLength == null && pattern == null && format == null) {
            return null;
        }
        // networknt: a non-integral length is no constraint
        int min = minLength != null && number(minLength).canConvertToExactIntegral()
                ? minLength.intValue()
                : Integer.MIN_VALUE;
        int max = maxLength != null && number(maxLength).canConvertToExactIntegral()
                ? maxLength.intValue()
                : Integer.MAX_VALUE;
        Checkers.PatternCheck regex = null;
        if (pattern != null) {
            if (!pattern.isTextual()) {
                throw new Unsupported("pattern must be a string");
            }
            regex = new Checkers.PatternCheck(pattern.textValue());
        }
        FastFormats.FormatCheck formatCheck = null;
        if (format != null) {
            if (!format.isTextual()) {
                throw new Unsupported("format must be a string");
            }
            formatCheck = FastFormats.forName(format.textValue())
                    .orElseThrow(() -> new Unsupported("format " + format.textValue()));
        }
        return new Checkers.StringChecks(min, max, regex, formatCheck);
    }

    private static void addBound(
            JsonNode schema, String keyword, NumberChecks.Kind kind, List<NumberChecks.Bound> bounds) {
        JsonNode value = schema.get(keyword);
        if (value != null) {
            bounds.add(new NumberChecks.Bound(kind, value, schema));
        }
    }

    private static Checkers.Properties properties(JsonNode schema) {
        JsonNode properties = schema.get("properties");
        JsonNode required = schema.get("required");
        JsonNode additional = schema.get("additionalProperties");
        if (properties == null && required == null && additional == null) {
            return null;
        }
        Map<String, SchemaChecker> declared = new LinkedHashMap<>();
        if (properties != null) {
            if (!properties.isObject()) {
                throw new Unsupported("properties must be an object");
            }
            for (Iterator<Map.Entry<String, JsonNode>> it = properties.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> property = it.next();
                declared.put(property.getKey(), schema(property.getValue()));
            }
        }
        Set<String> requiredNames = new LinkedHashSet<>();
        if (required != null) {
            if (!required.isArray()) {
                throw new Unsupported("required must be an array");
            }
            for (JsonNode name : required) {
                if (!name.isTextual()) {
                    throw new Unsupported("required entries must be strings");
                }
                requiredNames.add(name.textValue());
            }
        }
        int mode = Checkers.Properties.ADDITIONAL_ALLOWED;
        SchemaChecker additionalChecker = null;
        if (additional != null) {
            if (additional.isBoolean()) {
                mode = additional.booleanValue()
                        ? Checkers.Properties.ADDITIONAL_ALLOWED
                        : Checkers.Properties.ADDITIONAL_FORBIDDEN;
            } else if (additional.isObject()) {
                additionalChecker = schema(additional);
                mode = additionalChecker == SchemaChecker.TRUE
                        ? Checkers.Properties.ADDITIONAL_ALLOWED
                        : Checkers.Properties.ADDITIONAL_SCHEMA;
            } else {
                throw new Unsupported("additionalProperties must be a boolean or a schema");
            }
        }
        String[] names = declared.keySet().toArray(new String[0]);
        SchemaChecker[] checkers = declared.values().toArray(new SchemaChecker[0]);
        boolean[] isRequired = new boolean[names.length];
        for (int i = 0; i < names.length; i++) {
            isRequired[i] = requiredNames.remove(names[i]);
        }
        return new Checkers.Properties(
                names, checkers, isRequired, requiredNames.toArray(new String[0]), mode, additionalChecker);
    }

    private static Checkers.Items items(JsonNode schema) {
        JsonNode items = schema.get("items");
        JsonNode minItems = schema.get("minItems");
        JsonNode maxItems = schema.get("maxItems");
        if (items == null && minItems == null && maxItems == null) {
            return null;
        }
        SchemaChecker itemChecker = null;
        if (items != null) {
            if (!items.isObject() && !items.isBoolean()) {
                throw new Unsupported("items must be a schema (2020-12)");
            }
            itemChecker = schema(items);
            if (itemChecker == SchemaChecker.TRUE) {
                itemChecker = null;
            }
        }
        // networknt: a non-integral minItems is 0, a non-integral maxItems is 0 (sic)
        int min = minItems != null && number(minItems).canConvertToExactIntegral() ? minItems.intValue() : 0;
        int max = maxItems == null
                ? Integer.MAX_VALUE
                : number(maxItems).canConvertToExactIntegral() ? maxItems.intValue() : 0;
        return new Checkers.Items(min, max, itemChecker);
    }

    /** minProperties/maxProperties as networknt reads them: a non-integral value is no constraint. */
    private static int count(JsonNode value, int otherwise) {
        if (value == null) {
            return otherwise;
        }
        return number(value).canConvertToExactIntegral() ? value.intValue() : otherwise;
    }

    private static JsonNode number(JsonNode value) {
        if (!value.isNumber()) {
            throw new Unsupported("expected a number, got " + value);
        }
        return value;
    }

    private static SchemaChecker[] subschemas(JsonNode array) {
        if (!array.isArray() || array.isEmpty()) {
            throw new Unsupported("expected a non-empty array of schemas");
        }
        SchemaChecker[] checkers = new SchemaChecker[array.size()];
        for (int i = 0; i < checkers.length; i++) {
            checkers[i] = schema(array.get(i));
        }
        return checkers;
    }

    private static Set<String> supportedKeywords() {
        Set<String> keywords = new LinkedHashSet<>(List.of(
                "type",
                "properties",
                "required",
                "additionalProperties",
                "const",
                "enum",
                "minLength",
                "maxLength",
                "pattern",
                "format",
                "minimum",
                "maximum",
                "exclusiveMinimum",
                "exclusiveMaximum",
                "multipleOf",
                "items",
                "minItems",
                "maxItems",
                "minProperties",
                "maxProperties",
                "allOf",
                "anyOf",
                "oneOf",
                "not"));
        keywords.addAll(ANNOTATIONS);
        return Set.copyOf(keywords);
    }
}
