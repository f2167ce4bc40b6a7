package dev.sluice.kcl.worker;

import dev.sluice.aws.AwsClients;
import dev.sluice.aws.StageRuntime;
import dev.sluice.aws.metrics.EmfMetrics;
import dev.sluice.aws.priming.StagePriming;
import dev.sluice.core.definition.StageDefinition;
import dev.sluice.kcl.config.KclSettings;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.net.InetAddress;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.awscore.client.builder.AwsAsyncClientBuilder;
import software.amazon.awssdk.awscore.client.builder.AwsClientBuilder;
import software.amazon.awssdk.http.Protocol;
import software.amazon.awssdk.http.ProtocolNegotiation;
import software.amazon.awssdk.http.SdkHttpConfigurationOption;
import software.amazon.awssdk.http.async.SdkAsyncHttpClient;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.services.cloudwatch.CloudWatchAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.kinesis.KinesisAsyncClient;
import software.amazon.awssdk.services.kinesis.KinesisAsyncClientBuilder;
import software.amazon.awssdk.utils.AttributeMap;
import software.amazon.kinesis.common.ConfigsBuilder;
import software.amazon.kinesis.common.InitialPositionInStream;
import software.amazon.kinesis.common.InitialPositionInStreamExtended;
import software.amazon.kinesis.common.StreamIdentifier;
import software.amazon.kinesis.coordinator.Scheduler;
import software.amazon.kinesis.coordinator.WorkerStateChangeListener;
import software.amazon.kinesis.leases.Lease;
import software.amazon.kinesis.metrics.MetricsLevel;
import software.amazon.kinesis.processor.SingleStreamTracker;
import software.amazon.kinesis.retrieval.RetrievalSpecificConfig;
import software.amazon.kinesis.retrieval.fanout.FanOutConfig;
import software.amazon.kinesis.retrieval.polling.PollingConfig;

/**
 * The KCL worker of one {@code consumer: kcl} stage: wires the stage from the environment exactly as
 * the Lambda handler does ({@link StageRuntime#fromEnvironment}), builds a KCL {@link Scheduler} on
 * the provisioned lease table and runs it on its own thread. On shutdown (SIGTERM) it asks KCL for a
 * graceful shutdown — every processor gets {@code shutdownRequested} and checkpoints, the leases are
 * released for the other workers — and waits up to {@code sluice.kcl.shutdown-timeout}.
 *
 * <p>What KCL calls with the task role (polling retrieval, the lease table and its GSI, {@code
 * DescribeTable} of KCL's legacy {@code <application>-CoordinatorState} and {@code -WorkerMetricStats}
 * tables, metrics in the application's namespace) is declared in sluice-aws's {@link
 * dev.sluice.aws.access.KclAccess}, which infra-cdk grants exactly; change it with this class (for
 * example when enabling {@code sluice.kcl.retrieval=fan-out}, which needs the consumer's actions).
 */
@ApplicationScoped
public class KclWorker {

    private static final Logger LOG = LoggerFactory.getLogger(KclWorker.class);

    @Inject
    KclSettings settings;

    private final ShardRegistry registry = new ShardRegistry();
    private final AtomicReference<WorkerStateChangeListener.WorkerState> state =
            new AtomicReference<>(WorkerStateChangeListener.WorkerState.CREATED);
    private volatile boolean stopping;
    private volatile Scheduler scheduler;
    private volatile Thread thread;
    private volatile Throwable failure;
    private String workerId;
    private String stageName;

    void onStart(@Observes StartupEvent event) {
        start(System.getenv());
        settings.parentPid().ifPresent(KclWorker::exitWithParent);
    }

