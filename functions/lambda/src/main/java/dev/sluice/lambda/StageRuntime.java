package dev.sluice.lambda;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.definition.DefinitionLoader;
import dev.sluice.core.definition.EnvironmentNames;
import dev.sluice.core.definition.LakeDefinition;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.definition.SinkDefinition;
import dev.sluice.core.definition.StageDefinition;
import dev.sluice.core.schema.SchemaCatalog;
import dev.sluice.core.stage.BatchProcessor;
import dev.sluice.core.stage.EventSink;
import dev.sluice.core.stage.StageChain;
import dev.sluice.lambda.sink.DynamoDbStateSink;
import dev.sluice.lambda.sink.S3LakeSink;
import dev.sluice.lambda.sink.SqsDeadLetterSink;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Everything a stage needs at run time, wired once per function instance from its environment: the
 * definition, the compiled chain, the SDK clients and the sinks.
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
     * naming the missing variable.
     */
    public static StageRuntime fromEnvironment(Map<String, String> env) {
        ObjectMapper mapper = mapper();
        String pipelineName = required(env, EnvironmentNames.PIPELINE);
        String stageName = required(env, EnvironmentNames.STAGE);
        ClassLoader loader = StageRuntime.class.getClassLoader();
        SchemaCatalog schemas = env.containsKey(EnvironmentNames.SCHEMAS_DIR)
                ? SchemaCatalog.fromDirectory(Path.of(env.get(EnvironmentNames.SCHEMAS_DIR)), mapper)
                : SchemaCatalog.fromClasspath(loader, mapper);
        DefinitionLoader definitions = new DefinitionLoader(schemas);
        PipelineDefinition pipeline = env.containsKey(EnvironmentNames.PIPELINES_DIR)
                ? definitions.load(Path.of(env.get(EnvironmentNames.PIPELINES_DIR), pipelineName + ".yaml"))
                : definitions.loadResource(loader, pipelineName);
        StageDefinition stage = pipeline.stage(stageName);

        AwsClients clients = new AwsClients(env);
        ExecutorService writers = Executors.newFixedThreadPool(8, runnable -> {
            Thread thread = new Thread(runnable, "sluice-writer");
            thread.setDaemon(true);
            return thread;
        });
        List<EventSink> sinks = new ArrayList<>();
        for (SinkDefinition sink : stage.sinks()) {
            switch (sink.kind()) {
                case LAKE -> {
                    LakeDefinition lake = pipeline.lakes().get(sink.lake());
                    sinks.add(new S3LakeSink(clients.s3(), required(env, EnvironmentNames.LAKE_BUCKET), lake.prefix()));
                }
                case TABLE ->
                    sinks.add(new DynamoDbStateSink(
                            clients.dynamoDb(),
                            required(env, EnvironmentNames.table(sink.table())),
                            pipeline.tables().get(sink.table()).key(),
                            writers));
            }
        }
        String dlq = stage.failure().deadLetterQueue();
        SqsDeadLetterSink deadLetters = new SqsDeadLetterSink(
                clients.sqs(), required(env, EnvironmentNames.queueUrl(dlq)), pipelineName, stageName, mapper);
        StageChain chain = StageChain.compile(pipeline, stageName, schemas, mapper, Clock.systemUTC());
        return new StageRuntime(pipeline, stageName, new BatchProcessor(chain, sinks, deadLetters));
    }

    private static String required(Map<String, String> env, String name) {
        String value = env.get(name);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException("environment variable " + name + " is not set");
        }
        return value;
    }
}
