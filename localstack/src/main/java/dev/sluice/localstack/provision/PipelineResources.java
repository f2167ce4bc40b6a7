package dev.sluice.localstack.provision;

import dev.sluice.core.definition.EnvironmentNames;
import dev.sluice.core.definition.PipelineDefinition;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The physical resources of one provisioned pipeline: logical name → physical name (and queue
 * URLs), the lake's commit ledger table, plus the table that holds the local event-source
 * mappings' checkpoints.
 *
 * @param definition the pipeline
 * @param streams stream names
 * @param tables table names
 * @param bucket the lake bucket
 * @param queueUrls queue URLs
 * @param checkpointTable the local event-source mappings' checkpoint table
 * @param ledgerTable the lake's commit ledger table, or {@code null} when the pipeline has no lake
 */
public record PipelineResources(
        PipelineDefinition definition,
        Map<String, String> streams,
        Map<String, String> tables,
        String bucket,
        Map<String, String> queueUrls,
        String checkpointTable,
        String ledgerTable) {

    public PipelineResources {
        streams = Map.copyOf(streams);
        tables = Map.copyOf(tables);
        queueUrls = Map.copyOf(queueUrls);
    }

    /** The variables a stage's function gets, as infra-cdk sets them in AWS. */
    public Map<String, String> functionEnvironment(String stage) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put(EnvironmentNames.PIPELINE, definition.pipeline());
        env.put(EnvironmentNames.STAGE, stage);
        env.put(EnvironmentNames.LAKE_BUCKET, bucket);
        if (ledgerTable != null) {
            env.put(EnvironmentNames.LEDGER_TABLE, ledgerTable);
        }
        tables.forEach((logical, physical) -> env.put(EnvironmentNames.table(logical), physical));
        streams.forEach((logical, physical) -> env.put(EnvironmentNames.stream(logical), physical));
        queueUrls.forEach((logical, url) -> env.put(EnvironmentNames.queueUrl(logical), url));
        return env;
    }
}
