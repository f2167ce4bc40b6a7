package dev.sluice.local;

import dev.sluice.core.definition.ConsumerType;
import dev.sluice.core.definition.EnvironmentNames;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.definition.StageDefinition;
import dev.sluice.emulators.LocalAws;
import dev.sluice.emulators.LocalSecrets;
import dev.sluice.emulators.ResourceNames;
import dev.sluice.local.esm.CheckpointStore;
import dev.sluice.local.esm.LocalEventSourceMapping;
import dev.sluice.local.esm.LocalFunction;
import dev.sluice.local.esm.MappingConfig;
import dev.sluice.local.iam.AccessModel;
import dev.sluice.local.iam.LocalIam;
import dev.sluice.local.kcl.KclTimings;
import dev.sluice.local.kcl.LocalKclWorkers;
import dev.sluice.local.provision.FunctionSpec;
import dev.sluice.local.provision.PipelineResources;
import dev.sluice.local.provision.Provisioner;
import dev.sluice.local.secrets.SecretsManagerFront;
import dev.sluice.local.template.CloudFormationTemplate;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;

/**
 * One pipeline deployed on the local stack: its resources provisioned from the pipeline's
 * synthesized CDK template ({@link Provisioner}), a function per {@code AWS::Lambda::Function} of the
 * template loaded by its handler class name with the template's environment, and a local
 * event-source mapping, configured as the template's {@code AWS::Lambda::EventSourceMapping}, feeding
 * each; local KCL workers ({@link LocalKclWorkers}) for each of the template's KCL services ({@link
 * dev.sluice.local.provision.KclService}), with its worker container's environment resolved to
 * local names ({@link #functionEnvironment(String)}).
 */
