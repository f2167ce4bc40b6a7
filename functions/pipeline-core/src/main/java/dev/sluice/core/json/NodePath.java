package dev.sluice.core.json;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import java.util.ArrayList;
import java.util.List;

/**
 * A JSON pointer split once into its segments, for a step that reads the same place of every
 * event: {@link #at} finds what {@link JsonNode#at(JsonPointer)} finds, walking the segments in a
 * loop instead of through a chain of pointer tails. Immutable and thread-safe.
 */
public final class NodePath {

    private final JsonPointer pointer;
    private final String[] names;
    private final int[] indexes;

    private NodePath(JsonPointer pointer) {
        this.pointer = pointer;
        List<String> names = new ArrayList<>();
        List<Integer> indexes = new ArrayList<>();
        for (JsonPointer p = pointer; !p.matches(); p = p.tail()) {
            names.add(p.getMatchingProperty());
            indexes.add(p.getMatchingIndex());
        }
        this.names = names.toArray(String[]::new);
        this.indexes = indexes.stream().mapToInt(Integer::intValue).toArray();
    }

    /** The path of a pointer. */
    public static NodePath of(JsonPointer pointer) {
        return new NodePath(pointer);
    }

    /**
     * The node at this path below {@code root}, or {@link MissingNode} if there is none: a member
     * of an object by name, an element of an array by index (when the segment is one), as {@link
     * JsonNode#at(JsonPointer)}.
     */
    public JsonNode at(JsonNode root) {
        JsonNode node = root;
        for (int i = 0; i < names.length; i++) {
            JsonNode next;
            if (node.isObject()) {
                next = node.get(names[i]);
            } else if (node.isArray()) {
                next = indexes[i] < 0 ? null : node.get(indexes[i]);
            } else {
                next = null;
            }
            if (next == null) {
                return MissingNode.getInstance();
            }
            node = next;
        }
        return node;
    }

    /** The member names (or indexes, as text) from the root to the node, in order. */
    public List<String> names() {
        return List.of(names);
    }

    @Override
    public String toString() {
        return pointer.toString();
    }
}
