package dev.sluice.cdk;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.ValidationMessage;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Checks every resource of a CloudFormation template against CloudFormation's registry schema of its type
 * ({@link RegistrySchemas}): type, required properties, unknown properties, enums, patterns, lengths and bounds of
 * each property, with intrinsic functions accepted wherever a value goes.
 */
final class RegistrySchemaCheck {

    /** The type whose registry schema checks {@code Custom::*} resources (any properties besides ServiceToken). */
    static final String CUSTOM_RESOURCE = "AWS::CloudFormation::CustomResource";

    /**
     * One violation: the resource's logical id and type, the JSON pointer (into the template) of the offending
     * property — for a missing required or an unknown property, the pointer of that property — and what is wrong.
     */
    record Violation(String logicalId, String type, String pointer, String message) {
        @Override
        public String toString() {
            return logicalId + " (" + type + ") " + pointer + ": " + message;
        }
    }

    private final RegistrySchemas schemas;

    RegistrySchemaCheck(RegistrySchemas schemas) {
        this.schemas = schemas;
    }

    /** Every violation in {@code template}, ordered by pointer. */
    List<Violation> check(JsonNode template) {
        List<Violation> violations = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it =
                        template.path("Resources").fields();
                it.hasNext(); ) {
            Map.Entry<String, JsonNode> resource = it.next();
            violations.addAll(check(resource.getKey(), resource.getValue()));
        }
        violations.sort(Comparator.comparing(Violation::pointer).thenComparing(Violation::message));
        return violations;
    }

    private List<Violation> check(String logicalId, JsonNode resource) {
        String type = resource.path("Type").asText();
        String base = "/Resources/" + escape(logicalId) + "/Properties";
        boolean custom = type.startsWith("Custom::");
        Optional<JsonSchema> schema = schemas.properties(custom ? CUSTOM_RESOURCE : type);
        if (schema.isEmpty()) {
            return List.of(new Violation(
                    logicalId,
                    type,
                    "/Resources/" + escape(logicalId) + "/Type",
                    "CloudFormation's registry has no resource type " + type));
        }
        JsonNode properties =
                resource.has("Properties") ? resource.get("Properties") : JsonNodeFactory.instance.objectNode();
        List<Violation> violations = new ArrayList<>();
        for (ValidationMessage message : schema.get().validate(properties)) {
            if (custom && "additionalProperties".equals(message.getType())) {
                continue; // a custom resource's properties are its provider's to define
            }
            String pointer = base + message.getInstanceLocation().toString();
            if (("required".equals(message.getType()) || "additionalProperties".equals(message.getType()))
                    && message.getProperty() != null) {
                pointer += "/" + escape(message.getProperty());
            }
            violations.add(new Violation(logicalId, type, pointer, message.getError()));
        }
        return violations;
    }

    /** A JSON pointer reference token (RFC 6901). */
    private static String escape(String token) {
        return token.replace("~", "~0").replace("/", "~1");
    }
}