public final class LocalPipeline implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(LocalPipeline.class);

    private final LocalAws aws;
    private final PipelineResources resources;
    private final Path repository;
    private final Path secrets;
    private final SecretsManagerFront secretsFront;
    private final Path metrics;
    private final Map<String, LocalFunction> functions = new LinkedHashMap<>();
    private final Map<String, LocalEventSourceMapping> mappings = new LinkedHashMap<>();
    private final Map<String, MappingConfig> configs = new LinkedHashMap<>();
    private final java.util.List<LocalEventSourceMapping> killed = new java.util.ArrayList<>();
    private final Map<String, String> extraEnvironment = new LinkedHashMap<>();
    private final ResourceNames names;
    private final Map<String, LocalKclWorkers> kclWorkers = new LinkedHashMap<>();
    private int kclWorkerCount = 1;
    private KclTimings kclTimings = KclTimings.LOCAL;
    private final Optional<LocalIam> iam;
    private final String deployment;
    private final CloudFormationTemplate template;
    private volatile AccessModel accessModel;

    private LocalPipeline(
            LocalAws aws,
            PipelineResources resources,
            Path repository,
            ResourceNames names,
            CloudFormationTemplate template) {
        this.aws = aws;
        this.resources = resources;
        this.repository = repository;
        this.names = names;
        this.template = template;
        this.iam = LocalIam.of(aws);
        this.deployment = names == null ? resources.stackName() : names.name(resources.stackName());
        iam.ifPresent(i -> deployAccess(template));
        // one value per secret ARN, as each stack's secret has its own generated value in AWS: two
        // pipelines' tokenization keys differ, so their tokens never join
        Map<String, String> secretFiles = new LinkedHashMap<>();
        resources.secrets().values().forEach(arn -> secretFiles.put(arn, SecretsManagerFront.fileName(arn)));
        this.secrets = LocalSecrets.ensure(
                aws.options().logDirectory().map(Path::getParent).orElse(null), secretFiles.values());
        // the stages read their secrets as in AWS, through Secrets Manager's API (authorized)
        this.secretsFront = secretFiles.isEmpty()
                ? null
                : new SecretsManagerFront(aws.accessControl(), aws.region().id(), secretFiles, secrets);
        this.metrics = aws.options()
                .logDirectory()
                .map(logs -> logs.resolveSibling("metrics"))
                .orElseGet(() -> Path.of(System.getProperty("java.io.tmpdir"), "sluice-metrics"))
                .resolve(resources.definition().pipeline() + ".jsonl");
    }

    /**
     * Provisions a pipeline's resources from the template the CDK app synthesizes for it (in this
     * JVM), without starting its consumers.
     *
     * @param names unique physical names (tests), or {@code null} for the logical names
     * @param repository the repository root, whose {@code pipelines/} and {@code schemas/} the
     *     functions read (so edits need no rebuild), or {@code null} to use the packaged ones
     */
    public static LocalPipeline provision(
            LocalAws aws, PipelineDefinition pipeline, ResourceNames names, Path repository) {
        CloudFormationTemplate template = CloudFormationTemplate.synthesize(pipeline);
        return new LocalPipeline(
                aws, new Provisioner(aws).provision(pipeline, template, names), repository, names, template);
    }

    /** The template the pipeline was provisioned from (and whose access it enforced first). */
    public CloudFormationTemplate template() {
        return template;
    }

    /**
     * Enforces the IAM, key and resource policies of a template of this pipeline's stack from the
     * next request on (a no-op when the stack does not enforce IAM): how a grant is revoked or
     * restored mid-run. Principals keep their credentials.
     */
    public void deployAccess(CloudFormationTemplate template) {
        iam.ifPresent(i -> {
            // a KCL application renamed per test (kclWorkers) keeps its grants on its legacy tables
            Map<String, String> renamed = new LinkedHashMap<>();
            if (names != null) {
                resources.kclServices().keySet().forEach(stage -> {
                    String application = resources.functionEnvironment(stage).get(EnvironmentNames.KCL_APPLICATION);
                    if (application != null) {
                        renamed.put(application, names.name(application));
                    }
                });
            }
            AccessModel model = AccessModel.from(
                    template, resources.provisioned(), aws.region().id(), aws.accountId(), deployment, renamed);
            accessModel = model;
            i.deploy(model);
        });
    }

    /** The access model IAM enforces for this pipeline, when the stack enforces IAM. */
    public Optional<AccessModel> accessModel() {
        return Optional.ofNullable(accessModel);
    }

    /** The stack's IAM, when it enforces IAM. */
    public Optional<LocalIam> iam() {
        return iam;
    }

    /**
     * The credentials a persona's principal acts with: its role's local keys when IAM is enforced,
     * else the stack's own.
     */
    public AwsCredentialsProvider personaCredentials(String persona) {
        if (accessModel == null) {
            return aws.credentialsProvider();
        }
        AccessModel.Principal principal = accessModel.personas().get(persona);
        if (principal == null) {
            throw new IllegalArgumentException(resources.stackName() + " has no persona role '" + persona + "' (it has "
                    + accessModel.personas().keySet() + ")");
        }
        return LocalIam.credentials(principal);
    }

    /** The persona the demo's, the load test's and the fault suite's producers act as. */
    public static final String PRODUCER_PERSONA = "source-operator";

    /**
     * A Kinesis client for a producer of this pipeline: signed as {@value #PRODUCER_PERSONA} when IAM
     * is enforced (the stack's own client otherwise).
     */
    public software.amazon.awssdk.services.kinesis.KinesisClient producerKinesis() {
        return accessModel == null ? aws.kinesis() : aws.kinesis(personaCredentials(PRODUCER_PERSONA));
    }

    /** The principal a stage's compute acts as (its function's execution role or its KCL task role). */
    public Optional<AccessModel.Principal> stagePrincipal(String stage) {
        if (accessModel == null) {
            return Optional.empty();
        }
        FunctionSpec spec = resources.functions().get(stage);
        if (spec != null) {
            return accessModel.functionRole(spec.functionName());
        }
        return accessModel.taskRole(stage);
    }

    /**
     * The stages this local stack cannot run, with why: {@code consumer: kcl} stages when the KCL app
     * is not built (or the pipeline was provisioned without a repository to find it in). Lambda
     * stages run whatever their steps, aggregates included; KCL stages run as local KCL workers.
     */
    public Map<String, String> notRunLocally() {
        Map<String, String> skipped = new LinkedHashMap<>();
        resources.definition().stages().forEach((name, stage) -> {
            if (stage.consumer() == ConsumerType.KCL && !LocalKclWorkers.built(kclJar())) {
                skipped.put(name, "the KCL app is not built (" + LocalKclWorkers.APP_JAR + ")");
            }
        });
        return skipped;
    }

    /**
     * How many local KCL workers {@link #start()} runs per {@code consumer: kcl} stage (default 1),
     * and with which KCL timings; call before {@link #start()}.
     */
    public LocalPipeline withKclWorkers(int count, KclTimings timings) {
        this.kclWorkerCount = count;
        this.kclTimings = timings;
        return this;
    }

    /** The local KCL workers of a {@code consumer: kcl} stage (created on first use, none started). */
    public synchronized LocalKclWorkers kclWorkers(String stage) {
        return kclWorkers.computeIfAbsent(stage, s -> kclWorkers(s, false));
    }

    /**
     * New local KCL workers for a stage, none started: polling, or enhanced fan-out (HTTP/2 to
     * kinesis-mock's TLS port).
     */
    public LocalKclWorkers kclWorkers(String stage, boolean fanOut) {
        StageDefinition definition = resources.definition().stage(stage);
        Map<String, String> environment = functionEnvironment(stage);
        // the application, stream and lease table the template's KCL service names, resolved locally;
        // the application name is made unique per test like every other name
        String application = environment.get(EnvironmentNames.KCL_APPLICATION);
        return new LocalKclWorkers(
                aws,
                stage,
                environment,
                names == null ? application : names.name(application),
                environment.get(EnvironmentNames.KCL_STREAM),
                environment.get(EnvironmentNames.KCL_LEASE_TABLE),
                kclJar(),
                kclTimings,
                fanOut,
                definition.batching().startingPosition() == dev.sluice.core.definition.StartingPosition.TRIM_HORIZON
                        ? "TRIM_HORIZON"
                        : null);
    }

    /** The packaged KCL app, if the repository is known. */
    private Path kclJar() {
        Path root = repository != null
                ? repository
                : Path.of(System.getProperty("sluice.root", ".")).toAbsolutePath();
        return root.resolve(LocalKclWorkers.APP_JAR);
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
        resources.kclServices().keySet().forEach(name -> {
            if (skipped.containsKey(name)) {
                return;
            }
            LocalKclWorkers workers = kclWorkers(name);
            if (kclWorkerCount > 1) {
                // the first alone: brand-new KCL applications race on their first initialisation
                workers.start(kclWorkerCount, Duration.ofSeconds(90));
            } else {
                workers.startWorker();
            }
        });
        resources.mappings().forEach((name, templateConfig) -> {
            if (skipped.containsKey(name)) {
                return;
            }
            LocalFunction function = function(name);
            MappingConfig config = templateConfig;
            if (batchingWindow.isPresent()) {
                config = config.withBatchingWindow(batchingWindow.get());
            }
            configs.put(name, config);
            mappings.put(name, mapping(config, function).start());
        });
        return this;
    }

    /**
     * Adds variables to every function's environment (metrics file, for instance); call before
     * {@link #start()}.
     */
    public LocalPipeline withEnvironment(Map<String, String> variables) {
        extraEnvironment.putAll(variables);
        return this;
    }

    /**
     * Arms a crash of a stage's runner right after its next successful invocation, before the
     * checkpoint (see {@link LocalEventSourceMapping#killBeforeNextCheckpoint()}).
     */
    public synchronized void killBeforeNextCheckpoint(String stage) {
        running(stage).killBeforeNextCheckpoint();
    }

    /**
     * Waits (up to ten seconds) for a stage's armed runner to die, and starts a new one on the same
     * function, which resumes from the checkpoints the dead one left.
     */
    public synchronized LocalEventSourceMapping restartKilled(String stage) {
        LocalEventSourceMapping dead = running(stage);
        if (!dead.awaitKilled(Duration.ofSeconds(10))) {
            LOG.warn("stage {} checkpointed nothing for 10 s; its runner was killed idle", stage);
        }
        killed.add(dead);
        LocalEventSourceMapping fresh =
                mapping(configs.get(stage), function(stage)).start();
        mappings.put(stage, fresh);
        return fresh;
    }

    private LocalEventSourceMapping running(String stage) {
        LocalEventSourceMapping mapping = mappings.get(stage);
        if (mapping == null) {
            throw new IllegalStateException("stage " + stage + " is not running");
        }
        return mapping;
    }

    /** Every mapping this pipeline ran: the running ones and those killed or stopped before them. */
    public synchronized java.util.List<LocalEventSourceMapping> allMappings() {
        java.util.List<LocalEventSourceMapping> all = new java.util.ArrayList<>(killed);
        all.addAll(mappings.values());
        return all;
    }

    /** A new event-source mapping for a stage, not started (tests restart mappings with it). */
    public LocalEventSourceMapping mapping(MappingConfig config, LocalFunction function) {
        // the event-source mapping reads the stream and sends to its on-failure destination with the
        // function's execution role, as Lambda does
        Optional<AccessModel.Principal> role =
                accessModel == null ? Optional.empty() : accessModel.functionRole(config.functionName());
        return new LocalEventSourceMapping(
                config,
                function,
                role.map(r -> aws.kinesis(LocalIam.credentials(r))).orElse(aws.kinesis()),
                role.map(r -> aws.sqs(LocalIam.credentials(r))).orElse(aws.sqs()),
                new CheckpointStore(aws.dynamoDb(), resources.checkpointTable()),
                aws.region().id(),
                aws.accountId());
    }

    /** The stage's function, loaded once by the template's handler class name. */
    public synchronized LocalFunction function(String stage) {
        return functions.computeIfAbsent(stage, s -> {
            FunctionSpec spec = resources.functions().get(s);
            if (spec == null) {
                throw new IllegalArgumentException(resources.stackName() + " has no Lambda function for stage '" + s
                        + "' (functions: " + resources.functions().keySet() + ")");
            }
            iam.ifPresent(i -> stagePrincipal(s)
                    .ifPresent(role -> accessModel
                            .functionLogGroup(spec.functionName())
                            .ifPresent(group -> i.checkLogDelivery(role, group, spec.functionName()))));
            return LocalFunction.load(spec.functionName(), spec.handler(), functionEnvironment(s), spec.timeout());
        });
    }

    /**
     * The environment a stage's compute sees locally: the stack's AWS variables (endpoints, region,
     * credentials), the template's environment of the stage's function — or, for a {@code consumer:
     * kcl} stage, of its KCL service's worker container — resolved to local names, and the local
     * extras (secrets folder, metrics file, the repository's definitions and schemas).
     */
    public Map<String, String> functionEnvironment(String stage) {
        Map<String, String> env = new LinkedHashMap<>(aws.lambdaEnvironment());
        env.putAll(resources.functionEnvironment(stage));
        if (repository != null) {
            env.put(
                    EnvironmentNames.PIPELINES_DIR,
                    repository.resolve("pipelines").toString());
            env.put(EnvironmentNames.SCHEMAS_DIR, repository.resolve("schemas").toString());
        }
        if (secretsFront != null) {
            env.put("AWS_ENDPOINT_URL_SECRETSMANAGER", secretsFront.endpoint().toString());
        }
        env.put(EnvironmentNames.METRICS_FILE, metricsFile().toString());
        env.putAll(extraEnvironment);
        // the stage acts as its role: its function's execution role, or its KCL task role
        stagePrincipal(stage).ifPresent(role -> {
            env.put("AWS_ACCESS_KEY_ID", role.accessKeyId());
            env.put("AWS_SECRET_ACCESS_KEY", role.secretAccessKey());
        });
        return env;
    }

    /** The local secret store's folder (one file per secret ARN), which the stages read through Secrets Manager's API. */
    public Path secretsFolder() {
        return secrets;
    }

    /**
     * Where the functions' metrics (Embedded Metric Format lines, as Lambda would log them) are
     * appended: {@code localstack/.run/metrics/<pipeline>.jsonl} next to the logs, unless {@link
     * #withEnvironment} names another file.
     */
    public Path metricsFile() {
        String chosen = extraEnvironment.get(EnvironmentNames.METRICS_FILE);
        if (chosen != null) {
            return Path.of(chosen);
        }
        try {
            java.nio.file.Files.createDirectories(metrics.getParent());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("cannot create " + metrics.getParent(), e);
        }
        return metrics;
    }

    /** The local name of a stage's function ({@code <pipeline>-<stage>}). */
    public String functionName(String stage) {
        FunctionSpec spec = resources.functions().get(stage);
        return spec != null ? spec.functionName() : resources.definition().pipeline() + "-" + stage;
    }

    public PipelineResources resources() {
        return resources;
    }

    public Map<String, LocalEventSourceMapping> mappings() {
        return mappings;
    }

    /** Records acknowledged (and checkpointed) by every mapping of this pipeline, killed ones included. */
    public long acknowledged() {
        return allMappings().stream()
                .mapToLong(LocalEventSourceMapping::acknowledged)
                .sum();
    }

    /**
     * Waits until the mappings have acknowledged {@code expected} records, telling {@code progress}
     * the count as it grows.
     *
     * @throws IllegalStateException if a mapping fails, or nothing is acknowledged for {@code stall}
     */
    public void awaitAcknowledged(long expected, Duration stall, java.util.function.LongConsumer progress) {
        long last = -1;
        long lastChange = System.nanoTime();
        while (acknowledged() < expected) {
            for (LocalEventSourceMapping mapping : mappings.values()) {
                mapping.failure().ifPresent(e -> {
                    throw new IllegalStateException("the event-source mapping failed: " + e.getMessage(), e);
                });
            }
            long now = acknowledged();
            if (now != last) {
                last = now;
                lastChange = System.nanoTime();
                progress.accept(now);
            } else if (System.nanoTime() - lastChange > stall.toNanos()) {
                throw new IllegalStateException("no record acknowledged for " + stall.toSeconds() + " s; " + now
                        + " of " + expected + " done (logs: localstack/.run/logs)");
            }
            java.util.concurrent.locks.LockSupport.parkNanos(
                    Duration.ofMillis(100).toNanos());
        }
        progress.accept(acknowledged());
    }

    /**
     * Waits until a stage's checkpoints reach, in every shard, the given last sequence numbers: the
     * stage is then quiet whatever else (duplicates of ambiguous puts) the stream held before them.
     *
     * @param lastSequenceByShard for each shard, the last sequence number the stage must get past
     * @throws IllegalStateException if a mapping fails, or no shard advances for {@code stall}
     */
    public void awaitCheckpointed(String stage, Map<String, String> lastSequenceByShard, Duration stall) {
        long lastProgress = System.nanoTime();
        long lastAcknowledged = -1;
        while (true) {
            LocalEventSourceMapping mapping = running(stage);
            mapping.failure().ifPresent(e -> {
                throw new IllegalStateException("the event-source mapping failed: " + e.getMessage(), e);
            });
            boolean done = lastSequenceByShard.entrySet().stream()
                    .allMatch(e -> mapping.checkpointedPast(e.getKey(), e.getValue()));
            if (done) {
                return;
            }
            long now = acknowledged();
            if (now != lastAcknowledged) {
                lastAcknowledged = now;
                lastProgress = System.nanoTime();
            } else if (System.nanoTime() - lastProgress > stall.toNanos()) {
                throw new IllegalStateException("stage " + stage + " checkpointed nothing for " + stall.toSeconds()
                        + " s short of " + lastSequenceByShard);
            }
            java.util.concurrent.locks.LockSupport.parkNanos(
                    Duration.ofMillis(100).toNanos());
        }
    }

    /** Stops the mappings and the KCL workers (gracefully); the resources stay. */
    @Override
    public void close() {
        kclWorkers.values().forEach(LocalKclWorkers::close);
        mappings.values().forEach(LocalEventSourceMapping::close);
        killed.addAll(mappings.values());
        mappings.clear();
        if (secretsFront != null) {
            secretsFront.close();
        }
    }
}
