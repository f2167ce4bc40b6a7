package dev.sluice.core.pii;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.core.pii.PiiField.Action;
import dev.sluice.core.schema.SchemaCatalog;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Finds the {@code x-pii} annotations of one JSON Schema document and the event paths they apply to.
 * Fails closed: an annotation Sluice could not apply reliably (inside {@code patternProperties},
 * {@code prefixItems}, a recursive {@code $ref}, ...) is an {@link IllegalArgumentException}, never
 * silently skipped.
 */
final class SchemaWalker {

    /** One step of a path through an event. */
    sealed interface Segment permits Name, Each, Other {}

    /** A named property. */
    record Name(String name) implements Segment {}

    /** Every element of an array. */
    enum Each implements Segment {
        INSTANCE
    }

    /** Every property of an object except the declared ones ({@code additionalProperties}). */
    record Other(Set<String> declared) implements Segment {}

    private static final String PII = SchemaCatalog.PII_KEYWORD;

    /** Subschemas that apply to the same instance location as their parent. */
    private static final List<String> SAME_LOCATION_LISTS = List.of("allOf", "anyOf", "oneOf");

    private static final List<String> SAME_LOCATION_SCHEMAS = List.of("if", "then", "else");

    /** Subschemas whose instance locations Sluice does not compute: no x-pii allowed below them. */
    private static final List<String> UNSUPPORTED = List.of(
            "prefixItems",
            "contains",
            "patternProperties",
            "propertyNames",
            "unevaluatedProperties",
            "unevaluatedItems",
            "additionalItems",
            "dependencies",
            "not",
            "contentSchema");

    /** Keywords whose values are data, not schemas. */
    private static final Set<String> LITERALS = Set.of("enum", "const", "default", "examples");

    private final JsonNode root;
    private final String rootId;
    private final Map<List<Segment>, Action> found = new LinkedHashMap<>();
    private final Set<JsonNode> expanding = Collections.newSetFromMap(new IdentityHashMap<>());
    private Map<String, JsonNode> anchors;

    private SchemaWalker(JsonNode root) {
        this.root = root;
        JsonNode id = root.get("$id");
        this.rootId = id != null && id.isTextual() ? stripEmptyFragment(id.textValue()) : null;
    }

    /**
     * The annotated paths of a schema document and their actions, in document order; paths covered
     * by an enclosing annotation are left out.
     */
    static Map<List<Segment>, Action> annotations(JsonNode document) {
        if (document == null || !document.isObject()) {
            throw new IllegalArgumentException("a schema document must be a JSON object");
        }
        SchemaWalker walker = new SchemaWalker(document);
        walker.walk(document, List.of());
        return walker.withoutCoveredPaths();
    }

    private void walk(JsonNode schema, List<Segment> path) {
        if (!schema.isObject()) {
            return; // boolean schemas annotate nothing
        }
        JsonNode pii = schema.get(PII);
        if (pii != null) {
            add(path, action(pii, path));
        }
        JsonNode properties = schema.get("properties");
        Set<String> declared = new LinkedHashSet<>();
        if (properties != null && properties.isObject()) {
            for (Map.Entry<String, JsonNode> property : properties.properties()) {
                declared.add(property.getKey());
                walk(property.getValue(), append(path, new Name(property.getKey())));
            }
        }
        JsonNode additional = schema.get("additionalProperties");
        if (additional != null && additional.isObject()) {
            walk(additional, append(path, new Other(Set.copyOf(declared))));
        }
        JsonNode items = schema.get("items");
        if (items != null) {
            if (items.isArray()) {
                rejectIfAnnotated(items, "items (as an array)", path);
            } else {
                walk(items, append(path, Each.INSTANCE));
            }
        }
        for (String keyword : SAME_LOCATION_LISTS) {
            JsonNode list = schema.get(keyword);
            if (list != null && list.isArray()) {
                for (JsonNode subschema : list) {
                    walk(subschema, path);
                }
            }
        }
        for (String keyword : SAME_LOCATION_SCHEMAS) {
            JsonNode subschema = schema.get(keyword);
            if (subschema != null) {
                walk(subschema, path);
            }
        }
        JsonNode dependentSchemas = schema.get("dependentSchemas");
        if (dependentSchemas != null && dependentSchemas.isObject()) {
            for (JsonNode subschema : dependentSchemas) {
                walk(subschema, path);
            }
        }
        for (String keyword : UNSUPPORTED) {
            JsonNode subschema = schema.get(keyword);
            if (subschema != null) {
                rejectIfAnnotated(subschema, keyword, path);
            }
        }
        for (String keyword : List.of("$dynamicRef", "$recursiveRef")) {
            if (schema.has(keyword)) {
                throw new IllegalArgumentException(keyword + " at " + display(path)
                        + " is not supported: Sluice cannot tell which x-pii annotations it reaches");
            }
        }
        JsonNode ref = schema.get("$ref");
        if (ref != null) {
            JsonNode target = resolve(ref, path);
            if (expanding.add(target)) {
                try {
                    walk(target, path);
                } finally {
                    expanding.remove(target);
                }
            } else if (containsPii(target)) {
                throw new IllegalArgumentException("$ref '" + ref.asText() + "' at " + display(path)
                        + " is recursive and reaches x-pii annotations; recursive personal data is not supported");
            }
        }
    }

