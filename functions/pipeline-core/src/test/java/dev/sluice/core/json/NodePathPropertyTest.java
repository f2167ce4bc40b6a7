package dev.sluice.core.json;

import static dev.sluice.core.testing.Theories.assertFalsified;
import static dev.sluice.core.testing.Theories.fromRandom;
import static dev.sluice.core.testing.Theories.qt;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Random;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * {@link NodePath#at} finds exactly the node {@link JsonNode#at(JsonPointer)} finds (the same
 * instance, or a missing node), for generated trees of objects, arrays and values and pointers
 * through them: names that are also indexes ({@code 0}, {@code 1}), indexes past the end, paths
 * into values and through missing members. {@link #aPathThatCannotIndexArraysIsCaught} runs the
 * property with paths whose index segments are renamed, which it must falsify.
 */
class NodePathPropertyTest {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final String[] SEGMENTS = {"a", "b", "payload", "0", "1", "2", "-1", "x"};

    record Case(JsonNode tree, JsonPointer pointer) {}

    static Gen<Case> cases() {
        return fromRandom(random -> {
            JsonNode tree = node(random, 0);
            StringBuilder pointer = new StringBuilder();
            int depth = random.nextInt(5);
            for (int i = 0; i < depth; i++) {
                pointer.append('/').append(SEGMENTS[random.nextInt(SEGMENTS.length)]);
            }
            return new Case(tree, JsonPointer.compile(pointer.toString()));
        });
    }

    private static JsonNode node(Random random, int depth) {
        int kind = depth > 3 ? 3 : random.nextInt(4);
        if (kind == 0 || kind == 1) {
            ObjectNode object = NODES.objectNode();
            int n = random.nextInt(5);
            for (int i = 0; i < n; i++) {
                object.set(SEGMENTS[random.nextInt(SEGMENTS.length)], node(random, depth + 1));
            }
            return object;
        }
        if (kind == 2) {
            ArrayNode array = NODES.arrayNode();
            int n = random.nextInt(4);
            for (int i = 0; i < n; i++) {
                array.add(node(random, depth + 1));
            }
            return array;
        }
        return random.nextBoolean() ? NODES.textNode("v" + random.nextInt(9)) : NODES.numberNode(random.nextInt(9));
    }

    @Test
    void aPathFindsWhatThePointerFinds() {
        aPathFindsWhatThePointerFinds(NodePath::of);
    }

    /** Broken: every index segment becomes a name ({@code /0} → {@code /i0}), so arrays are never entered. */
    @Test
    void aPathThatCannotIndexArraysIsCaught() {
        assertFalsified(() -> aPathFindsWhatThePointerFinds(
                pointer -> NodePath.of(JsonPointer.compile(pointer.toString().replaceAll("/([0-9])", "/i$1")))));
    }

    static void aPathFindsWhatThePointerFinds(Function<JsonPointer, NodePath> paths) {
        qt(2_000)
                .forAll(cases())
                .checkAssert(c -> assertThat(paths.apply(c.pointer()).at(c.tree()))
                        .as("%s at %s", c.tree(), c.pointer())
                        .isSameAs(c.tree().at(c.pointer())));
    }
}
