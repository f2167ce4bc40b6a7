package dev.sluice.local.kcl;

import dev.sluice.core.definition.EnvironmentNames;
import dev.sluice.emulators.LocalAws;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The local KCL workers of one {@code consumer: kcl} stage: each a separate JVM running the packaged
 * KCL app ({@code functions/kcl/target/quarkus-app/quarkus-run.jar}) with the stage's environment
 * (what infra-cdk gives the Fargate task: names and URLs, plus the local AWS endpoints and
 * credentials), sharing the stage's provisioned lease table. Workers can be added while others run,
 * killed hard (SIGKILL) or stopped gracefully (SIGTERM).
 */
public final class LocalKclWorkers implements AutoCloseable {

    /** Where the packaged KCL app lives in a built repository. */
    public static final String APP_JAR = "functions/kcl/target/quarkus-app/quarkus-run.jar";

    private static final Logger LOG = LoggerFactory.getLogger(LocalKclWorkers.class);

    private final LocalAws aws;
    private final String stage;
    private final Map<String, String> environment;
    private final String leaseTable;
    private final Path jar;
    private final Path logs;
    private final String stream;
    private final String seedCheckpoint;
    private final List<LocalKclWorker> workers = new ArrayList<>();
    private int next = 1;

    /**
     * @param stageEnvironment the stage's function environment (names, URLs, local AWS endpoints)
     * @param application the KCL application name
     * @param stream the physical input stream
     * @param leaseTable the provisioned lease table
     * @param jar the KCL app's {@code quarkus-run.jar}
     * @param timings KCL timings
     * @param fanOut read with enhanced fan-out (SubscribeToShard through the Kinesis gate) instead of polling
     * @param seedCheckpoint if not null, the first worker finds a lease per open shard at this
     *     checkpoint ({@code TRIM_HORIZON}) already in the table (see {@link #seedLeases()})
     */
    public LocalKclWorkers(
            LocalAws aws,
            String stage,
            Map<String, String> stageEnvironment,
            String application,
            String stream,
            String leaseTable,
            Path jar,
            KclTimings timings,
            boolean fanOut,
            String seedCheckpoint) {
        this.aws = aws;
        this.stream = stream;
        this.seedCheckpoint = seedCheckpoint;
        this.stage = stage;
        this.leaseTable = leaseTable;
        this.jar = jar;
        this.logs = aws.options()
                .logDirectory()
                .orElseGet(() -> Path.of(System.getProperty("java.io.tmpdir"), "sluice-logs"));
        Map<String, String> env = new LinkedHashMap<>(stageEnvironment);
        env.put(EnvironmentNames.KCL_APPLICATION, application);
        env.put(EnvironmentNames.KCL_STREAM, stream);
        env.put(EnvironmentNames.KCL_LEASE_TABLE, leaseTable);
        env.putAll(timings.environment());
        env.put("SLUICE_KCL_METRICS_LEVEL", "NONE"); // no CloudWatch locally
        env.put("SLUICE_KCL_PARENT_PID", Long.toString(ProcessHandle.current().pid()));
        if (fanOut) {
            env.put("SLUICE_KCL_RETRIEVAL", "fan-out");
            // KCL's reading client goes through the Kinesis access gate like every other call
            // (SubscribeToShard too: its event stream over HTTP/1.1, streamed by the gate); kinesis-mock's
            // TLS port is not given to any worker
            env.put("SLUICE_KCL_KINESIS_ENDPOINT", aws.kinesisEndpoint().toString());
        }
        this.environment = Map.copyOf(env);
    }

    /** Whether the KCL app is built at {@code jar}. */
    public static boolean built(Path jar) {
        return jar != null && Files.isRegularFile(jar);
    }

