package dev.sluice.core.definition;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import java.io.IOException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Collectors;

/** Reads a step written as a bare name or as a one-entry map from name to options. */
final class StepDefinitionDeserializer extends JsonDeserializer<StepDefinition> {

    @Override
    public StepDefinition deserialize(JsonParser parser, DeserializationContext context) throws IOException {
        if (parser.currentToken() == JsonToken.VALUE_STRING) {
            return new StepDefinition(stepType(parser, parser.getText()), Map.of());
        }
        if (parser.currentToken() != JsonToken.START_OBJECT) {
            return (StepDefinition) context.handleUnexpectedToken(StepDefinition.class, parser);
        }
        String name = parser.nextFieldName();
        if (name == null) {
            throw context.weirdStringException("{}", StepDefinition.class, "a step needs a name, e.g. '- validate'");
        }
        StepType type = stepType(parser, name);
        parser.nextToken();
        Map<String, Object> options = new LinkedHashMap<>();
        if (parser.currentToken() == JsonToken.START_OBJECT) {
            for (String option = parser.nextFieldName(); option != null; option = parser.nextFieldName()) {
                if (!type.options().contains(option)) {
                    throw DefinitionException.unknownOption(parser, type, option);
                }
                parser.nextToken();
                options.put(option, context.readValue(parser, Object.class));
            }
        } else if (parser.currentToken() != JsonToken.VALUE_NULL) {
            throw context.wrongTokenException(parser, Map.class, JsonToken.START_OBJECT, "step options must be a map");
        }
        if (parser.nextToken() != JsonToken.END_OBJECT) {
            throw context.wrongTokenException(
                    parser, StepDefinition.class, JsonToken.END_OBJECT, "one step per list item");
        }
        return new StepDefinition(type, options);
    }

    private static StepType stepType(JsonParser parser, String name) throws IOException {
        for (StepType type : StepType.values()) {
            if (type.yamlName().equals(name)) {
                return type;
            }
        }
        String known = Arrays.stream(StepType.values())
                .map(StepType::yamlName)
                .collect(Collectors.toCollection(TreeSet::new))
                .toString();
        throw new com.fasterxml.jackson.core.JsonParseException(
                parser, "unknown step '" + name + "' (known steps: " + known + ")");
    }
}
