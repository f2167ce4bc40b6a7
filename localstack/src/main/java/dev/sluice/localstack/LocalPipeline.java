package dev.sluice.localstack;

import dev.sluice.core.definition.ConsumerType;
import dev.sluice.core.definition.EnvironmentNames;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.definition.StageDefinition;
import dev.sluice.localstack.esm.CheckpointStore;
import dev.sluice.localstack.esm.LocalEventSourceMapping;
import dev.sluice.localstack.esm.LocalFunction;
import dev.sluice.localstack.esm.MappingConfig;
import dev.sluice.localstack.provision.PipelineResources;
import dev.sluice.localstack.provision.Provisioner;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One pipeline deployed on the local stack: its resources provisioned, a function per
 * {@code consumer: lambda} stage loaded by handler class name, and a local event-source mapping
 * feeding each.
 */
public final class LocalPipeline implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(LocalPipeline.class);

    private final LocalAws aws;
    private final PipelineResources resources;
    private final Path repository;
    private final Path secrets;
    private final Map<String, LocalFunction> functions = new LinkedHashMap<>();
    private final Map<String, LocalEventSourceMapping> mappings = new LinkedHashMap<>();

    private LocalPipeline(LocalAws aws, PipelineResources resources, Path repository) {
        this.aws = aws;
        this.resources = resources;
        this.repository = repository;
        this.secrets = LocalSecrets.ensure(
                aws.options().logDirectory().map(Path::getParent).orElse(null));
    }

    /**
     * Provisions a pipeline's resources without starting its consumers.
     *
     * @param names unique physical names (tests), or {@code null} for the logical names
     * @param repository the repository root, whose {@code pipelines/} and {@code schemas/} the
     *     functions read (so edits need no rebuild), or {@code null} to use the packaged ones
     */
    public static LocalPipeline provision(
            LocalAws aws, PipelineDefinition pipeline, ResourceNames names, Path repository) {
        return new LocalPipeline(aws, new Provisioner(aws).provision(pipeline, names), repository);
    }

    /**
     * The stages this local stack does not run yet, with why: {@code consumer: kcl} stages (local KCL
     * workers come with the KCL service). Lambda stages run whatever their steps, aggregates
     * included.
     */
    public Map<String, String> notRunLocally() {
        Map<String, String> skipped = new LinkedHashMap<>();
        resources.definition().stages().forEach((name, stage) -> {
            if (stage.consumer() != ConsumerType.LAMBDA) {
                skipped.put(name, "consumer " + stage.consumer().yamlName() + " is not run locally yet");
            }
        });
        return skipped;
    }

    /** Loads every stage's function and starts its event-source mapping. */
    public LocalPipeline start() {
        return start(Optional.empty());
    }

    /**
     * Like {@link #start()}, with every mapping's batching window replaced (tests shorten it).
     */
    public LocalPipeline start(Optional<Duration> batchingWindow) {
        PipelineDefinition pipeline = resources.definition();
        Map<String, String> skipped = notRunLocally();
        skipped.forEach((name, why) -> LOG.warn("stage {}/{} is not started: {}", pipeline.pipeline(), name, why));
        pipeline.stages().forEach((name, stage) -> {
            if (skipped.containsKey(name)) {
                return;
            }
            LocalFunction function = function(name);
            MappingConfig config = MappingConfig.from(
                    functionName(name),
                    resources.streams().get(stage.input()),
                    stage.batching(),
                    stage.failure(),
                    resources.queueUrls().get(stage.failure().deadLetterQueue()));
            if (batchingWindow.isPresent()) {
                config = config.withBatchingWindow(batchingWindow.get());
            }
            mappings.put(name, mapping(config, function).start());
        });
        return this;
    }

    /** A new event-source mapping for a stage, not started (tests restart mappings with it). */
    public LocalEventSourceMapping mapping(MappingConfig config, LocalFunction function) {
        return new LocalEventSourceMapping(
                config,
                function,
                aws.kinesis(),
                aws.sqs(),
                new CheckpointStore(aws.dynamoDb(), resources.checkpointTable()),
                aws.region().id(),
                aws.accountId());
    }

    /** The stage's function, loaded once by its handler class name. */
    public synchronized LocalFunction function(String stage) {
        return functions.computeIfAbsent(stage, s -> {
            StageDefinition definition = resources.definition().stage(s);
            return LocalFunction.load(functionName(s), definition.handler(), functionEnvironment(s));
        });
    }

    /** The environment a stage's function sees: the stack's AWS variables and Sluice's own. */
    public Map<String, String> functionEnvironment(String stage) {
        Map<String, String> env = new LinkedHashMap<>(aws.lambdaEnvironment());
        env.putAll(resources.functionEnvironment(stage));
        if (repository != null) {
            env.put(
                    EnvironmentNames.PIPELINES_DIR,
                    repository.resolve("pipelines").toString());
            env.put(EnvironmentNames.SCHEMAS_DIR, repository.resolve("schemas").toString());
        }
        env.put(EnvironmentNames.SECRETS_DIR, secrets.toString());
        return env;
    }

    public String functionName(String stage) {
        return resources.definition().pipeline() + "-" + stage;
    }

    public PipelineResources resources() {
        return resources;
    }

    public Map<String, LocalEventSourceMapping> mappings() {
        return mappings;
    }

    /** Records acknowledged by every mapping of this pipeline. */
    public long acknowledged() {
        return mappings.values().stream()
                .mapToLong(LocalEventSourceMapping::acknowledged)
                .sum();
    }

    /** Stops the mappings; the resources stay. */
    @Override
    public void close() {
        mappings.values().forEach(LocalEventSourceMapping::close);
        mappings.clear();
    }
}
