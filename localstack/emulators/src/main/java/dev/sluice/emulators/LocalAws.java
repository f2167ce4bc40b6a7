package dev.sluice.emulators;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.waiters.WaiterOverrideConfiguration;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.retries.api.BackoffStrategy;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.waiters.DynamoDbWaiter;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.waiters.KinesisWaiter;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * AWS on this machine without Docker: Kinesis (kinesis-mock), DynamoDB (dynalite), S3 (s3proxy)
 * and SQS (ElasticMQ) on free loopback ports, with ready SDK v2 clients.
 *
 * <pre>{@code
 * try (LocalAws aws = LocalAws.start(LocalAwsOptions.defaults())) {
 *     aws.kinesis().createStream(r -> r.streamName("orders").shardCount(1));
 * }
 * }</pre>
 *
 * <p>kinesis-mock and dynalite run as Node.js child processes under the watchdog
 * {@code localstack/bin/with-parent.js}, which ends them within about a second when this JVM dies,
 * even by SIGKILL. Their output goes to log files under {@link LocalAwsOptions#logDirectory()}.
 * s3proxy and ElasticMQ run inside this JVM. {@link #close()} stops everything; a shutdown hook does
 * the same if the JVM exits first.
 *
 * <p>All requests are signed with the fixed credentials {@value #ACCESS_KEY_ID} / {@value
 * #SECRET_ACCESS_KEY}; ARNs name the account {@value #ACCOUNT_ID}. dynalite does not separate
 * tables by region or account.
 */
public final class LocalAws implements AutoCloseable {

    /** The access key id every emulator accepts. */
    public static final String ACCESS_KEY_ID = "test";

    /** The secret access key every emulator accepts. */
    public static final String SECRET_ACCESS_KEY = "test";

    /**
     * The account in the ARNs of kinesis-mock and ElasticMQ. kinesis-mock takes the account from a
     * 12-digit access key id and falls back to its default account, set to this, for any other key.
     */
    public static final String ACCOUNT_ID = "000000000000";

    private static final Logger LOG = LoggerFactory.getLogger(LocalAws.class);
    private static final AtomicInteger RUNS = new AtomicInteger();
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration POLL_INTERVAL = Duration.ofMillis(25);
    private static final String LOOPBACK = "127.0.0.1";
    private static final String EMULATOR_DURATION = "100ms";
    private static final Pattern LOG_NAME = Pattern.compile("(?:kinesis-mock|dynalite)-([0-9]+)-[0-9]+\\.log");
    private static final String TERM_GRACE_ENV = "WITH_PARENT_TERM_GRACE_MS";
    /** kinesis-mock's smallest heap limit, in MB: Node's own default on a machine of a few GB. */
    static final long KINESIS_MIN_HEAP_MB = 4096;

    private static final Duration WAITER_DELAY = Duration.ofMillis(50);
    private static final Duration WAITER_TIMEOUT = Duration.ofSeconds(60);
    private static final List<String> KINESIS_DURATIONS = List.of(
            "CREATE_STREAM_DURATION",
            "DELETE_STREAM_DURATION",
            "REGISTER_STREAM_CONSUMER_DURATION",
            "DEREGISTER_STREAM_CONSUMER_DURATION",
            "START_STREAM_ENCRYPTION_DURATION",
            "STOP_STREAM_ENCRYPTION_DURATION",
            "MERGE_SHARDS_DURATION",
            "SPLIT_SHARD_DURATION",
            "UPDATE_SHARD_COUNT_DURATION",
            "UPDATE_STREAM_MODE_DURATION");

    private final LocalAwsOptions options;
    private final Region region;
    private final AwsCredentialsProvider credentials;
    private final Path localstackDirectory;
    private final Path logDirectory;
    private final String runId;
    private final Thread shutdownHook;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Map<Emulator, Long> startupMillis = Collections.synchronizedMap(new EnumMap<>(Emulator.class));
    private final List<AutoCloseable> clients = Collections.synchronizedList(new ArrayList<>());

    private volatile NodeEmulator kinesisMock;
    private volatile NodeEmulator dynalite;
    private volatile EmbeddedS3 s3Proxy;
    private volatile EmbeddedSqs elasticMq;
    private volatile int kinesisTlsPort;
    /** Where the Node emulators' loopback ports come from. */
    private final IntSupplier ports;

    private volatile KinesisClient kinesis;
    private volatile DynamoDbClient dynamoDb;
    private volatile S3Client s3;
    private volatile SqsClient sqs;
    private volatile long stackStartupMillis;
    /** Verifies every request's signature, then authorizes it (see docs/local-iam.md). */
    private final dev.sluice.emulators.iam.AccessControl accessControl =
            new dev.sluice.emulators.iam.AccessControl(ACCESS_KEY_ID, SECRET_ACCESS_KEY, java.time.Clock.systemUTC());

    private final Map<Emulator, dev.sluice.emulators.iam.AccessGate> gates =
            Collections.synchronizedMap(new EnumMap<>(Emulator.class));

    /** Set when the stack runs elsewhere ({@link #attach}): its one endpoint, and what to close with it. */
    private volatile External external;

    /**
     * AWS that runs elsewhere (LocalStack in a container): one endpoint for every service, its region
     * and credentials.
     *
     * @param endpoint the endpoint of every service ({@code http://host:port})
     * @param region the region its resources and ARNs are in
     * @param accessKeyId the access key id the clients sign with
     * @param secretAccessKey the secret key they sign with
     */
    public record Endpoints(URI endpoint, String region, String accessKeyId, String secretAccessKey) {
        public Endpoints {
            java.util.Objects.requireNonNull(endpoint, "endpoint");
            java.util.Objects.requireNonNull(region, "region");
            java.util.Objects.requireNonNull(accessKeyId, "accessKeyId");
            java.util.Objects.requireNonNull(secretAccessKey, "secretAccessKey");
        }
    }

    private record External(Endpoints endpoints, AutoCloseable owner) {}

    private LocalAws(LocalAwsOptions options, Path localstackDirectory, Path logDirectory, IntSupplier ports) {
        this(options, localstackDirectory, logDirectory, options.region(), ACCESS_KEY_ID, SECRET_ACCESS_KEY, ports);
    }

    private LocalAws(
            LocalAwsOptions options,
            Path localstackDirectory,
            Path logDirectory,
            String region,
            String accessKeyId,
            String secretAccessKey,
            IntSupplier ports) {
        this.options = options;
        this.ports = ports;
        this.region = Region.of(region);
        this.credentials = StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKeyId, secretAccessKey));
        this.localstackDirectory = localstackDirectory;
        this.logDirectory = logDirectory;
        this.runId = ProcessHandle.current().pid() + "-" + RUNS.incrementAndGet();
        this.shutdownHook = new Thread(this::closeFromShutdownHook, "local-aws-shutdown-" + runId);
    }

    /**
     * Starts the four emulators and waits until each answers an API call.
     *
     * @throws LocalAwsException if the Node emulators are not installed, or an emulator exits early
     *     or does not answer within {@link LocalAwsOptions#startTimeout()}; the message names the
     *     emulator and its log file
     */
    public static LocalAws start(LocalAwsOptions options) {
        return start(options, FreePorts::pick);
    }

    /**
     * {@link #start(LocalAwsOptions)} with the loopback ports the Node emulators are given drawn from
     * {@code ports} (tests hand out a taken one first).
     */
    static LocalAws start(LocalAwsOptions options, IntSupplier ports) {
        long started = System.nanoTime();
        Path localstack = LocalstackDirectory.requireInstalled(
                options.localstackDirectory().orElseGet(LocalstackDirectory::locate));
        Path logs = options.logDirectory()
                .orElse(localstack.resolve(".run").resolve("logs"))
                .toAbsolutePath()
                .normalize();
        try {
            Files.createDirectories(logs);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the log directory " + logs, e);
        }
        pruneOldLogs(logs);
        LocalAws aws = new LocalAws(options, localstack, logs, ports);
        Runtime.getRuntime().addShutdownHook(aws.shutdownHook);
        try {
            aws.startAll();
        } catch (RuntimeException | Error e) {
            aws.close();
            throw e;
        }
        aws.stackStartupMillis = millisSince(started);
        LOG.info("Local AWS up in {} ms: {}", aws.stackStartupMillis, aws.describe());
        return aws;
    }

    /**
     * A stack that runs elsewhere — LocalStack in a container ({@code
     * dev.sluice.emulators.LocalStackAws}) — behind this same interface: every endpoint is
     * {@code endpoints.endpoint()}, the clients sign with its credentials in its region, nothing is
     * started here and IAM is not enforced by access gates (none stand before it). {@link #close()}
     * closes the clients, then {@code owner} (the container).
     */
    public static LocalAws attach(Endpoints endpoints, AutoCloseable owner, LocalAwsOptions options) {
        LocalAws aws = new LocalAws(
                options,
                options.localstackDirectory().orElse(Path.of(".")),
                options.logDirectory().orElse(Path.of(".")),
                endpoints.region(),
                endpoints.accessKeyId(),
                endpoints.secretAccessKey(),
                FreePorts::pick);
        aws.external = new External(endpoints, owner);
        URI endpoint = endpoints.endpoint();
        aws.kinesis = aws.track(aws.kinesisClient(endpoint));
        aws.dynamoDb = aws.track(aws.dynamoDbClient(endpoint));
        aws.s3 = aws.track(aws.s3Client(endpoint));
        aws.sqs = aws.track(aws.sqsClient(endpoint));
        Runtime.getRuntime().addShutdownHook(aws.shutdownHook);
        return aws;
    }

    /** The endpoint of a stack that runs elsewhere ({@link #attach}), or null. */
    private URI externalEndpoint() {
        External e = external;
        return e == null ? null : e.endpoints().endpoint();
    }

    /**
     * Spawns the Node emulators first (they take longest), then starts s3proxy and ElasticMQ on two
     * threads while this one builds the Node emulators' clients and polls them.
     */
    private void startAll() {
        if (options.accessGates()) {
            bindGates(List.of(Emulator.values()), accessControl);
        }
        if (!options.accessGates() && options.limits()) {
            // IAM off, limits on: only Kinesis and SQS sit behind gates, which let every key through
            dev.sluice.emulators.iam.AccessControl allowAll = new dev.sluice.emulators.iam.AccessControl(ACCESS_KEY_ID);
            allowAll.authorizer((key, call) -> dev.sluice.emulators.iam.Decision.ALLOWED);
            bindGates(List.of(Emulator.KINESIS, Emulator.SQS), allowAll);
        }
        startEmulators();
        if (!options.accessGates() && options.limits()) {
            gates.get(Emulator.KINESIS).backendPort(kinesisMock.port());
            gates.get(Emulator.SQS).backendPort(elasticMq.port());
            enforceLimits();
        }
        if (options.accessGates()) {
            gates.get(Emulator.KINESIS).backendPort(kinesisMock.port());
            gates.get(Emulator.DYNAMODB).backendPort(dynalite.port());
            gates.get(Emulator.S3).backendPort(s3Proxy.port());
            gates.get(Emulator.SQS).backendPort(elasticMq.port());
            if (options.limits()) {
                enforceLimits();
            }
            // the stack's own clients (the local administrator) go through the gates like every other
            kinesis = track(kinesisClient(kinesisEndpoint()));
            dynamoDb = track(dynamoDbClient(dynamoDbEndpoint()));
            s3 = track(s3Client(s3Endpoint()));
            sqs = track(sqsClient(sqsEndpoint()));
        }
    }

    private void bindGates(List<Emulator> emulators, dev.sluice.emulators.iam.AccessControl control) {
        for (Emulator emulator : emulators) {
            gates.put(
                    emulator,
                    dev.sluice.emulators.iam.AccessGate.bind(
                            dev.sluice.emulators.iam.AwsService.valueOf(emulator.name()),
                            options.region(),
                            ACCOUNT_ID,
                            control));
        }
    }

    /**
     * The Kinesis gate enforces Kinesis's per-shard quotas on the wall clock and its request caps, the
     * SQS gate each queue's message size limit.
     */
    private void enforceLimits() {
        dev.sluice.emulators.iam.AccessGate kinesisGate = gates.get(Emulator.KINESIS);
        kinesisGate.limits(new dev.sluice.emulators.limits.KinesisLimits(
                java.time.InstantSource.system(), stream -> kinesisGate.listShards(stream, ACCESS_KEY_ID), ACCOUNT_ID));
        gates.get(Emulator.SQS).sqsLimits(new dev.sluice.emulators.limits.SqsLimits());
    }

    private <T extends AutoCloseable> T track(T client) {
        clients.add(client);
        return client;
    }

    private void startEmulators() {
        String node = options.nodeExecutable();
        PendingNode kinesisPending = new PendingNode(this::launchKinesisMock, emulator -> {
            KinesisClient client = kinesisClient(endpoint(emulator.port()));
            return new Probe(
                    client,
                    () -> client.listStreams(
                            r -> r.limit(1).overrideConfiguration(o -> o.apiCallTimeout(PROBE_TIMEOUT))));
        });
        PendingNode dynamoPending = new PendingNode(() -> launchDynalite(node), emulator -> {
            DynamoDbClient client = dynamoDbClient(endpoint(emulator.port()));
            return new Probe(
                    client,
                    () -> client.listTables(
                            r -> r.limit(1).overrideConfiguration(o -> o.apiCallTimeout(PROBE_TIMEOUT))));
        });
        List<PendingNode> nodes = List.of(kinesisPending, dynamoPending);
        nodes.forEach(PendingNode::launch);

        ExecutorService executor = Executors.newFixedThreadPool(2, runnable -> {
            Thread thread = new Thread(runnable, "local-aws-start-" + runId);
            thread.setDaemon(true);
            return thread;
        });
        CompletableFuture<Void> embedded = CompletableFuture.allOf(
                CompletableFuture.runAsync(this::startS3, executor),
                CompletableFuture.runAsync(this::startSqs, executor));
        executor.shutdown();
        try {
            nodes.forEach(PendingNode::connect);
            awaitNodeEmulators(nodes);
            kinesis = (KinesisClient) kinesisPending.probe.client;
            dynamoDb = (DynamoDbClient) dynamoPending.probe.client;
        } catch (RuntimeException | Error e) {
            // let s3proxy and ElasticMQ finish starting, so that close() stops them
            embedded.handle((ignored, error) -> null).join();
            throw e;
        }
        awaitFuture(embedded);
    }

    private void awaitFuture(CompletableFuture<Void> future) {
        try {
            future.get(options.startTimeout().toMillis() + PROBE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | CompletionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw new LocalAwsException("embedded emulator failed: " + cause, cause);
        } catch (TimeoutException e) {
            throw new LocalAwsException("s3proxy or ElasticMQ did not start within " + options.startTimeout(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LocalAwsException("interrupted while starting s3proxy and ElasticMQ", e);
        }
    }

    // ---- Node emulators -------------------------------------------------------------------

    private void awaitNodeEmulators(List<PendingNode> nodes) {
        List<PendingNode> pending = new ArrayList<>(nodes);
        long deadline = System.nanoTime() + options.startTimeout().toNanos();
        while (true) {
            pending.removeIf(PendingNode::poll);
            if (pending.isEmpty()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                PendingNode late = pending.get(0);
                throw new LocalAwsException(late.current.emulator().displayName() + " did not answer within "
                        + options.startTimeout().toMillis() + " ms on port " + late.current.port() + "; see "
                        + late.current.logFile() + lastError(late.lastError) + tail(late.current));
            }
            pending.get(0).current.awaitExit(POLL_INTERVAL);
            if (Thread.currentThread().isInterrupted()) {
                throw new LocalAwsException("interrupted while starting the local AWS stack");
            }
        }
    }

    private NodeEmulator launchKinesisMock() {
        int plainPort = ports.getAsInt();
        int tlsPort = ports.getAsInt();
        while (tlsPort == plainPort) {
            tlsPort = ports.getAsInt();
        }
        return launchKinesisMock(plainPort, tlsPort);
    }

    private NodeEmulator launchKinesisMock(int plainPort, int tlsPort) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("KINESIS_MOCK_PLAIN_PORT", Integer.toString(plainPort));
        env.put("KINESIS_MOCK_TLS_PORT", Integer.toString(tlsPort));
        env.put(
                "KINESIS_MOCK_CERT_PATH",
                localstackDirectory.resolve(LocalstackDirectory.KINESIS_CERT).toString());
        env.put("AWS_REGION", options.region());
        env.put("AWS_ACCOUNT_ID", ACCOUNT_ID);
        env.put(TERM_GRACE_ENV, termGraceMillis(options.kinesisDataDirectory().isPresent()));
        env.put("NODE_OPTIONS", kinesisNodeOptions(System.getenv("NODE_OPTIONS"), physicalMemoryBytes()));
        env.put("SHARD_LIMIT", "1000");
        env.put("ON_DEMAND_STREAM_COUNT_LIMIT", "1000");
        KINESIS_DURATIONS.forEach(name -> env.put(name, EMULATOR_DURATION));
        options.kinesisDataDirectory()
                .ifPresentOrElse(
                        dir -> {
                            env.put("SHOULD_PERSIST_DATA", "true");
                            env.put("LOAD_DATA_IF_EXISTS", "true");
                            env.put("PERSIST_PATH", createDirectory(dir).toString());
                            env.put("PERSIST_INTERVAL", "1s");
                        },
                        () -> env.put("SHOULD_PERSIST_DATA", "false"));
        NodeEmulator emulator = NodeEmulator.launch(
                Emulator.KINESIS,
                options.nodeExecutable(),
                localstackDirectory,
                LocalstackDirectory.KINESIS_MAIN,
                List.of(),
                env,
                logFile(Emulator.KINESIS),
                plainPort);
        kinesisMock = emulator;
        kinesisTlsPort = tlsPort;
        return emulator;
    }

    private NodeEmulator launchDynalite(String node) {
        int port = ports.getAsInt();
        List<String> args = new ArrayList<>(List.of(
                "--port",
                Integer.toString(port),
                "--host",
                LOOPBACK,
                "--createTableMs",
                "50",
                "--deleteTableMs",
                "50",
                "--updateTableMs",
                "50"));
        options.dynamoDbDataDirectory().ifPresent(dir -> {
            args.add("--path");
            args.add(createDirectory(dir).toString());
        });
        NodeEmulator emulator = NodeEmulator.launch(
                Emulator.DYNAMODB,
                node,
                localstackDirectory,
                LocalstackDirectory.DYNALITE_CLI,
                args,
                Map.of(
                        TERM_GRACE_ENV,
                        termGraceMillis(options.dynamoDbDataDirectory().isPresent())),
                logFile(Emulator.DYNAMODB),
                port);
        dynalite = emulator;
        return emulator;
    }

    /**
     * kinesis-mock's {@code NODE_OPTIONS}: the caller's, plus a heap limit of half the machine's
     * memory (at least {@value #KINESIS_MIN_HEAP_MB} MB). kinesis-mock keeps every record in its
     * heap at about 25 times the data's size (40 MB put: 1.1 GB resident), so Node's default limit
     * (about 4.3 GB on a 24 GiB machine) ends a long load run at a few hundred MB of records.
     */
    static String kinesisNodeOptions(String inherited, long physicalMemoryBytes) {
        long heapMb = Math.max(KINESIS_MIN_HEAP_MB, physicalMemoryBytes / 2 / (1024 * 1024));
        String heap = "--max-old-space-size=" + heapMb;
        return inherited == null || inherited.isBlank() ? heap : inherited.strip() + " " + heap;
    }

    private static long physicalMemoryBytes() {
        java.lang.management.OperatingSystemMXBean os =
                java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        return os instanceof com.sun.management.OperatingSystemMXBean unix ? unix.getTotalMemorySize() : 0;
    }

    /**
     * How long the watchdog lets a Node emulator shut down after SIGTERM: at once when it keeps
     * nothing on disk, else a little less than the stop timeout after which it gets SIGKILL.
     */
    private String termGraceMillis(boolean persistent) {
        long millis = persistent ? Math.max(0, options.stopTimeout().toMillis() - 500) : 0;
        return Long.toString(millis);
    }

    /** A Node emulator on its way up: launched, then polled until its probe call succeeds. */
    /**
     * How often a Node emulator is relaunched on fresh ports when one it was given was taken
     * between {@link FreePorts#pick()} and its bind (other builds on the machine pick ports too).
     */
    private static final int PORT_RETRIES = 3;

    private final class PendingNode {
        private final Supplier<NodeEmulator> launcher;
        private final Function<NodeEmulator, Probe> prober;
        private NodeEmulator current;
        private Probe probe;
        private RuntimeException lastError;
        private int retries;

        PendingNode(Supplier<NodeEmulator> launcher, Function<NodeEmulator, Probe> prober) {
            this.launcher = launcher;
            this.prober = prober;
        }

        /** Spawns the process. */
        void launch() {
            current = launcher.get();
        }

        /** Builds the client that checks whether the emulator answers. */
        void connect() {
            probe = prober.apply(current);
            clients.add(probe.client);
        }

        /** Checks once; true when the emulator answered. */
        boolean poll() {
            if (current.isAlive() && current.portWasTaken()) {
                // kinesis-mock logs EADDRINUSE for a taken TLS port and keeps running, answering on
                // neither port; stop it so that it is retried below
                current.terminate();
                current.awaitStopOrKill(options.stopTimeout());
            }
            if (!current.isAlive()) {
                if (retries < PORT_RETRIES && current.portWasTaken()) {
                    retries++;
                    LOG.warn(
                            "{} found a port taken (attempt {} of {}); retrying on fresh ports",
                            current.emulator().displayName(),
                            retries,
                            PORT_RETRIES + 1);
                    closeQuietly(probe.client);
                    clients.remove(probe.client);
                    launch();
                    connect();
                    return false;
                }
                throw new LocalAwsException(current.emulator().displayName() + " exited with code "
                        + current.awaitExit(Duration.ZERO) + " during start-up; see " + current.logFile()
                        + tail(current));
            }
            if (!FreePorts.accepts(current.port(), 200)) {
                return false;
            }
            try {
                probe.call.run();
            } catch (SdkException e) {
                lastError = e;
                return false;
            }
            if (!current.isAlive()) {
                return false; // something else answered on its port; the next poll handles the exit
            }
            startupMillis.put(current.emulator(), millisSince(current.launchedNanos()));
            return true;
        }
    }

    private record Probe(AutoCloseable client, Runnable call) {}

    // ---- embedded emulators ---------------------------------------------------------------

    private void startS3() {
        long started = System.nanoTime();
        EmbeddedS3 server = EmbeddedS3.start(ACCESS_KEY_ID, SECRET_ACCESS_KEY, !options.accessGates());
        s3Proxy = server;
        if (closed.get()) {
            closeQuietly(server);
            throw new LocalAwsException("the stack was closed while s3proxy started");
        }
        S3Client client = s3Client(endpoint(server.port()));
        clients.add(client);
        awaitEmbedded(
                Emulator.S3,
                () -> client.listBuckets(r -> r.overrideConfiguration(o -> o.apiCallTimeout(PROBE_TIMEOUT))));
        s3 = client;
        startupMillis.put(Emulator.S3, millisSince(started));
    }

    private void startSqs() {
        long started = System.nanoTime();
        dev.sluice.emulators.iam.AccessGate sqsGate = gates.get(Emulator.SQS);
        EmbeddedSqs server = EmbeddedSqs.start(options.region(), ACCOUNT_ID, sqsGate == null ? -1 : sqsGate.port());
        elasticMq = server;
        if (closed.get()) {
            closeQuietly(server);
            throw new LocalAwsException("the stack was closed while ElasticMQ started");
        }
        SqsClient client = sqsClient(endpoint(server.port()));
        clients.add(client);
        awaitEmbedded(
                Emulator.SQS,
                () -> client.listQueues(r -> r.overrideConfiguration(o -> o.apiCallTimeout(PROBE_TIMEOUT))));
        sqs = client;
        startupMillis.put(Emulator.SQS, millisSince(started));
    }

    private void awaitEmbedded(Emulator emulator, Runnable call) {
        long deadline = System.nanoTime() + options.startTimeout().toNanos();
        while (true) {
            try {
                call.run();
                return;
            } catch (SdkException e) {
                if (System.nanoTime() > deadline || closed.get()) {
                    throw new LocalAwsException(
                            emulator.displayName() + " (embedded) did not answer within " + options.startTimeout(), e);
                }
            }
            sleep(POLL_INTERVAL);
        }
    }

    // ---- clients --------------------------------------------------------------------------

    private Apache5HttpClient.Builder httpClient() {
        return Apache5HttpClient.builder()
                .connectionTimeout(Duration.ofSeconds(2))
                .socketTimeout(Duration.ofSeconds(30));
    }

    private KinesisClient kinesisClient(URI endpoint) {
        return KinesisClient.builder()
                .region(region)
                .credentialsProvider(credentials)
                .endpointOverride(endpoint)
                .httpClientBuilder(httpClient())
                .build();
    }

    private DynamoDbClient dynamoDbClient(URI endpoint) {
        return DynamoDbClient.builder()
                .region(region)
                .credentialsProvider(credentials)
                .endpointOverride(endpoint)
                .httpClientBuilder(httpClient())
                .build();
    }

    private S3Client s3Client(URI endpoint) {
        return S3Client.builder()
                .region(region)
                .credentialsProvider(credentials)
                .endpointOverride(endpoint)
                .forcePathStyle(true)
                .httpClientBuilder(httpClient())
                .build();
    }

    private SqsClient sqsClient(URI endpoint) {
        return SqsClient.builder()
                .region(region)
                .credentialsProvider(credentials)
                .endpointOverride(endpoint)
                .httpClientBuilder(httpClient())
                .build();
    }

    // ---- accessors ------------------------------------------------------------------------

    /** The region of the clients and of the ARNs the emulators return. */
    public Region region() {
        return region;
    }

    /** The account in kinesis-mock's and ElasticMQ's ARNs: {@value #ACCOUNT_ID}. */
    public String accountId() {
        return ACCOUNT_ID;
    }

    /** Static credentials {@value #ACCESS_KEY_ID} / {@value #SECRET_ACCESS_KEY}. */
    public AwsCredentialsProvider credentialsProvider() {
        return credentials;
    }

    /**
     * kinesis-mock's plain HTTP endpoint, {@code http://127.0.0.1:<port>}: its access gate's when
     * IAM is enforced.
     */
    public URI kinesisEndpoint() {
        if (external != null) {
            return externalEndpoint();
        }
        return gatedEndpoint(Emulator.KINESIS, requireStarted(kinesisMock).port());
    }

    private URI gatedEndpoint(Emulator emulator, int port) {
        dev.sluice.emulators.iam.AccessGate gate = gates.get(emulator);
        return endpoint(gate == null ? port : gate.port());
    }

    /**
     * The Kinesis per-shard quotas the Kinesis gate enforces, if any: on with the access gates unless
     * {@link LocalAwsOptions#limits()} is off.
     */
    public java.util.Optional<dev.sluice.emulators.limits.KinesisLimits> kinesisLimits() {
        dev.sluice.emulators.iam.AccessGate gate = gates.get(Emulator.KINESIS);
        return java.util.Optional.ofNullable(gate == null ? null : gate.limits());
    }

    /**
     * Delays every request to the four services by a time the caller chooses per service and
     * operation, in nanoseconds (a latency model of AWS; null stops it), at the services' gates, so
     * every client pays it — this JVM's and the KCL worker JVMs' alike.
     *
     * @throws IllegalStateException if a service has no gate (IAM off): nothing could delay its calls
     */
    public void latency(java.util.function.ToLongBiFunction<dev.sluice.emulators.iam.AwsService, String> nanosPerCall) {
        synchronized (gates) {
            for (Emulator emulator : Emulator.values()) {
                if (!gates.containsKey(emulator)) {
                    throw new IllegalStateException("a latency model needs every service behind its gate; " + emulator
                            + " has none (IAM enforcement is off)");
                }
            }
            gates.values().forEach(gate -> gate.latency(nanosPerCall));
        }
    }

    /** Whether AWS's limits are enforced ({@link #kinesisLimits()}). */
    public boolean limitsEnforced() {
        return kinesisLimits().isPresent();
    }

    /** Whether every request passes an access gate that enforces IAM ({@link #accessControl()}). */
    public boolean iamEnforced() {
        return options.accessGates() && !gates.isEmpty();
    }

    /**
     * The stack's access control: the authorizer the gates ask (until a runtime installs one, only
     * this stack's own key {@value #ACCESS_KEY_ID}, the local administrator, is known) and the
     * denials counted.
     */
    public dev.sluice.emulators.iam.AccessControl accessControl() {
        return accessControl;
    }

    /**
     * kinesis-mock's HTTPS endpoint (HTTP/1.1 and HTTP/2, self-signed certificate), needed for
     * SubscribeToShard with the Netty client.
     */
    public URI kinesisTlsEndpoint() {
        if (external != null) {
            return externalEndpoint(); // one endpoint for everything
        }
        requireStarted(kinesisMock);
        return URI.create("https://" + LOOPBACK + ":" + kinesisTlsPort);
    }

    /** dynalite's endpoint, {@code http://127.0.0.1:<port>}. */
    public URI dynamoDbEndpoint() {
        if (external != null) {
            return externalEndpoint();
        }
        return gatedEndpoint(Emulator.DYNAMODB, requireStarted(dynalite).port());
    }

    /** s3proxy's endpoint, {@code http://127.0.0.1:<port>}; use path-style addressing. */
    public URI s3Endpoint() {
        if (external != null) {
            return externalEndpoint();
        }
        return gatedEndpoint(Emulator.S3, requireStarted(s3Proxy).port());
    }

    /** ElasticMQ's endpoint, {@code http://127.0.0.1:<port>}. */
    public URI sqsEndpoint() {
        if (external != null) {
            return externalEndpoint();
        }
        return gatedEndpoint(Emulator.SQS, requireStarted(elasticMq).port());
    }

    /** The endpoint of one emulator. */
    public URI endpoint(Emulator emulator) {
        return switch (emulator) {
            case KINESIS -> kinesisEndpoint();
            case DYNAMODB -> dynamoDbEndpoint();
            case S3 -> s3Endpoint();
            case SQS -> sqsEndpoint();
        };
    }

    /** A Kinesis client for kinesis-mock; closed by {@link #close()}. */
    public KinesisClient kinesis() {
        return requireStarted(kinesis);
    }

    /** A DynamoDB client for dynalite; closed by {@link #close()}. */
    public DynamoDbClient dynamoDb() {
        return requireStarted(dynamoDb);
    }

    /** An S3 client for s3proxy, with path-style addressing; closed by {@link #close()}. */
    public S3Client s3() {
        return requireStarted(s3);
    }

    /** An SQS client for ElasticMQ; closed by {@link #close()}. */
    public SqsClient sqs() {
        return requireStarted(sqs);
    }

    /**
     * A Kinesis waiter on {@link #kinesis()} that polls every 50 ms (the SDK's default waits 10 s
     * between polls) for up to a minute.
     */
    public KinesisWaiter kinesisWaiter() {
        return KinesisWaiter.builder()
                .client(kinesis())
                .overrideConfiguration(LocalAws::fastWaiter)
                .build();
    }

    /**
     * A DynamoDB waiter on {@link #dynamoDb()} that polls every 50 ms (the SDK's default waits 20 s
     * between polls) for up to a minute.
     */
    public DynamoDbWaiter dynamoDbWaiter() {
        return DynamoDbWaiter.builder()
                .client(dynamoDb())
                .overrideConfiguration(LocalAws::fastWaiter)
                .build();
    }

    private static void fastWaiter(WaiterOverrideConfiguration.Builder waiter) {
        waiter.backoffStrategyV2(BackoffStrategy.fixedDelay(WAITER_DELAY))
                .waitTimeout(WAITER_TIMEOUT)
                .maxAttempts((int) (WAITER_TIMEOUT.toMillis() / WAITER_DELAY.toMillis()));
    }

    /**
     * The environment a Lambda handler (or any AWS SDK) needs to use this stack: region, the
     * credentials and the service endpoints ({@code AWS_ENDPOINT_URL_<SERVICE>}). The endpoints use
     * an IP address, for which the S3 client picks path-style addressing by itself.
     */
    public Map<String, String> lambdaEnvironment() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("AWS_REGION", region.id());
        env.put("AWS_DEFAULT_REGION", region.id());
        env.put("AWS_ACCESS_KEY_ID", credentials.resolveCredentials().accessKeyId());
        env.put("AWS_SECRET_ACCESS_KEY", credentials.resolveCredentials().secretAccessKey());
        env.put("AWS_ENDPOINT_URL_KINESIS", kinesisEndpoint().toString());
        env.put("AWS_ENDPOINT_URL_DYNAMODB", dynamoDbEndpoint().toString());
        env.put("AWS_ENDPOINT_URL_S3", s3Endpoint().toString());
        env.put("AWS_ENDPOINT_URL_SQS", sqsEndpoint().toString());
        return Collections.unmodifiableMap(env);
    }

    /** The Node.js child processes (kinesis-mock, dynalite) that this stack started. */
    public List<ProcessHandle> childProcesses() {
        List<ProcessHandle> children = new ArrayList<>();
        for (NodeEmulator emulator : new NodeEmulator[] {kinesisMock, dynalite}) {
            if (emulator != null) {
                children.add(emulator.handle());
            }
        }
        return List.copyOf(children);
    }

    /** The localstack directory this stack runs its Node programs from ({@code node_modules}, {@code bin/}). */
    public Path localstackDirectory() {
        return localstackDirectory;
    }

    /** Where the stack's logs go. */
    public Path logDirectory() {
        return logDirectory;
    }

    /**
     * A Kinesis client of this stack signing with other credentials (a principal's); closed by
     * {@link #close()}.
     */
    public KinesisClient kinesis(AwsCredentialsProvider as) {
        return track(KinesisClient.builder()
                .region(region)
                .credentialsProvider(as)
                .endpointOverride(kinesisEndpoint())
                .httpClientBuilder(httpClient())
                .build());
    }

    /** A DynamoDB client signing with other credentials; closed by {@link #close()}. */
    public DynamoDbClient dynamoDb(AwsCredentialsProvider as) {
        return track(DynamoDbClient.builder()
                .region(region)
                .credentialsProvider(as)
                .endpointOverride(dynamoDbEndpoint())
                .httpClientBuilder(httpClient())
                .build());
    }

    /** An S3 client (path-style) signing with other credentials; closed by {@link #close()}. */
    public S3Client s3(AwsCredentialsProvider as) {
        return track(S3Client.builder()
                .region(region)
                .credentialsProvider(as)
                .endpointOverride(s3Endpoint())
                .forcePathStyle(true)
                .httpClientBuilder(httpClient())
                .build());
    }

    /** An SQS client signing with other credentials; closed by {@link #close()}. */
    public SqsClient sqs(AwsCredentialsProvider as) {
        return track(SqsClient.builder()
                .region(region)
                .credentialsProvider(as)
                .endpointOverride(sqsEndpoint())
                .httpClientBuilder(httpClient())
                .build());
    }

    /** The log file of a Node emulator (kinesis-mock or dynalite). */
    public Path logFile(Emulator emulator) {
        if (emulator != Emulator.KINESIS && emulator != Emulator.DYNAMODB) {
            throw new IllegalArgumentException(emulator.displayName() + " runs in this JVM and logs through SLF4J");
        }
        return logDirectory.resolve(emulator.displayName() + "-" + runId + ".log");
    }

    /**
     * How long each emulator took from launch until it answered its first API call, in milliseconds.
     * The emulators start in parallel.
     */
    public Map<Emulator, Long> startupMillis() {
        synchronized (startupMillis) {
            return Collections.unmodifiableMap(new EnumMap<>(startupMillis));
        }
    }

    /** How long {@link #start(LocalAwsOptions)} took, in milliseconds. */
    public long stackStartupMillis() {
        return stackStartupMillis;
    }

    /** The options this stack was started with. */
    public LocalAwsOptions options() {
        return options;
    }

    /** Whether {@link #close()} has been called. */
    public boolean isClosed() {
        return closed.get();
    }

    /**
     * Waits until kinesis-mock has begun and completed a write of its data file ({@code
     * kinesis-data.json}, every second when the stack persists Kinesis data) after this call: what
     * was acknowledged before the call is then on disk. Returns at once when nothing is persisted, and
     * gives up with a warning after {@code timeout} (the caller's check then shows what is missing).
     */
    public void awaitKinesisPersisted(Duration timeout) {
        if (options.kinesisDataDirectory().isEmpty()) {
            return;
        }
        Path file = options.kinesisDataDirectory().get().resolve("kinesis-data.json");
        long deadline = System.nanoTime() + timeout.toNanos();
        long before = lastModified(file);
        long first = -1; // the first write seen after the call: it may have begun before it
        long seen = -1;
        while (System.nanoTime() < deadline) {
            long modified = lastModified(file);
            if (first < 0 && modified != before) {
                first = modified;
            } else if (first >= 0 && modified - first >= 700 && modified == seen) {
                // a later write (writes are a second apart, one's own updates milliseconds apart),
                // which began after the first one, and not written to for 200 ms: complete
                return;
            }
            seen = modified;
            java.util.concurrent.locks.LockSupport.parkNanos(
                    Duration.ofMillis(200).toNanos());
        }
        LOG.warn("kinesis-mock did not write {} within {} ms", file, timeout.toMillis());
    }

    private static long lastModified(Path file) {
        try {
            return java.nio.file.Files.getLastModifiedTime(file).toMillis();
        } catch (java.io.IOException e) {
            return -1;
        }
    }

    /**
     * Stops kinesis-mock (SIGTERM, so that it writes its data out, then SIGKILL after the stop
     * timeout) and starts it again on the same ports, as a Kinesis outage would look to clients.
     * Streams and records survive only when the stack persists Kinesis data ({@link
     * LocalAwsOptions.Builder#kinesisDataDirectory}); otherwise the restarted emulator is empty.
     * Returns once the new process answers API calls.
     *
     * @return how long Kinesis was unavailable, in milliseconds
     * @throws LocalAwsException if it does not answer again within the start timeout
     */
    public synchronized long restartKinesis() {
        if (external != null) {
            throw new LocalAwsException("cannot restart Kinesis of a stack that runs elsewhere (" + externalEndpoint()
                    + "): only the local emulators restart");
        }
        NodeEmulator old = requireStarted(kinesisMock);
        long started = System.nanoTime();
        old.terminate();
        if (!old.awaitStopOrKill(options.stopTimeout())) {
            throw new LocalAwsException(old + " did not exit; cannot restart it");
        }
        NodeEmulator fresh = launchKinesisMock(old.port(), kinesisTlsPort);
        long deadline = System.nanoTime() + options.startTimeout().toNanos();
        while (true) {
            if (!fresh.isAlive()) {
                throw new LocalAwsException("kinesis-mock exited with code " + fresh.awaitExit(Duration.ZERO)
                        + " after a restart; see " + fresh.logFile() + tail(fresh));
            }
            if (FreePorts.accepts(fresh.port(), 200)) {
                try {
                    kinesis().listStreams(r -> r.limit(1).overrideConfiguration(o -> o.apiCallTimeout(PROBE_TIMEOUT)));
                    long millis = millisSince(started);
                    LOG.info("kinesis-mock restarted in {} ms on port {}", millis, fresh.port());
                    return millis;
                } catch (SdkException e) {
                    // not ready yet
                }
            }
            if (System.nanoTime() > deadline) {
                throw new LocalAwsException("kinesis-mock did not answer within "
                        + options.startTimeout().toMillis() + " ms of a restart; see " + fresh.logFile());
            }
            fresh.awaitExit(POLL_INTERVAL);
        }
    }

    // ---- shutdown -------------------------------------------------------------------------

    /**
     * Stops everything: the Node emulators get SIGTERM and, after {@link
     * LocalAwsOptions#stopTimeout()}, SIGKILL (with their descendants); the embedded servers stop;
     * the clients close. Calling it again does nothing.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        long started = System.nanoTime();
        List<NodeEmulator> nodes = new ArrayList<>();
        for (NodeEmulator emulator : new NodeEmulator[] {kinesisMock, dynalite}) {
            if (emulator != null) {
                emulator.terminate();
                nodes.add(emulator);
            }
        }
        synchronized (clients) {
            clients.forEach(LocalAws::closeQuietly);
            clients.clear();
        }
        synchronized (gates) {
            gates.values().forEach(LocalAws::closeQuietly);
        }
        if (external != null) {
            closeQuietly(external.owner());
        }
        long embeddedStarted = System.nanoTime();
        closeQuietly(s3Proxy);
        LOG.debug("s3proxy stopped in {} ms", millisSince(embeddedStarted));
        embeddedStarted = System.nanoTime();
        closeQuietly(elasticMq);
        LOG.debug("ElasticMQ stopped in {} ms", millisSince(embeddedStarted));
        for (NodeEmulator emulator : nodes) {
            if (!emulator.awaitStopOrKill(options.stopTimeout())) {
                LOG.warn("{} is still running after SIGKILL", emulator);
            }
        }
        LOG.debug("Node emulators stopped {} ms after SIGTERM", millisSince(started));
        if (Thread.currentThread() != shutdownHook) {
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException e) {
                // the JVM is already shutting down
            }
        }
        LOG.info("Local AWS stopped in {} ms", millisSince(started));
    }

    private void closeFromShutdownHook() {
        if (!closed.get()) {
            LOG.info("JVM exiting: stopping the local AWS stack");
            close();
        }
    }

    // ---- helpers --------------------------------------------------------------------------

    private String describe() {
        StringBuilder summary = new StringBuilder();
        Map<Emulator, Long> millis = startupMillis();
        for (Emulator emulator : Emulator.values()) {
            if (summary.length() > 0) {
                summary.append(", ");
            }
            summary.append(emulator.displayName())
                    .append(' ')
                    .append(millis.get(emulator))
                    .append(" ms at ")
                    .append(endpoint(emulator));
        }
        return summary.toString();
    }

    /** Deletes Node emulator logs of stacks whose JVM is gone and that are older than a day. */
    private static void pruneOldLogs(Path logs) {
        long cutoff = System.currentTimeMillis() - Duration.ofDays(1).toMillis();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(logs, "*.log")) {
            for (Path file : files) {
                Matcher name = LOG_NAME.matcher(file.getFileName().toString());
                if (name.matches()
                        && ProcessHandle.of(Long.parseLong(name.group(1)))
                                .filter(ProcessHandle::isAlive)
                                .isEmpty()
                        && Files.getLastModifiedTime(file).toMillis() < cutoff) {
                    Files.deleteIfExists(file);
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.debug("could not prune old logs in {}", logs, e);
        }
    }

    private Path createDirectory(Path dir) {
        try {
            return Files.createDirectories(dir.toAbsolutePath().normalize());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + dir, e);
        }
    }

    private static URI endpoint(int port) {
        return URI.create("http://" + LOOPBACK + ":" + port);
    }

    private <T> T requireStarted(T value) {
        if (value == null) {
            throw new IllegalStateException("the local AWS stack is not started");
        }
        return value;
    }

    private static String tail(NodeEmulator emulator) {
        String tail = emulator.logTail();
        return tail.isEmpty() ? " (its log is empty)" : "; its log ends with:\n" + tail;
    }

    private static String lastError(RuntimeException error) {
        return error == null ? "" : "; last error: " + error.getMessage();
    }

    private static long millisSince(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanos);
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LocalAwsException("interrupted while starting the local AWS stack", e);
        }
    }

    private static void closeQuietly(AutoCloseable closeable) {
        if (closeable == null) {
            return;
        }
        try {
            closeable.close();
        } catch (Exception e) {
            LOG.warn("closing {} failed", closeable, e);
        }
    }
}
