package dev.sluice.lambda;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.definition.DefinitionLoader;
import dev.sluice.core.definition.EnvironmentNames;
import dev.sluice.core.definition.LakeDefinition;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.definition.ReferenceDefinition;
import dev.sluice.core.definition.SinkDefinition;
import dev.sluice.core.definition.StageDefinition;
import dev.sluice.core.definition.StepType;
import dev.sluice.core.enrich.ReferenceCache;
import dev.sluice.core.enrich.ReferenceLoader;
import dev.sluice.core.pii.CachingSecretProvider;
import dev.sluice.core.pii.FileSecretProvider;
import dev.sluice.core.pii.SecretProvider;
import dev.sluice.core.schema.SchemaCatalog;
import dev.sluice.core.stage.BatchProcessor;
import dev.sluice.core.stage.EventSink;
import dev.sluice.core.stage.StageChain;
import dev.sluice.core.stage.StageServices;
import dev.sluice.lambda.secrets.SecretsManagerSecretProvider;
import dev.sluice.lambda.sink.DynamoDbReferenceLoader;
import dev.sluice.lambda.sink.DynamoDbStateSink;
import dev.sluice.lambda.sink.KinesisStreamSink;
import dev.sluice.lambda.sink.S3LakeSink;
import dev.sluice.lambda.sink.S3ReferenceLoader;
import dev.sluice.lambda.sink.SqsDeadLetterSink;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
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

    /** How long a secret read from Secrets Manager is reused before it is read again. */
    static final Duration SECRET_TTL = Duration.ofMinutes(15);

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
        // each aggregate step writes its partials into its own table (logical name here, physical below)
        Map<String, String> aggregateTables = new LinkedHashMap<>();
        stage.steps().stream()
                .filter(s -> s.type() == StepType.AGGREGATE)
                .forEach(s -> aggregateTables.put(s.option("name"), s.option("table")));

        AwsClients clients = new AwsClients(env);
        ExecutorService writers = Executors.newFixedThreadPool(8, runnable -> {
            Thread thread = new Thread(runnable, "sluice-writer");
            thread.setDaemon(true);
            return thread;
        });
        Map<String, EventSink> sinks = new LinkedHashMap<>();
        for (SinkDefinition sink : stage.sinks()) {
            sinks.put(
                    sink.target(),
                    switch (sink.kind()) {
                        case LAKE -> {
                            LakeDefinition lake = pipeline.lakes().get(sink.lake());
                            String bucket = required(env, EnvironmentNames.LAKE_BUCKET);
                            // a ledger item guards records the input stream may deliver again:
                            // keep it the stream's retention and a day after its last write
                            Duration keep = Duration.ofHours(
                                    pipeline.streams().get(stage.input()).retentionHours() + 24L);
                            yield new S3LakeSink(
                                    clients.s3(),
                                    bucket,
                                    lake.prefix(),
                                    clients.dynamoDb(),
                                    required(env, EnvironmentNames.LEDGER_TABLE),
                                    keep,
                                    Clock.systemUTC());
                        }
                        case TABLE ->
                            new DynamoDbStateSink(
                                    clients.dynamoDb(),
                                    required(env, EnvironmentNames.table(sink.table())),
                                    pipeline.tables().get(sink.table()).key(),
                                    writers,
                                    sink.table().equals(stage.deduplicate()));
                        case STREAM ->
                            new KinesisStreamSink(
                                    clients.kinesis(),
                                    required(env, EnvironmentNames.stream(sink.stream())),
                                    pipeline.stream(sink.stream()).partitionKey());
                    });
        }
        Map<String, ReferenceCache> references = new LinkedHashMap<>();
        stage.steps().stream()
                .filter(s -> s.type() == StepType.ENRICH)
                .map(s -> s.option("reference"))
                .distinct()
                .forEach(name -> references.put(name, reference(env, clients, pipeline, name, mapper)));
        boolean masks = stage.steps().stream().anyMatch(s -> s.type() == StepType.MASK);
        SecretProvider secrets = masks ? secrets(env, clients) : null;

        String dlq = stage.failure().deadLetterQueue();
        // records too large for a message go whole to the pipeline's bucket (the claim check)
        String claimChecks = env.get(EnvironmentNames.LAKE_BUCKET);
        SqsDeadLetterSink deadLetters = new SqsDeadLetterSink(
                clients.sqs(),
                required(env, EnvironmentNames.queueUrl(dlq)),
                pipelineName,
                stageName,
                mapper,
                claimChecks == null ? null : clients.s3(),
                claimChecks,
                dlq);
        StageChain chain = StageChain.compile(
                pipeline, stageName, new StageServices(schemas, mapper, Clock.systemUTC(), secrets, references));
        dev.sluice.core.stage.AggregateSink aggregates = aggregateTables.isEmpty()
                ? null
                : new dev.sluice.lambda.sink.DynamoDbAggregateSink(
                        clients.dynamoDb(),
                        aggregateTables.entrySet().stream()
                                .collect(java.util.stream.Collectors.toMap(
                                        Map.Entry::getKey, e -> required(env, EnvironmentNames.table(e.getValue())))),
                        writers);
        String gate = stage.deduplicate() == null
                ? null
                : stage.sinks().stream()
                        .filter(s -> stage.deduplicate().equals(s.table()))
                        .map(SinkDefinition::target)
                        .findFirst()
                        .orElseThrow();
        return new StageRuntime(
                pipeline, stageName, new BatchProcessor(chain, sinks, aggregates, deadLetters, gate, sinkThreads()));
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

    private static ReferenceCache reference(
            Map<String, String> env,
            AwsClients clients,
            PipelineDefinition pipeline,
            String name,
            ObjectMapper mapper) {
        ReferenceDefinition reference = pipeline.references().get(name);
        ReferenceLoader loader = reference.table() != null
                ? new DynamoDbReferenceLoader(
                        clients.dynamoDb(),
                        required(env, EnvironmentNames.table(reference.table())),
                        reference.key(),
                        mapper)
                : new S3ReferenceLoader(
                        clients.s3(),
                        required(env, EnvironmentNames.LAKE_BUCKET),
                        reference.object(),
                        reference.key(),
                        mapper);
        return new ReferenceCache(
                name,
                loader,
                reference.maxEntries(),
                Duration.ofSeconds(reference.refreshSeconds()),
                Clock.systemUTC());
    }

    /** Local runs read secret files; in AWS secrets come from Secrets Manager, cached. */
    private static SecretProvider secrets(Map<String, String> env, AwsClients clients) {
        if (env.containsKey(EnvironmentNames.SECRETS_DIR)) {
            return new FileSecretProvider(Path.of(env.get(EnvironmentNames.SECRETS_DIR)));
        }
        return new CachingSecretProvider(
                new SecretsManagerSecretProvider(
                        clients.secretsManager(), name -> required(env, EnvironmentNames.secretId(name))),
                SECRET_TTL,
                Clock.systemUTC());
    }

    private static String required(Map<String, String> env, String name) {
        String value = env.get(name);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException("environment variable " + name + " is not set");
        }
        return value;
    }
}
