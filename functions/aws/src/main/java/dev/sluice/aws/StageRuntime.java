package dev.sluice.aws;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.ConfigurationException;
import dev.sluice.core.definition.DefinitionLoader;
import dev.sluice.core.definition.EnvironmentNames;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.enrich.ReferenceCache;
import dev.sluice.core.pii.SecretProvider;
import dev.sluice.core.schema.SchemaCatalog;
import dev.sluice.core.stage.BatchProcessor;
import dev.sluice.core.stage.DeadLetterSink;
import dev.sluice.core.stage.EventSink;
import dev.sluice.core.stage.StageChain;
import dev.sluice.core.stage.StageServices;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Everything a stage needs at run time, wired once per function instance from its environment: the
 * definition, the compiled chain, the SDK clients, secrets, reference caches and the sinks.
 *
 * @param pipeline the pipeline's definition
 * @param stageName the stage this function runs
 * @param processor the chain and its sinks
 */
public record StageRuntime(PipelineDefinition pipeline, String stageName, BatchProcessor processor) {

    /** The JSON mapper every stage uses: decimals stay exact. */
    public static ObjectMapper mapper() {
        return new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
    }

    /**
     * Wires a stage from environment variables (see {@link EnvironmentNames}); fails with a message
     * naming the missing variable. The sinks, references and secrets come from their factories
     * ({@link SinkFactory}, {@link ReferenceFactory}, {@link SecretFactory}).
     */
    public static StageRuntime fromEnvironment(Map<String, String> env) {
        ObjectMapper mapper = mapper();
        String pipelineName = StageContext.required(env, EnvironmentNames.PIPELINE);
        String stageName = StageContext.required(env, EnvironmentNames.STAGE);
        ClassLoader loader = StageRuntime.class.getClassLoader();
        SchemaCatalog schemas = env.containsKey(EnvironmentNames.SCHEMAS_DIR)
                ? SchemaCatalog.fromDirectory(Path.of(env.get(EnvironmentNames.SCHEMAS_DIR)), mapper)
                : SchemaCatalog.fromClasspath(loader, mapper);
        DefinitionLoader definitions = new DefinitionLoader(schemas);
        PipelineDefinition pipeline = env.containsKey(EnvironmentNames.PIPELINE_FILE)
                ? definitions.load(Path.of(env.get(EnvironmentNames.PIPELINE_FILE)))
                : env.containsKey(EnvironmentNames.PIPELINES_DIR)
                        ? definitions.load(Path.of(env.get(EnvironmentNames.PIPELINES_DIR), pipelineName + ".yaml"))
                        : definitions.loadResource(loader, pipelineName);
        if (!pipeline.pipeline().equals(pipelineName)) {
            throw new ConfigurationException(
                    "the definition read for " + EnvironmentNames.PIPELINE + " defines pipeline '" + pipeline.pipeline()
                            + "', not " + EnvironmentNames.PIPELINE + "='" + pipelineName + "'");
        }
        StageContext context = new StageContext(
                env,
                pipeline,
                stageName,
                pipeline.stage(stageName),
                new AwsClients(env),
                mapper,
                itemWriters(pipeline.stage(stageName)));

        // the order in which missing settings are reported: sinks, references, secrets, dead letters
        Map<String, EventSink> sinks = SinkFactory.sinks(context);
        Map<String, ReferenceCache> references = ReferenceFactory.references(context);
        SecretProvider secrets = SecretFactory.secrets(context);
        DeadLetterSink deadLetters = SinkFactory.deadLetters(context);
        StageChain chain = StageChain.compile(
                pipeline, stageName, new StageServices(schemas, mapper, Clock.systemUTC(), secrets, references));
        BatchProcessor processor = new BatchProcessor(
                chain,
                sinks,
                SinkFactory.aggregates(context),
                deadLetters,
                SinkFactory.gate(context.stage()),
                sinkThreads());
        return new StageRuntime(pipeline, stageName, processor);
    }

    /**
     * The threads the table and aggregate sinks write their items on: the stage function's {@code
     * writers} (a KCL stage has no function block: the default).
     */
    private static ExecutorService itemWriters(dev.sluice.core.definition.StageDefinition stage) {
        return Executors.newFixedThreadPool(stage.function().writers(), runnable -> {
            Thread thread = new Thread(runnable, "sluice-writer");
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * Runs a batch's sinks concurrently; separate from the item writers the sinks use themselves, so
     * that a sink waiting for its items can never hold the threads those items need.
     */
    private static ExecutorService sinkThreads() {
        return Executors.newCachedThreadPool(runnable -> {
            Thread thread = new Thread(runnable, "sluice-sink");
            thread.setDaemon(true);
            return thread;
        });
    }
}