    /** Starts one more worker (it does not wait for it to be ready). */
    public synchronized LocalKclWorker startWorker() {
        if (!built(jar)) {
            throw new IllegalStateException(
                    "the KCL app is not built: " + jar + " is missing (./mvnw -B package -pl functions/kcl -am)");
        }
        if (next == 1 && seedCheckpoint != null) {
            seedLeases();
        }
        String workerId = stage + "-worker-" + next++;
        Map<String, String> env = new LinkedHashMap<>(environment);
        env.put("SLUICE_KCL_WORKER_ID", workerId);
        String accessKeyId = sessionKey(workerId, env.get("AWS_ACCESS_KEY_ID"));
        if (accessKeyId != null) {
            env.put("AWS_ACCESS_KEY_ID", accessKeyId);
        }
        // an ephemeral port Quarkus binds itself and logs (a port picked here could be taken by another
        // process before the worker binds it): the worker reads it from its log
        env.put("QUARKUS_HTTP_PORT", "0");
        // Quarkus listens on all interfaces by default: the health and lease endpoints stay on this machine
        env.put("QUARKUS_HTTP_HOST", "127.0.0.1");
        String java = ProcessHandle.current().info().command().orElse("java");
        // one CPU, as the worker's Fargate task has (infra-cdk KclStage.CPU, 1 vCPU): the JVM, Netty,
        // Vert.x and KCL size their thread pools for it, not for every core of this machine, which all
        // the local workers, the emulators and the gates share
        // and in its own session (dev.sluice.emulators.OwnSession): as an ECS task has its own vCPU, a
        // worker has its own share of the CPU, and workers being started do not take the running ones'
        List<String> command = new ArrayList<>(dev.sluice.emulators.OwnSession.prefix());
        command.addAll(List.of(
                java,
                "-Xmx256m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-XX:ActiveProcessorCount=1",
                "-Xshare:auto",
                "-jar",
                jar.toString()));
        try {
            Files.createDirectories(logs);
            Path log = logs.resolve("kcl-" + workerId + "-"
                    + ProcessHandle.current().pid() + "-" + System.currentTimeMillis() + ".log");
            ProcessBuilder builder = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
            builder.environment().clear();
            builder.environment().putAll(env);
            builder.environment().put("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
            Process process = builder.start();
            LocalKclWorker worker = new LocalKclWorker(workerId, process, 0, log, env.get("AWS_ACCESS_KEY_ID"));
            workers.add(worker);
            LOG.info("started KCL worker {} for stage {} (log {})", worker, stage, log);
            return worker;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start a KCL worker", e);
        }
    }

    /**
     * Each worker's own access key: in AWS every ECS task of the service gets its own temporary
     * credentials of the task role; locally each worker gets a session key the local IAM maps to the
     * stage's role, so that the gates can tell workers apart ({@link #partition}). Null (the stage's
     * key is shared) when IAM is not enforced.
     */
    private String sessionKey(String workerId, String roleKeyId) {
        if (roleKeyId == null || roleKeyId.equals(LocalAws.ACCESS_KEY_ID)) {
            return null;
        }
        return dev.sluice.local.iam.LocalIam.of(aws)
                .map(iam -> {
                    String key = "ASIA"
                            + java.util.HexFormat.of()
                                    .formatHex(java.nio.ByteBuffer.allocate(8)
                                            .putLong(java.util.concurrent.ThreadLocalRandom.current()
                                                    .nextLong())
                                            .array())
                                    .toUpperCase(java.util.Locale.ROOT);
                    iam.addSessionKey(key, roleKeyId);
                    LOG.info(
                            "KCL worker {} signs with its own session key {} of role key {}", workerId, key, roleKeyId);
                    return key;
                })
                .orElse(null);
    }

    /** What a partition cuts a worker off from. */
    public enum Cut {
        /** The stage's lease table only (leases, checkpoints, KCL's coordinator state). */
        LEASE_TABLE,
        /** Every DynamoDB table: the lease table and the DynamoDB sinks. */
        DYNAMODB,
        /** Every DynamoDB table but the lease table: the stage's table and aggregate sinks. */
        SINK_TABLES,
        /** S3 (the lake sink and its objects). */
        S3,
        /** Every service. */
        EVERYTHING
    }

    /** How a partition treats the requests it cuts. */
    public enum Drop {
        /** Held unanswered while the cut lasts, then the connection is dropped: a silent partition. */
        BLACK_HOLE,
        /** The connection is dropped at once: an unreachable service, the caller's retries fail fast. */
        RESET
    }

    /**
     * Cuts one worker off {@code cut} while its process lives, as a network partition would: its
     * requests there get no answer (the gate holds them, then drops the connection) until the
     * returned handle is closed. Needs IAM enforced (each worker's own session key).
     */
    public AutoCloseable partition(LocalKclWorker worker, Cut cut) {
        return partition(worker, cut, Drop.BLACK_HOLE);
    }

    /**
     * Cuts one worker off {@code cut} while its process lives, its requests there black-holed or
     * reset ({@code drop}) until the returned handle is closed. Needs IAM enforced (each worker's own
     * session key).
     */
    public AutoCloseable partition(LocalKclWorker worker, Cut cut, Drop drop) {
        if (worker.accessKeyId() == null || worker.accessKeyId().equals(LocalAws.ACCESS_KEY_ID)) {
            throw new IllegalStateException("worker " + worker + " shares its key: partitions need IAM enforced");
        }
        java.util.function.Predicate<dev.sluice.emulators.iam.ServiceCall> calls = calls(cut);
        LOG.info("partition: worker {} cut off {} ({})", worker, cut, drop);
        AutoCloseable handle = aws.accessControl()
                .cut(
                        worker.accessKeyId(),
                        calls,
                        drop == Drop.RESET ? Duration.ZERO : dev.sluice.emulators.iam.AccessControl.BLACK_HOLE);
        return () -> {
            handle.close();
            LOG.info("partition healed: worker {} reaches {} again", worker, cut);
        };
    }

    /**
     * Holds one worker's requests to {@code cut} in the network and delivers them late: each is kept
     * at the gate, unanswered and not yet sent on, until the returned hold is released, then it
     * lands on the emulator as sent (see {@link dev.sluice.emulators.iam.AccessControl#hold}); the
     * hold records each one's answer. A request held longer than {@code max} is dropped unanswered.
     * Needs IAM enforced (each worker's own session key).
     */
    public dev.sluice.emulators.iam.AccessControl.Held hold(LocalKclWorker worker, Cut cut, Duration max) {
        if (worker.accessKeyId() == null || worker.accessKeyId().equals(LocalAws.ACCESS_KEY_ID)) {
            throw new IllegalStateException("worker " + worker + " shares its key: holds need IAM enforced");
        }
        LOG.info("hold: worker {}'s requests to {} are held in the network until released", worker, cut);
        return aws.accessControl().hold(worker.accessKeyId(), calls(cut), max);
    }

    private java.util.function.Predicate<dev.sluice.emulators.iam.ServiceCall> calls(Cut cut) {
        String leaseArn = "arn:aws:dynamodb:" + aws.region().id() + ":" + aws.accountId() + ":table/" + leaseTable;
        return switch (cut) {
            case LEASE_TABLE ->
                call -> call.service() == dev.sluice.emulators.iam.AwsService.DYNAMODB
                        && call.requests().stream()
                                .anyMatch(r -> r.resource().equals(leaseArn)
                                        || r.resource().startsWith(leaseArn + "/"));
            case DYNAMODB -> call -> call.service() == dev.sluice.emulators.iam.AwsService.DYNAMODB;
            case SINK_TABLES ->
                call -> call.service() == dev.sluice.emulators.iam.AwsService.DYNAMODB
                        && call.requests().stream()
                                .noneMatch(r -> r.resource().equals(leaseArn)
                                        || r.resource().startsWith(leaseArn + "/"));
            case S3 -> call -> call.service() == dev.sluice.emulators.iam.AwsService.S3;
            case EVERYTHING -> call -> true;
        };
    }

    /**
     * Cuts one worker off some of its sink tables only ({@code tables}, physical names), its requests
     * there black-holed or reset ({@code drop}) until the returned handle is closed: the writes of a
     * batch to its other targets go through, those to these tables do not, as when a partition
     * starts in the middle of a batch.
     */
    public AutoCloseable partitionTables(LocalKclWorker worker, java.util.Collection<String> tables, Drop drop) {
        if (worker.accessKeyId() == null || worker.accessKeyId().equals(LocalAws.ACCESS_KEY_ID)) {
            throw new IllegalStateException("worker " + worker + " shares its key: partitions need IAM enforced");
        }
        String prefix = "arn:aws:dynamodb:" + aws.region().id() + ":" + aws.accountId() + ":table/";
        java.util.Set<String> arns = new java.util.HashSet<>();
        tables.forEach(t -> arns.add(prefix + t));
        LOG.info("partition: worker {} cut off tables {} ({})", worker, tables, drop);
        AutoCloseable handle = aws.accessControl()
                .cut(
                        worker.accessKeyId(),
                        call -> call.service() == dev.sluice.emulators.iam.AwsService.DYNAMODB
                                && call.requests().stream()
                                        .anyMatch(r -> arns.stream()
                                                .anyMatch(a -> r.resource().equals(a)
                                                        || r.resource().startsWith(a + "/"))),
                        drop == Drop.RESET ? Duration.ZERO : dev.sluice.emulators.iam.AccessControl.BLACK_HOLE);
        return () -> {
            handle.close();
            LOG.info("partition healed: worker {} reaches tables {} again", worker, tables);
        };
    }

    /**
     * Local start-up shortcut: writes, into an empty lease table, one lease per shard of the stream
     * as KCL's own shard sync would (lease key = shard id, no owner, counter 0, checkpoint {@code
     * seedCheckpoint}, the shard's hash key range and parents). A brand-new KCL application waits a
     * random 1–30 s on an empty lease table before it creates them itself (constants in KCL's
     * {@code Scheduler}, not configurable); with the leases there it starts at once.
     *
     * @return leases written (0 when the table already had leases)
     */
    public int seedLeases() {
        if (!checkpoints().isEmpty()) {
            return 0;
        }
        int written = 0;
        for (var shard : aws.kinesis().listShards(b -> b.streamName(stream)).shards()) {
            Map<String, AttributeValue> item = new LinkedHashMap<>();
            item.put("leaseKey", AttributeValue.fromS(shard.shardId()));
            item.put("leaseCounter", AttributeValue.fromN("0"));
            item.put("ownerSwitchesSinceCheckpoint", AttributeValue.fromN("0"));
            item.put("checkpoint", AttributeValue.fromS(seedCheckpoint));
            item.put("checkpointSubSequenceNumber", AttributeValue.fromN("0"));
            item.put(
                    "startingHashKey", AttributeValue.fromS(shard.hashKeyRange().startingHashKey()));
            item.put("endingHashKey", AttributeValue.fromS(shard.hashKeyRange().endingHashKey()));
            item.put("entityType", AttributeValue.fromS("LEASE"));
            List<String> parents = new ArrayList<>();
            if (shard.parentShardId() != null) {
                parents.add(shard.parentShardId());
            }
            if (shard.adjacentParentShardId() != null) {
                parents.add(shard.adjacentParentShardId());
            }
            if (!parents.isEmpty()) {
                item.put("parentShardId", AttributeValue.fromSs(parents));
            }
            aws.dynamoDb()
                    .putItem(b ->
                            b.tableName(leaseTable).item(item).conditionExpression("attribute_not_exists(leaseKey)"));
            written++;
        }
        LOG.info("seeded {} leases into {}", written, leaseTable);
        return written;
    }

    /**
     * Starts {@code count} workers and waits until each is ready. The first is started alone: two
     * KCL 3.5.1 workers initialising a brand-new application at once race to create its migration
     * state, and the loser's scheduler never initialises ("AssignmentMode is not initialized" on
     * every retry).
     */
    public List<LocalKclWorker> start(int count, Duration timeout) {
        List<LocalKclWorker> started = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            LocalKclWorker worker = startWorker();
            started.add(worker);
            if (i == 0 && count > 1) {
                awaitReady(worker, timeout);
            }
        }
        for (LocalKclWorker worker : started) {
            awaitReady(worker, timeout);
        }
        return started;
    }

