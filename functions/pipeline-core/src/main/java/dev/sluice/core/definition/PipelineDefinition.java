package dev.sluice.core.definition;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A pipeline as declared in {@code pipelines/<name>.yaml}: its streams, stages, sinks, failure
 * policy and access. Instances are immutable and already checked by {@link DefinitionLoader}: every
 * reference resolves and every number is in range.
 *
 * @param pipeline the pipeline's name, used as a prefix of physical resource names
 * @param description one line for humans
 * @param streams Kinesis streams by logical name
 * @param lakes S3 lake prefixes by logical name
 * @param tables DynamoDB serving tables by logical name
 * @param queues SQS dead-letter queues by logical name
 * @param references reference data for enrichment, by name
 * @param stages processing stages by name, in declaration order
 * @param access resources each persona may use, by persona name ({@link Persona#yamlName()})
 */
public record PipelineDefinition(
        String pipeline,
        String description,
        Map<String, StreamDefinition> streams,
        Map<String, LakeDefinition> lakes,
        Map<String, TableDefinition> tables,
        Map<String, QueueDefinition> queues,
        Map<String, ReferenceDefinition> references,
        Map<String, StageDefinition> stages,
        Map<String, List<String>> access) {

    public PipelineDefinition {
        streams = immutable(streams);
        lakes = immutable(lakes);
        tables = immutable(tables);
        queues = immutable(queues);
        references = immutable(references);
        stages = immutable(stages);
        access = immutable(access);
        description = description == null ? "" : description;
    }

    /** The stage with this name. */
    public StageDefinition stage(String name) {
        StageDefinition stage = stages.get(name);
        if (stage == null) {
            throw new IllegalArgumentException(
                    "pipeline '" + pipeline + "' has no stage '" + name + "' (stages: " + stages.keySet() + ")");
        }
        return stage;
    }

    /** The access block by persona. */
    public Map<Persona, List<String>> personas() {
        Map<Persona, List<String>> personas = new java.util.EnumMap<>(Persona.class);
        access.forEach((name, resources) -> personas.put(Persona.fromYaml(name), List.copyOf(resources)));
        return personas;
    }

    /** The stream with this logical name. */
    public StreamDefinition stream(String name) {
        return Objects.requireNonNull(streams.get(name), () -> "no stream '" + name + "'");
    }

    private static <K, V> Map<K, V> immutable(Map<K, V> map) {
        // LinkedHashMap copy keeps declaration order, which users see in summaries
        return map == null ? Map.of() : java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(map));
    }
}
