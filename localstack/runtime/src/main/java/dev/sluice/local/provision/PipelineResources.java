package dev.sluice.local.provision;

import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.local.esm.MappingConfig;
import dev.sluice.local.template.LocalResource;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The local resources of one pipeline, provisioned from its synthesized template: the definition's
 * logical names mapped to local physical names (and queue URLs), the lake's commit ledger table, the
 * stages' functions, event-source mappings and KCL services as the template configures them, plus
 * the local-only table that holds the local event-source mappings' checkpoints.
 *
 * @param definition the pipeline
 * @param stackName the template's stack ({@code sluice-<pipeline>})
 * @param streams stream names by the definition's logical name
 * @param tables serving table names by the definition's logical name
 * @param bucket the lake bucket, or {@code null} when the template has none
 * @param queueUrls queue URLs by the definition's logical name
 * @param checkpointTable the local event-source mappings' checkpoint table (local only)
 * @param ledgerTable the lake's commit ledger table, or {@code null} when the pipeline has no lake
 * @param streamSettings the template's settings of each stream, by logical name
 * @param secrets local secret ids (ARNs) by secret name; their values come from the local provider
 * @param functions the Lambda functions by stage
 * @param mappings the event-source mappings by stage
 * @param kclServices the KCL services by stage
 * @param provisioned every provisioned template resource by logical id
 */
public record PipelineResources(
        PipelineDefinition definition,
        String stackName,
        Map<String, String> streams,
        Map<String, String> tables,
        String bucket,
        Map<String, String> queueUrls,
        String checkpointTable,
        String ledgerTable,
        Map<String, StreamSettings> streamSettings,
        Map<String, String> secrets,
        Map<String, FunctionSpec> functions,
        Map<String, MappingConfig> mappings,
        Map<String, KclService> kclServices,
        Map<String, LocalResource> provisioned) {

    public PipelineResources {
        streams = ordered(streams);
        tables = ordered(tables);
        queueUrls = ordered(queueUrls);
        streamSettings = ordered(streamSettings);
        secrets = ordered(secrets);
        functions = ordered(functions);
        mappings = ordered(mappings);
        kclServices = ordered(kclServices);
        provisioned = ordered(provisioned);
    }

    /**
     * The environment the template gives a stage's compute: a Lambda stage's function variables, or a
     * KCL stage's worker container environment, resolved to local names.
     *
     * @throws IllegalArgumentException if the template has neither for the stage
     */
    public Map<String, String> functionEnvironment(String stage) {
        FunctionSpec function = functions.get(stage);
        if (function != null) {
            return function.environment();
        }
        KclService service = kclServices.get(stage);
        if (service != null) {
            return service.environment();
        }
        throw new IllegalArgumentException(stackName + " has no function or KCL service for stage '" + stage
                + "' (functions: " + functions.keySet() + ", KCL services: " + kclServices.keySet() + ")");
    }

    private static <V> Map<String, V> ordered(Map<String, V> map) {
        return Collections.unmodifiableMap(new LinkedHashMap<>(map));
    }
}