    /**
     * Adds {@code count} workers to a running cluster, one after another: each is started once the
     * one before it is ready. On AWS an added ECS task boots on its own vCPU; here every JVM shares
     * this machine's cores with the running workers and the emulators, and several JVMs booting at
     * once (class loading, JIT) took so much of them that the running workers stopped processing for
     * seconds (a 5-s window at 0 records in {@code kcl-scale-out}, 2 → 6 workers on 2 cores). One at
     * a time, a boot takes one session's share of the CPU (each worker runs in its own session,
     * {@link dev.sluice.emulators.OwnSession}), and the running workers keep theirs.
     */
    public List<LocalKclWorker> add(int count, Duration timeout) {
        List<LocalKclWorker> added = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            LocalKclWorker worker = startWorker();
            added.add(worker);
            awaitReady(worker, timeout);
        }
        return added;
    }

    /** Waits until a worker's KCL scheduler is initialised. */
    public void awaitReady(LocalKclWorker worker, Duration timeout) {
        await("worker " + worker + " ready", timeout, () -> {
            if (!worker.isAlive()) {
                throw new IllegalStateException("KCL worker " + worker + " exited; log: " + worker.log());
            }
            return worker.ready();
        });
    }

    /** Every worker started, running or not. */
    public synchronized List<LocalKclWorker> workers() {
        return List.copyOf(workers);
    }

    /** The workers still running. */
    public synchronized List<LocalKclWorker> running() {
        return workers.stream().filter(LocalKclWorker::isAlive).toList();
    }

    public String leaseTable() {
        return leaseTable;
    }

    /** The environment every worker of this stage starts with (tests and the CLI print it). */
    public Map<String, String> environment() {
        return environment;
    }

    /** The lease table's leases: shard → checkpoint ({@code TRIM_HORIZON}, a sequence number, {@code SHARD_END}). */
    public Map<String, String> checkpoints() {
        return leaseAttribute("checkpoint");
    }

    /** The lease table's leases: shard → owner (leases without an owner are left out). */
    public Map<String, String> owners() {
        return leaseAttribute("leaseOwner");
    }

    /**
     * Leases being handed over right now: the leader named a new owner, and the previous one (KCL's
     * {@code checkpointOwner}) has not released the lease yet.
     */
    public Map<String, String> handoffsPending() {
        return leaseAttribute("checkpointOwner");
    }

    private Map<String, String> leaseAttribute(String attribute) {
        Map<String, String> values = new TreeMap<>();
        aws.dynamoDb()
                .scanPaginator(b -> b.tableName(leaseTable).consistentRead(true))
                .items()
                .forEach(item -> {
                    AttributeValue key = item.get("leaseKey");
                    AttributeValue value = item.get(attribute);
                    // KCL 3 keeps coordinator state and worker metrics in the same table: leases have a checkpoint
                    if (key != null && item.containsKey("checkpoint") && value != null && value.s() != null) {
                        values.put(key.s(), value.s());
                    }
                });
        return values;
    }

    /**
     * Waits until every shard's lease is checkpointed at or past the given sequence number (or at
     * {@code SHARD_END}).
     *
     * @param lastSequenceByShard for each shard, the last sequence number that must be processed
     * @param stall fails if no checkpoint moves for this long
     */
    public void awaitCheckpointed(Map<String, String> lastSequenceByShard, Duration stall) {
        Map<String, String> last = Map.of();
        long lastChange = System.nanoTime();
        while (true) {
            Map<String, String> now = checkpoints();
            boolean done =
                    lastSequenceByShard.entrySet().stream().allMatch(e -> past(now.get(e.getKey()), e.getValue()));
            if (done) {
                return;
            }
            if (!now.equals(last)) {
                last = now;
                lastChange = System.nanoTime();
            } else if (System.nanoTime() - lastChange > stall.toNanos()) {
                throw new IllegalStateException("stage " + stage + ": no checkpoint moved for " + stall.toSeconds()
                        + " s; checkpoints " + now + ", expected past " + lastSequenceByShard + "; workers "
                        + workers());
            }
            LockSupport.parkNanos(Duration.ofMillis(200).toNanos());
        }
    }

    /** Whether a lease checkpoint is at or past a sequence number. */
    public static boolean past(String checkpoint, String sequenceNumber) {
        if (checkpoint == null) {
            return false;
        }
        if (checkpoint.equals("SHARD_END")) {
            return true;
        }
        if (!checkpoint.chars().allMatch(Character::isDigit)) {
            return false; // TRIM_HORIZON, LATEST, AT_TIMESTAMP
        }
        return new BigInteger(checkpoint).compareTo(new BigInteger(sequenceNumber)) >= 0;
    }

    /** Stops every running worker gracefully (in parallel), killing those that take too long. */
    @Override
    public void close() {
        List<Thread> stoppers = new ArrayList<>();
        for (LocalKclWorker worker : running()) {
            Thread t = new Thread(() -> worker.stop(Duration.ofSeconds(40)), "stop-" + worker.workerId());
            t.start();
            stoppers.add(t);
        }
        for (Thread t : stoppers) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Waits until {@code condition} holds, or fails naming {@code what}. */
    public static void await(String what, Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(what + ": not within " + timeout.toSeconds() + " s");
            }
            LockSupport.parkNanos(Duration.ofMillis(200).toNanos());
        }
    }
}
