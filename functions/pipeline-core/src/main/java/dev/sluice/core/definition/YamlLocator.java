package dev.sluice.core.definition;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Remembers the line of every node of a YAML document by its JSON pointer, so checks made after
 * binding can still name the line of the offending field.
 */
final class YamlLocator {

    private final Map<String, Integer> lines = new HashMap<>();
    private JsonPointer duplicate;
    private int duplicateLine;

    YamlLocator(YAMLFactory factory, String yaml) {
        try (JsonParser parser = factory.createParser(yaml)) {
            // duplicates are found here, with the line of the second occurrence
            parser.disable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
            Set<String> fields = new HashSet<>();
            for (JsonToken token = parser.nextToken(); token != null; token = parser.nextToken()) {
                if (token == JsonToken.END_OBJECT || token == JsonToken.END_ARRAY) {
                    continue;
                }
                JsonPointer pointer = parser.getParsingContext().pathAsPointer();
                int line = parser.currentTokenLocation().getLineNr();
                if (token == JsonToken.FIELD_NAME && !fields.add(pointer.toString()) && duplicate == null) {
                    duplicate = pointer;
                    duplicateLine = line;
                }
                lines.putIfAbsent(pointer.toString(), line);
            }
        } catch (IOException e) {
            // the binder reports the syntax error with its own location; lines stay partial
        }
    }

    /** The line of the node at this pointer, or of its nearest located ancestor; 0 if none. */
    int line(JsonPointer pointer) {
        for (JsonPointer p = pointer; p != null; p = p.head()) {
            Integer line = lines.get(p.toString());
            if (line != null) {
                return line;
            }
        }
        return 0;
    }

    /** The first field given twice in one map, or {@code null}. */
    JsonPointer duplicate() {
        return duplicate;
    }

    /** The line of the second occurrence of {@link #duplicate()}. */
    int duplicateLine() {
        return duplicateLine;
    }

    /** Whether the document has a node at exactly this pointer. */
    boolean contains(JsonPointer pointer) {
        return lines.containsKey(pointer.toString());
    }

    /** A pointer shown as the dotted path users write: {@code stages.validate.sinks[1].table}. */
    static String dotted(JsonPointer pointer) {
        StringBuilder path = new StringBuilder();
        for (JsonPointer p = pointer; p != null && !p.matches(); p = p.tail()) {
            if (p.mayMatchElement()) {
                path.append('[').append(p.getMatchingIndex()).append(']');
            } else {
                if (path.length() > 0) {
                    path.append('.');
                }
                path.append(p.getMatchingProperty());
            }
        }
        return path.toString();
    }
}
