package dev.sluice.local.template;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.cdk.InProcessSynth;
import dev.sluice.cdk.ResourceMetadata;
import dev.sluice.core.definition.PipelineDefinition;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A synthesized CloudFormation template, read with Jackson: its {@code Resources} by logical id, in
 * template order. The local stack provisions itself from it ({@link
 * dev.sluice.local.provision.Provisioner}).
 *
 * @param stackName the stack's name ({@code sluice-<pipeline>})
 * @param resources the resources by logical id
 */
public record CloudFormationTemplate(String stackName, Map<String, Resource> resources) {

    private static final ObjectMapper JSON = new ObjectMapper();

    public CloudFormationTemplate {
        Objects.requireNonNull(stackName, "stackName");
        resources = Collections.unmodifiableMap(new LinkedHashMap<>(resources));
    }

    /**
     * One resource of the template.
     *
     * @param logicalId its logical id
     * @param type its type, e.g. {@code AWS::Kinesis::Stream}
     * @param properties its {@code Properties} (an empty object when it has none)
     * @param metadata its {@code Metadata} (an empty object when it has none)
     */
    public record Resource(String logicalId, String type, JsonNode properties, JsonNode metadata) {

        /** What the resource is to Sluice ({@link ResourceMetadata#KIND}), if the stack marked it. */
        public Optional<String> kind() {
            return text(metadata.get(ResourceMetadata.KIND));
        }

        /** The definition's name of the resource ({@link ResourceMetadata#NAME}), if the stack marked it. */
        public Optional<String> name() {
            return text(metadata.get(ResourceMetadata.NAME));
        }

        /** A property, or a missing node. */
        public JsonNode property(String name) {
            return properties.path(name);
        }

        private static Optional<String> text(JsonNode node) {
            return node != null && node.isTextual() ? Optional.of(node.asText()) : Optional.empty();
        }
    }

    /** The template the CDK app synthesizes for this pipeline, in this JVM ({@link InProcessSynth}). */
    public static CloudFormationTemplate synthesize(PipelineDefinition definition) {
        return parse("sluice-" + definition.pipeline(), InProcessSynth.template(definition));
    }

    /** Reads a template's JSON. */
    public static CloudFormationTemplate parse(String stackName, String json) {
        JsonNode root;
        try {
            root = JSON.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(
                    "template of " + stackName + " is not JSON: " + e.getOriginalMessage(), e);
        }
        JsonNode resources = root.path("Resources");
        if (!resources.isObject()) {
            throw new IllegalArgumentException("template of " + stackName + " has no Resources section");
        }
        Map<String, Resource> parsed = new LinkedHashMap<>();
        resources.fields().forEachRemaining(entry -> {
            JsonNode resource = entry.getValue();
            String type = resource.path("Type").asText(null);
            if (type == null) {
                throw new IllegalArgumentException(
                        "template of " + stackName + ": resource " + entry.getKey() + " has no Type");
            }
            parsed.put(
                    entry.getKey(),
                    new Resource(
                            entry.getKey(),
                            type,
                            objectOrEmpty(resource.get("Properties")),
                            objectOrEmpty(resource.get("Metadata"))));
        });
        return new CloudFormationTemplate(stackName, parsed);
    }

    /** The resource with this logical id. */
    public Resource resource(String logicalId) {
        Resource resource = resources.get(logicalId);
        if (resource == null) {
            throw new IllegalArgumentException(stackName + " has no resource " + logicalId);
        }
        return resource;
    }

    private static JsonNode objectOrEmpty(JsonNode node) {
        return node != null && node.isObject() ? node : new ObjectNode(JsonNodeFactory.instance);
    }
}