    /** Exits (through the graceful shutdown) once the launcher with this pid is no longer the parent. */
    private static void exitWithParent(long parentPid) {
        Thread watchdog = new Thread(
                () -> {
                    while (ProcessHandle.current()
                                    .parent()
                                    .map(ProcessHandle::pid)
                                    .orElse(-1L)
                            == parentPid) {
                        java.util.concurrent.locks.LockSupport.parkNanos(
                                Duration.ofMillis(500).toNanos());
                    }
                    LOG.warn("launcher {} is gone; shutting down", parentPid);
                    System.exit(0);
                },
                "parent-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
    }

    void onStop(@Observes ShutdownEvent event) {
        stop();
    }

    /** Builds the scheduler for the stage named in {@code env} and starts it. */
    public synchronized void start(Map<String, String> env) {
        StageRuntime runtime = StageRuntime.fromEnvironment(env);
        StageDefinition stage = runtime.pipeline().stage(runtime.stageName());
        stageName = runtime.pipeline().pipeline() + "/" + runtime.stageName();
        workerId = settings.workerId().orElseGet(KclWorker::defaultWorkerId);
        EmfMetrics metrics = EmfMetrics.fromEnvironment(env, runtime.pipeline().pipeline(), runtime.stageName());
        AwsClients clients = new AwsClients(env);
        prime(runtime, env);

        boolean fanOut = settings.retrieval() == KclSettings.Retrieval.FAN_OUT;
        // HTTP/2 (ALPN over TLS) for enhanced fan-out, as SubscribeToShard needs in AWS; a plain-HTTP
        // endpoint (a local one) speaks HTTP/1.1, over which SubscribeToShard's event stream works too
        boolean tls = settings.kinesisEndpoint()
                .map(endpoint -> "https".equalsIgnoreCase(endpoint.getScheme()))
                .orElse(true);
        SdkAsyncHttpClient http = http(fanOut && tls);
        KinesisAsyncClientBuilder kinesisBuilder = configure(KinesisAsyncClient.builder(), clients, "KINESIS", http);
        settings.kinesisEndpoint().ifPresent(kinesisBuilder::endpointOverride);
        KinesisAsyncClient kinesis = kinesisBuilder.build();
        DynamoDbAsyncClient dynamoDb = configure(DynamoDbAsyncClient.builder(), clients, "DYNAMODB", http(false))
                .build();
        CloudWatchAsyncClient cloudWatch = configure(
                        CloudWatchAsyncClient.builder(), clients, "CLOUDWATCH", http(false))
                .build();

        String stream = settings.stream();
        StageRecordProcessor.BatchListener listener = (shardId, first, last, result, behind) ->
                metrics.kclBatch(shardId, first, last, result, workerId, behind, registry.processing());
        ConfigsBuilder configs = new ConfigsBuilder(
                        new SingleStreamTracker(StreamIdentifier.singleStreamInstance(stream), initialPosition(stage)),
                        settings.application(),
                        kinesis,
                        dynamoDb,
                        cloudWatch,
                        workerId,
                        () -> new StageRecordProcessor(stream, runtime.processor(), registry, listener, () -> stopping))
                .tableName(settings.leaseTable());

        long failover = settings.failoverTime().toMillis();
        var leases = configs.leaseManagementConfig()
                .failoverTimeMillis(failover)
                .leaseAssignmentStrategy(settings.leaseAssignment())
                .dynamoDbLockBasedLeaderLeaseDurationInMillis(
                        settings.leaderLeaseDuration().toMillis())
                .dynamoDbLockBasedLeaderHeartbeatPeriodInMillis(
                        settings.leaderHeartbeat().toMillis())
                .shardSyncIntervalMillis(settings.shardSyncInterval().toMillis())
                .leasesRecoveryAuditorExecutionFrequencyMillis(
                        settings.shardSyncInterval().toMillis());
        leases.workerUtilizationAwareAssignmentConfig()
                .workerMetricsReporterFreqInMillis(
                        settings.workerMetricsInterval().toMillis());
        settings.maxLeasesPerWorker().ifPresent(leases::maxLeasesForWorker);
        settings.leaseAssignmentInterval().ifPresent(i -> leases.leaseAssignmentIntervalMillis(i.toMillis()));

        RetrievalSpecificConfig retrieval;
        if (fanOut) {
            retrieval = new FanOutConfig(kinesis).streamName(stream).applicationName(settings.application());
        } else {
            retrieval = new PollingConfig(stream, kinesis)
                    .idleTimeBetweenReadsInMillis(
                            settings.idleTimeBetweenReads().toMillis())
                    .maxRecords(settings.maxRecords()
                            .orElse(Math.min(10_000, stage.batching().batchSize())));
        }

        Scheduler built = new Scheduler(
                configs.checkpointConfig(),
                configs.coordinatorConfig()
                        .parentShardPollIntervalMillis(
                                settings.parentShardPollInterval().toMillis())
                        .shardConsumerDispatchPollIntervalMillis(
                                settings.dispatchPollInterval().toMillis())
                        .workerStateChangeListener(new Listener()),
                leases,
                configs.lifecycleConfig(),
                configs.metricsConfig().metricsLevel(MetricsLevel.fromName(settings.metricsLevel())),
                configs.processorConfig(),
                configs.retrievalConfig().retrievalSpecificConfig(retrieval));
        scheduler = built;
        Thread t = new Thread(
                () -> {
                    try {
                        built.run();
                    } catch (Throwable e) {
                        failure = e;
                        LOG.error("KCL scheduler failed", e);
                    }
                },
                "kcl-scheduler");
        t.setDaemon(true);
        thread = t;
        t.start();
        LOG.info(
                "KCL worker {} started: stage={} application={} stream={} leaseTable={} retrieval={} failover={} ms",
                workerId,
                stageName,
                settings.application(),
                stream,
                settings.leaseTable(),
                settings.retrieval(),
                failover);
    }

    /**
     * Primes the stage before the scheduler starts ({@link StagePriming}: a synthetic batch through
     * the chain into sinks that keep nothing, one request of each kind through the worker's HTTP client
     * implementation to a loopback server in this JVM, none to AWS). A worker gets leases only once its scheduler runs, so a worker added to a running cluster
     * takes over a shard with its classes loaded and its code compiled: the moved shard's first batch
     * is not the JVM's cold one. A priming failure is logged and the worker starts anyway.
     */
    private void prime(StageRuntime runtime, Map<String, String> env) {
        long started = System.nanoTime();
        try {
            StagePriming.Primed primed =
                    new StagePriming(runtime.pipeline(), runtime.stageName(), env, new SecureRandom()).prime();
            LOG.info(
                    "primed stage {} in {} ms before taking leases: {} synthetic records ({} accepted), {} SDK"
                            + " requests sent to a loopback server and answered",
                    runtime.pipeline().pipeline() + "/" + runtime.stageName(),
                    (System.nanoTime() - started) / 1_000_000,
                    primed.records(),
                    primed.accepted(),
                    primed.sdkRequests());
        } catch (RuntimeException e) {
            LOG.warn("priming stage {} failed; starting cold", runtime.stageName(), e);
        }
    }

    /** Graceful shutdown: final checkpoints, leases handed over, then the scheduler's own shutdown. */
    public synchronized void stop() {
        Scheduler s = scheduler;
        if (s == null || stopping) {
            return;
        }
        stopping = true;
        Duration timeout = settings.shutdownTimeout();
        LOG.info("KCL worker {} shutting down gracefully (up to {} s)", workerId, timeout.toSeconds());
        try {
            boolean clean = s.startGracefulShutdown().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            LOG.info("KCL worker {} graceful shutdown {}", workerId, clean ? "complete" : "incomplete");
        } catch (Exception e) {
            LOG.warn("KCL worker {} graceful shutdown did not finish: {}", workerId, e.toString());
            s.shutdown();
        }
    }

    /** Whether the scheduler finished initialising and runs its loop. */
    public boolean initialised() {
        return state.get() == WorkerStateChangeListener.WorkerState.STARTED && failure == null;
    }

    /** Whether the scheduler thread is alive (or shutting down on purpose). */
    public boolean alive() {
        Thread t = thread;
        return failure == null && (stopping || (t != null && t.isAlive()));
    }

    public WorkerStateChangeListener.WorkerState state() {
        return state.get();
    }

    public String workerId() {
        return workerId;
    }

    public String stageName() {
        return stageName;
    }

    public ShardRegistry registry() {
        return registry;
    }

    /** The leases this worker holds right now, from KCL's lease coordinator. */
    public Collection<Lease> leases() {
        Scheduler s = scheduler;
        if (s == null || s.leaseCoordinator() == null) {
            return List.of();
        }
        return new ArrayList<>(s.leaseCoordinator().getAssignments());
    }

    private static InitialPositionInStreamExtended initialPosition(StageDefinition stage) {
        return switch (stage.batching().startingPosition()) {
            case LATEST -> InitialPositionInStreamExtended.newInitialPosition(InitialPositionInStream.LATEST);
            case AT_TIMESTAMP ->
                InitialPositionInStreamExtended.newInitialPositionAtTimestamp(
                        java.util.Date.from(stage.batching().startingInstant()));
            default -> InitialPositionInStreamExtended.newInitialPosition(InitialPositionInStream.TRIM_HORIZON);
        };
    }

    private SdkAsyncHttpClient http(boolean http2) {
        NettyNioAsyncHttpClient.Builder builder =
                NettyNioAsyncHttpClient.builder().maxConcurrency(Integer.MAX_VALUE);
        if (http2) {
            builder.protocol(Protocol.HTTP2).protocolNegotiation(ProtocolNegotiation.ALPN);
        }
        if (settings.trustAllCertificates()) {
            return builder.buildWithDefaults(AttributeMap.builder()
                    .put(SdkHttpConfigurationOption.TRUST_ALL_CERTIFICATES, true)
                    .build());
        }
        return builder.build();
    }

    private static <B extends AwsClientBuilder<B, ?> & AwsAsyncClientBuilder<B, ?>> B configure(
            B builder, AwsClients clients, String service, SdkAsyncHttpClient http) {
        builder.region(clients.region()).credentialsProvider(clients.credentialsProvider());
        builder.httpClient(http);
        clients.endpoint(service).ifPresent(builder::endpointOverride);
        return builder;
    }

    private static String defaultWorkerId() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            host = "worker";
        }
        return host + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private final class Listener implements WorkerStateChangeListener {
        @Override
        public void onWorkerStateChange(WorkerState newState) {
            state.set(newState);
            LOG.info("KCL worker {} state {}", workerId, newState);
        }

        @Override
        public void onAllInitializationAttemptsFailed(Throwable e) {
            failure = e;
            LOG.error("KCL worker {} could not initialise", workerId, e);
        }
    }
}