    private static Action action(JsonNode value, List<Segment> path) {
        if (!value.isTextual()) {
            throw new IllegalArgumentException(
                    "x-pii at " + display(path) + " is " + value + ": expected tokenize, mask or drop");
        }
        try {
            return Action.fromKeyword(value.textValue());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown x-pii value '" + value.textValue() + "' at " + display(path)
                    + ": expected tokenize, mask or drop");
        }
    }

    private void add(List<Segment> path, Action action) {
        if (path.isEmpty()) {
            throw new IllegalArgumentException("x-pii '" + action.keyword()
                    + "' on the schema's root is not supported: mark the fields that hold personal data");
        }
        Action previous = found.putIfAbsent(path, action);
        if (previous != null && previous != action) {
            throw new IllegalArgumentException(
                    "conflicting x-pii at " + display(path) + ": " + previous.keyword() + " and " + action.keyword());
        }
    }

    private void rejectIfAnnotated(JsonNode subschema, String keyword, List<Segment> path) {
        if (containsPii(subschema)) {
            throw new IllegalArgumentException("x-pii inside " + keyword + " at " + display(path)
                    + " is not supported: annotate the field through properties or items instead");
        }
    }

    /** Drops paths below a drop or below the same action; a different action below one is an error. */
    private Map<List<Segment>, Action> withoutCoveredPaths() {
        Map<List<Segment>, Action> result = new LinkedHashMap<>();
        for (Map.Entry<List<Segment>, Action> inner : found.entrySet()) {
            List<Segment> path = inner.getKey();
            boolean covered = false;
            for (int length = path.size() - 1; length > 0 && !covered; length--) {
                Action outer = found.get(path.subList(0, length));
                if (outer == null) {
                    continue;
                }
                if (outer != Action.DROP && outer != inner.getValue()) {
                    throw new IllegalArgumentException(
                            "x-pii '" + inner.getValue().keyword() + "' at " + display(path)
                                    + " lies inside x-pii '" + outer.keyword() + "' at "
                                    + display(path.subList(0, length)) + ", which already covers it: keep one of them");
                }
                covered = true;
            }
            if (!covered) {
                result.put(List.copyOf(path), inner.getValue());
            }
        }
        return result;
    }

    // --- $ref within the document ---

    private JsonNode resolve(JsonNode ref, List<Segment> path) {
        if (!ref.isTextual()) {
            throw new IllegalArgumentException("$ref at " + display(path) + " must be a string, is " + ref);
        }
        JsonNode target = resolveOrNull(ref.textValue());
        if (target == null) {
            throw new IllegalArgumentException("$ref '" + ref.textValue() + "' at " + display(path)
                    + " does not resolve within the schema document; only references inside the document"
                    + " (#/$defs/..., #anchor) are supported");
        }
        return target;
    }

    private JsonNode resolveOrNull(String ref) {
        String fragment;
        if (ref.startsWith("#")) {
            fragment = ref.substring(1);
        } else if (rootId != null && ref.startsWith(rootId)) {
            String rest = ref.substring(rootId.length());
            if (rest.isEmpty()) {
                fragment = "";
            } else if (rest.startsWith("#")) {
                fragment = rest.substring(1);
            } else {
                return null;
            }
        } else {
            return null;
        }
        if (fragment.isEmpty()) {
            return root;
        }
        if (fragment.startsWith("/")) {
            try {
                JsonNode target = root.at(JsonPointer.compile(percentDecode(fragment)));
                return target.isMissingNode() ? null : target;
            } catch (IllegalArgumentException e) {
                return null;
            }
        }
        return anchors().get(fragment);
    }

    private Map<String, JsonNode> anchors() {
        if (anchors == null) {
            anchors = new HashMap<>();
            collectAnchors(root, anchors);
        }
        return anchors;
    }

    private static void collectAnchors(JsonNode node, Map<String, JsonNode> into) {
        if (node.isObject()) {
            JsonNode anchor = node.get("$anchor");
            if (anchor != null && anchor.isTextual()) {
                into.putIfAbsent(anchor.textValue(), node);
            }
            for (Map.Entry<String, JsonNode> member : node.properties()) {
                if (!LITERALS.contains(member.getKey())) {
                    collectAnchors(member.getValue(), into);
                }
            }
        } else if (node.isArray()) {
            for (JsonNode element : node) {
                collectAnchors(element, into);
            }
        }
    }

    /** Whether a subschema, or anything it references, carries an x-pii annotation. */
    private boolean containsPii(JsonNode node) {
        return containsPii(node, Collections.newSetFromMap(new IdentityHashMap<>()));
    }

    private boolean containsPii(JsonNode node, Set<JsonNode> visited) {
        if (node.isObject()) {
            if (node.has(PII)) {
                return true;
            }
            JsonNode ref = node.get("$ref");
            if (ref != null) {
                JsonNode target = ref.isTextual() ? resolveOrNull(ref.textValue()) : null;
                if (target == null) {
                    return true; // cannot tell: assume the worst
                }
                if (visited.add(target) && containsPii(target, visited)) {
                    return true;
                }
            }
            for (Map.Entry<String, JsonNode> member : node.properties()) {
                if (!LITERALS.contains(member.getKey()) && containsPii(member.getValue(), visited)) {
                    return true;
                }
            }
        } else if (node.isArray()) {
            for (JsonNode element : node) {
                if (containsPii(element, visited)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static String stripEmptyFragment(String id) {
        return id.endsWith("#") ? id.substring(0, id.length() - 1) : id;
    }

    /** RFC 3986 percent-decoding of a URI fragment (unlike URLDecoder, {@code +} stays {@code +}). */
    private static String percentDecode(String fragment) {
        if (fragment.indexOf('%') < 0) {
            return fragment;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(fragment.length());
        for (int i = 0; i < fragment.length(); i++) {
            char c = fragment.charAt(i);
            if (c == '%' && i + 2 < fragment.length()) {
                int high = Character.digit(fragment.charAt(i + 1), 16);
                int low = Character.digit(fragment.charAt(i + 2), 16);
                if (high >= 0 && low >= 0) {
                    bytes.write(high << 4 | low);
                    i += 2;
                    continue;
                }
            }
            int codePoint = fragment.codePointAt(i);
            byte[] utf8 = new String(Character.toChars(codePoint)).getBytes(StandardCharsets.UTF_8);
            bytes.write(utf8, 0, utf8.length);
            i += Character.charCount(codePoint) - 1;
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    // --- paths ---

    private static List<Segment> append(List<Segment> path, Segment segment) {
        List<Segment> longer = new ArrayList<>(path.size() + 1);
        longer.addAll(path);
        longer.add(segment);
        return longer;
    }

    /** The JSON-Pointer-like form of a path, as {@link PiiField#path()} shows it. */
    static String display(List<Segment> path) {
        if (path.isEmpty()) {
            return "(root)";
        }
        StringBuilder text = new StringBuilder();
        for (Segment segment : path) {
            text.append('/');
            if (segment instanceof Name name) {
                text.append(name.name().replace("~", "~0").replace("/", "~1"));
            } else if (segment instanceof Other) {
                text.append(PiiField.OTHER_PROPERTIES);
            } else {
                text.append(PiiField.EACH_ELEMENT);
            }
        }
        return text.toString();
    }
}
