package dev.sluice.core.schema;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.core.json.LocatedTextNode;
import dev.sluice.core.schema.fast.TokenReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The one-pass reader ({@link TokenReader}) over the conformance corpus and the committed edge cases,
 * read with each mapper configuration: it accepts a document only when networknt finds it valid and
 * a strict tree read finds it well-formed, and every value it records is the value the mapper's tree
 * holds at that path. Valid documents of the corpus are accepted, not left to the slow way.
 */
class TokenReaderConformanceTest {

    @Test
    void acceptsOnlyWhatTheFullWayAcceptsAndRecordsTheTreesValues() throws IOException {
        List<String[]> documents = new ArrayList<>();
        for (ConformanceCorpus.Case c : ConformanceCorpus.all()) {
            documents.add(new String[] {c.schema(), c.label(), c.json()});
        }
        for (String line : FastValidatorConformanceTest.edgeCaseLines()) {
            JsonNode entry = FastValidatorConformanceTest.read(FastValidatorConformanceTest.DOUBLES, line);
            documents.add(new String[] {
                entry.get("schema").textValue(),
                entry.get("note").textValue(),
                entry.get("doc").toString()
            });
        }
        List<String> problems = new ArrayList<>();
        int valid = 0;
        int acceptedValid = 0;
        int accepted = 0;
        for (ObjectMapper mapper :
                List.of(new ObjectMapper(), FastValidatorConformanceTest.DECIMALS, TestMappers.DECIMALS_ONLY)) {
            // one reader per schema for all its documents, as a stage keeps one: the strings it has
            // found valid are remembered from one document to the next
            Map<String, TokenReader> readers = new HashMap<>();
            for (String[] document : documents) {
                EventSchema schema = FastValidatorConformanceTest.schema(document[0]);
                List<List<String>> paths = paths(schema.document());
                TokenReader reader = readers.computeIfAbsent(
                        document[0],
                        name -> TokenReader.compile(schema.document(), mapper, paths)
                                .orElseThrow(() -> new AssertionError(name + " does not compile to a token reader")));
                String json = document[2];
                if (json.matches("(?s).*\\\\u[dD].*") || json.indexOf('\0') >= 0) {
                    continue; // the caller's scan sends these the full way
                }
                String label = document[0] + " | " + document[1] + " | " + json;
                TokenReader.Reading reading = reader.read(json.getBytes(StandardCharsets.UTF_8));
                JsonNode tree = strictTree(mapper, json);
                Boolean verdict = tree == null ? Boolean.FALSE : FastValidatorConformanceTest.reference(schema, tree);
                if (Boolean.TRUE.equals(verdict) && tree.isObject()) {
                    valid++;
                    if (reading != null) {
                        acceptedValid++;
                    }
                }
                if (reading == null) {
                    continue;
                }
                accepted++;
                if (!Boolean.TRUE.equals(verdict) || !tree.isObject()) {
                    problems.add("accepted, but the full way says " + verdict + ": " + label);
                    continue;
                }
                if (reading.rootSize() != tree.size()) {
                    problems.add("root size " + reading.rootSize() + " for " + tree.size() + ": " + label);
                }
                for (List<String> path : paths) {
                    JsonNode want = at(tree, path);
                    JsonNode got = at(reading.fields(), path);
                    if (want == null ? got != null : !want.equals(got) || !sameClass(want, got)) {
                        problems.add("at " + path + " recorded " + got + " for " + want + ": " + label);
                    }
                    if (got != null && got.isTextual() && !(got instanceof LocatedTextNode)) {
                        problems.add("at " + path + " a string that was not located: " + label);
                    }
                }
            }
        }
        problems.forEach(p -> System.out.println("  TOKEN READER " + p));
        System.out.printf("token reader: %d documents accepted; %d of %d valid ones%n", accepted, acceptedValid, valid);

        assertThat(problems).isEmpty();
        assertThat(valid).isGreaterThan(300);
        // a valid event is read in one pass, not sent the slow way; the few left over are values the
        // fast checkers leave to networknt
        assertThat(acceptedValid).isGreaterThanOrEqualTo(valid * 95 / 100);
    }

    @Test
    void refusesWhatIsNotOneWellFormedObjectWithDistinctMembers() {
        TokenReader reader = TokenReader.compile(
                        com.fasterxml.jackson.databind.node.BooleanNode.TRUE, new ObjectMapper(), List.of())
                .orElseThrow();
        for (String json : List.of(
                "{\"a\":1,\"a\":2}",
                "{\"a\":{\"b\":1,\"b\":1}}",
                "{\"a\":[{\"b\":1,\"b\":1}]}",
                "{\"a\":1}{}",
                "{\"a\":1} x",
                "[{\"a\":1}]",
                "\"a\"",
                "",
                "{\"a\":1",
                "{\"a\":01}",
                "{\"a\":NaN}",
                "{\"a\":\"\t\"}",
                "{\"a\":\"\\x\"}")) {
            assertThat(reader.read(json.getBytes(StandardCharsets.UTF_8)))
                    .as(json)
                    .isNull();
        }
        assertThat(reader.read(
                        "{\"a\":{\"b\":[1,{\"c\":null}]},\"d\":\"\\u00e9\"} \n".getBytes(StandardCharsets.UTF_8)))
                .isNotNull();
    }

    /** Mapper configurations beside the conformance test's two. */
    private static final class TestMappers {
        static final ObjectMapper DECIMALS_ONLY =
                new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
    }

    private static boolean sameClass(JsonNode want, JsonNode got) {
        if (want.isTextual() && got.isTextual()) {
            return true; // located or not, a string is a string
        }
        if (want.isObject() && got.isObject()) {
            return true; // a sparse object on the way to deeper paths; its members are compared on their own
        }
        return want.getClass() == got.getClass();
    }

    /** The mapper's tree of a document read strictly (one object, no duplicate member), or null. */
    private static JsonNode strictTree(ObjectMapper mapper, String json) {
        try {
            return mapper.reader()
                    .with(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
                    .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                    .readTree(json);
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * Every property path of the schema, two levels deep (an object property with declared properties
     * by its members, the others whole), plus one that no document has.
     */
    private static List<List<String>> paths(JsonNode schema) {
        List<List<String>> paths = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it =
                        schema.path("properties").fields();
                it.hasNext(); ) {
            Map.Entry<String, JsonNode> property = it.next();
            Iterator<String> inner = property.getValue().path("properties").fieldNames();
            if (!inner.hasNext()) {
                paths.add(List.of(property.getKey()));
            }
            while (inner.hasNext()) {
                paths.add(List.of(property.getKey(), inner.next()));
            }
        }
        paths.add(List.of("nobody", "has", "this"));
        return paths;
    }

    private static JsonNode at(JsonNode root, List<String> path) {
        JsonNode node = root;
        for (String name : path) {
            if (!(node instanceof ObjectNode object)) {
                return null;
            }
            node = object.get(name);
            if (node == null) {
                return null;
            }
        }
        return node;
    }
}
