package dev.sluice.core.pii;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.sluice.core.json.JsonEdits;
import dev.sluice.core.pii.PiiField.Action;
import dev.sluice.core.pii.SchemaWalker.Each;
import dev.sluice.core.pii.SchemaWalker.Name;
import dev.sluice.core.pii.SchemaWalker.Other;
import dev.sluice.core.pii.SchemaWalker.Segment;
import dev.sluice.core.schema.EventSchema;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What to do with the personal data of one event type, derived once from its schema's {@code x-pii}
 * annotations and applied to every event of that type.
 *
 * <h2>Where annotations are found</h2>
 *
 * The schema is walked from its root through {@code properties} (nested objects),
 * {@code additionalProperties} (every undeclared property), {@code items} (every element of an
 * array), the subschemas that apply at the same place ({@code allOf}, {@code anyOf}, {@code oneOf},
 * {@code if}/{@code then}/{@code else}, {@code dependentSchemas}; an annotation in any branch applies,
 * whichever branch an event matches) and {@code $ref}s within the same document ({@code #},
 * {@code #/$defs/...}, {@code #anchor}, or the document's own {@code $id}). The policy fails closed:
 * the following are an {@link IllegalArgumentException} naming the path, never silently ignored —
 * an unknown {@code x-pii} value; an annotation on the root, inside {@code patternProperties},
 * {@code prefixItems}, {@code contains}, {@code not} and other places whose instance locations are
 * not computed; a {@code $ref} outside the document; a recursive {@code $ref} that reaches
 * annotations; two different actions on one path; an annotation inside a field annotated with a
 * different action other than {@code drop} (inside a {@code drop}, or inside the same action, it is
 * redundant and ignored).
 *
 * <h2>What {@link #apply} does</h2>
 *
 * <ul>
 *   <li>{@code tokenize}: the value becomes its {@link Tokenizer} token;
 *   <li>{@code mask}: the value becomes its {@link Masker} mask;
 *   <li>{@code drop}: the property is removed; on array elements ({@code items}) the array is
 *       emptied.
 * </ul>
 *
 * Values other than strings are transformed through their JSON text and become strings (the number
 * {@code 42} is tokenised as {@code "42"}, so it joins with the string {@code "42"}); an annotated
 * object or array has every scalar inside it transformed, property names kept. Absent fields and
 * JSON {@code null} are left alone, and so are parts of an event that do not have the shape the
 * schema describes (the policy expects events the validate step has accepted).
 *
 * <p>Immutable and thread-safe. Paths are compiled to a tree at construction; {@code apply} walks
 * the event once, looks properties up by name and allocates only the replacement values (plus an
 * iterator for objects with annotated {@code additionalProperties}).
 */
public final class PiiPolicy {

    private static final Node[] NO_NODES = new Node[0];
    private static final String[] NO_NAMES = new String[0];
    private static final OtherChild[] NO_OTHERS = new OtherChild[0];

    private final List<PiiField> fields;
    private final Node root;
    private final boolean tokenizes;

    private PiiPolicy(Map<List<Segment>, Action> annotations) {
        List<PiiField> list = new ArrayList<>(annotations.size());
        Draft draft = new Draft();
        boolean anyToken = false;
        for (Map.Entry<List<Segment>, Action> annotation : annotations.entrySet()) {
            list.add(new PiiField(SchemaWalker.display(annotation.getKey()), annotation.getValue()));
            Draft at = draft;
            for (Segment segment : annotation.getKey()) {
                at = at.children.computeIfAbsent(segment, s -> new Draft());
            }
            at.action = annotation.getValue();
            anyToken |= annotation.getValue() == Action.TOKENIZE;
        }
        this.fields = List.copyOf(list);
        this.root = draft.freeze();
        this.tokenizes = anyToken;
    }

    /**
     * The policy a schema document's {@code x-pii} annotations describe.
     *
     * @throws IllegalArgumentException if an annotation is unknown, conflicting or in a place the
     *     policy cannot apply it (see the class comment)
     */
    public static PiiPolicy fromSchema(JsonNode schemaDocument) {
        return new PiiPolicy(SchemaWalker.annotations(schemaDocument));
    }

    /**
     * The policy of a compiled event schema.
     *
     * @throws IllegalArgumentException as {@link #fromSchema}, with the schema's name in the message
     */
    public static PiiPolicy of(EventSchema schema) {
        try {
            return fromSchema(schema.document());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("schema '" + schema.name() + "': " + e.getMessage(), e);
        }
    }

    /** The annotated fields, in schema order. */
    public List<PiiField> fields() {
        return fields;
    }

    /** Whether the schema marks no personal data: {@link #apply} then changes nothing. */
    public boolean isEmpty() {
        return fields.isEmpty();
    }

    /** Whether some field is tokenised, so that {@link #apply} needs a {@link Tokenizer}. */
    public boolean needsTokenizer() {
        return tokenizes;
    }

    /**
     * Rewrites an event in place: tokenises, masks and drops its personal data.
     *
     * @param event a parsed event of this policy's type
     * @param tokenizer the tokenizer for {@code tokenize} fields; may be {@code null} if {@link
     *     #needsTokenizer()} is {@code false}
     * @throws IllegalArgumentException if the policy tokenises and {@code tokenizer} is null
     */
    public void apply(ObjectNode event, Tokenizer tokenizer) {
        apply(event, tokenizer, null);
    }

    /**
     * As {@link #apply(ObjectNode, Tokenizer)}, recording each replaced value in {@code edits} (a
     * removed field, or a replaced value that was not a located string, makes them not intact).
     *
     * @param edits where the changes are recorded, or {@code null}
     */
    public void apply(ObjectNode event, Tokenizer tokenizer, JsonEdits edits) {
        if (tokenizes && tokenizer == null) {
            throw new IllegalArgumentException("this policy tokenises " + tokenizedPaths() + " and needs a Tokenizer");
        }
        applyToObject(root, event, tokenizer, edits);
    }

    /**
     * The member names under which this policy changes string values, for {@link
     * dev.sluice.core.json.LocatingNodeFactory}; {@code null} when it may change array elements or
     * properties it does not name (every string must then be located).
     */
    public Set<String> changedNames() {
        Set<String> names = new HashSet<>();
        return collectNames(root, names) ? names : null;
    }

    /**
     * The paths (member names from the root) of every annotated field, when each is reached by names
     * alone; {@code null} when some annotation applies to array elements or undeclared properties
     * (then the policy may read any part of the event).
     */
    public List<List<String>> namedPaths() {
        List<List<String>> paths = new ArrayList<>();
        return collectPaths(root, new ArrayList<>(), paths) ? List.copyOf(paths) : null;
    }

    private static boolean collectPaths(Node node, List<String> prefix, List<List<String>> paths) {
        if (node.others.length > 0 || node.each != null) {
            return false;
        }
        for (int i = 0; i < node.names.length; i++) {
            prefix.add(node.names[i]);
            Node child = node.named[i];
            if (child.action != null) {
                paths.add(List.copyOf(prefix));
            } else if (!collectPaths(child, prefix, paths)) {
                return false;
            }
            prefix.remove(prefix.size() - 1);
        }
        return true;
    }

    /** Adds the names under which values change; false if some change is not under a name. */
    private static boolean collectNames(Node node, Set<String> names) {
        if (node.others.length > 0 || node.each != null) {
            return false;
        }
        for (int i = 0; i < node.names.length; i++) {
            Node child = node.named[i];
            if (child.action != null) {
                // a value that is an object or an array has unlocated strings: its edits are not intact
                names.add(node.names[i]);
            } else if (!collectNames(child, names)) {
                return false;
            }
        }
        return true;
    }

    private static void applyToObject(Node node, ObjectNode object, Tokenizer tokenizer, JsonEdits edits) {
        String[] names = node.names;
        for (int i = 0; i < names.length; i++) {
            JsonNode value = object.get(names[i]);
            if (value == null || value.isNull()) {
                continue;
            }
            Node child = node.named[i];
            if (child.action == Action.DROP) {
                invalidate(edits);
                object.remove(names[i]);
            } else if (child.action != null) {
                JsonNode replacement = transform(value, child.action, tokenizer, edits);
                if (replacement != value) {
                    object.set(names[i], replacement);
                }
            } else {
                descend(child, value, tokenizer, edits);
            }
        }
        for (OtherChild other : node.others) {
            Node child = other.node;
            for (Iterator<Map.Entry<String, JsonNode>> it = object.properties().iterator(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> property = it.next();
                JsonNode value = property.getValue();
                if (value == null || value.isNull() || other.excluded.contains(property.getKey())) {
                    continue;
                }
                if (child.action == Action.DROP) {
                    invalidate(edits);
                    it.remove();
                } else if (child.action != null) {
                    JsonNode replacement = transform(value, child.action, tokenizer, edits);
                    if (replacement != value) {
                        property.setValue(replacement);
                    }
                } else {
                    descend(child, value, tokenizer, edits);
                }
            }
        }
    }

    private static void descend(Node node, JsonNode value, Tokenizer tokenizer, JsonEdits edits) {
        if (value instanceof ObjectNode object) {
            if (node.hasPropertyChildren) {
                applyToObject(node, object, tokenizer, edits);
            }
        } else if (value instanceof ArrayNode array && node.each != null) {
            applyToElements(node.each, array, tokenizer, edits);
        }
    }

    private static void applyToElements(Node each, ArrayNode array, Tokenizer tokenizer, JsonEdits edits) {
        if (each.action == Action.DROP) {
            invalidate(edits);
            array.removeAll();
            return;
        }
        for (int i = 0; i < array.size(); i++) {
            JsonNode element = array.get(i);
            if (element == null || element.isNull()) {
                continue;
            }
            if (each.action != null) {
                JsonNode replacement = transform(element, each.action, tokenizer, edits);
                if (replacement != element) {
                    array.set(i, replacement);
                }
            } else {
                descend(each, element, tokenizer, edits);
            }
        }
    }

    /**
     * The tokenised or masked form of a value: a new text node for a scalar; for an object or array,
     * the same node with every scalar inside transformed.
     */
    private static JsonNode transform(JsonNode value, Action action, Tokenizer tokenizer, JsonEdits edits) {
        if (value instanceof ObjectNode object) {
            for (Map.Entry<String, JsonNode> property : object.properties()) {
                JsonNode member = property.getValue();
                if (member != null && !member.isNull()) {
                    JsonNode replacement = transform(member, action, tokenizer, edits);
                    if (replacement != member) {
                        property.setValue(replacement);
                    }
                }
            }
            return object;
        }
        if (value instanceof ArrayNode array) {
            for (int i = 0; i < array.size(); i++) {
                JsonNode element = array.get(i);
                if (element != null && !element.isNull()) {
                    JsonNode replacement = transform(element, action, tokenizer, edits);
                    if (replacement != element) {
                        array.set(i, replacement);
                    }
                }
            }
            return array;
        }
        String text = value.isTextual() ? value.textValue() : value.asText();
        String replaced = action == Action.TOKENIZE ? tokenizer.token(text) : Masker.mask(text);
        if (edits != null) {
            edits.replace(value, replaced);
        }
        return TextNode.valueOf(replaced);
    }

    private static void invalidate(JsonEdits edits) {
        if (edits != null) {
            edits.invalidate();
        }
    }

    private List<String> tokenizedPaths() {
        return fields.stream()
                .filter(f -> f.action() == Action.TOKENIZE)
                .map(PiiField::path)
                .toList();
    }

    @Override
    public String toString() {
        return "PiiPolicy" + fields;
    }

    /** A node of the path tree while it is built. */
    private static final class Draft {
        Action action;
        final Map<Segment, Draft> children = new LinkedHashMap<>();

        Node freeze() {
            List<String> names = new ArrayList<>();
            List<Node> named = new ArrayList<>();
            Node each = null;
            for (Map.Entry<Segment, Draft> child : children.entrySet()) {
                if (child.getKey() instanceof Name name) {
                    names.add(name.name());
                    named.add(child.getValue().freeze());
                } else if (child.getKey() instanceof Each) {
                    each = child.getValue().freeze();
                }
            }
            List<OtherChild> others = new ArrayList<>();
            for (Map.Entry<Segment, Draft> child : children.entrySet()) {
                if (child.getKey() instanceof Other other) {
                    // a property a named path handles is not handled a second time as "additional"
                    Set<String> excluded = new HashSet<>(other.declared());
                    excluded.addAll(names);
                    others.add(new OtherChild(
                            Set.copyOf(excluded), child.getValue().freeze()));
                }
            }
            return new Node(action, names.toArray(NO_NAMES), named.toArray(NO_NODES), each, others.toArray(NO_OTHERS));
        }
    }

    /** A node of the compiled path tree: an action (a leaf) or children to descend into. */
    private static final class Node {
        final Action action;
        final String[] names;
        final Node[] named;
        final Node each;
        final OtherChild[] others;
        final boolean hasPropertyChildren;

        Node(Action action, String[] names, Node[] named, Node each, OtherChild[] others) {
            this.action = action;
            this.names = names;
            this.named = named;
            this.each = each;
            this.others = others;
            this.hasPropertyChildren = names.length > 0 || others.length > 0;
        }
    }

    /** The child reached through {@code additionalProperties}: every property not excluded. */
    private record OtherChild(Set<String> excluded, Node node) {}
}
