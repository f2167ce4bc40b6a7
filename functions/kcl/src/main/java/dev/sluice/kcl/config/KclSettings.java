package dev.sluice.kcl.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The KCL worker's settings, prefix {@code sluice.kcl}. Quarkus also reads each one from the
 * environment in upper snake case, so the variables infra-cdk sets ({@code SLUICE_KCL_APPLICATION},
 * {@code SLUICE_KCL_STREAM}, {@code SLUICE_KCL_LEASE_TABLE}) are these settings. Every setting and
 * default is documented in the module's README.
 */
@ConfigMapping(prefix = "sluice.kcl")
public interface KclSettings {

    /** The KCL application name (namespace of KCL's metrics, name of the fan-out consumer). */
    String application();

    /** The physical name of the stream the workers read. */
    String stream();

    /** The lease table the stack provisions; KCL never creates it. */
    @WithName("lease-table")
    String leaseTable();

    /** {@code polling} (GetRecords) or {@code fan-out} (enhanced fan-out, SubscribeToShard over HTTP/2). */
    @WithDefault("polling")
    Retrieval retrieval();

    /** A lease not renewed for this long is taken over by another worker. */
    @WithName("failover-time")
    @WithDefault("10s")
    Duration failoverTime();

    /** Most leases one worker holds; unset for no limit. */
    @WithName("max-leases-per-worker")
    OptionalInt maxLeasesPerWorker();

    /**
     * How the leader spreads leases over workers: {@code WORKER_UTILIZATION_AWARE} (KCL 3's default:
     * by CPU and throughput) or {@code LEASE_COUNT_BASED} (the same number of leases each).
     */
    @WithName("lease-assignment")
    @WithDefault("WORKER_UTILIZATION_AWARE")
    software.amazon.kinesis.leases.LeaseAssignmentStrategy leaseAssignment();

    /**
     * How often a worker reports its metrics to the lease table; the leader counts a worker that
     * has not reported for twice this long as gone, and stops assigning it leases (KCL's default 30 s).
     */
    @WithName("worker-metrics-interval")
    @WithDefault("30s")
    Duration workerMetricsInterval();

    /** Polling only: the pause between two GetRecords calls of one shard. */
    @WithName("idle-time-between-reads")
    @WithDefault("1s")
    Duration idleTimeBetweenReads();

    /** Polling only: most records per GetRecords call; unset for the stage's batch size. */
    @WithName("max-records")
    OptionalInt maxRecords();

    /** This worker's identity in the lease table; unset for host name + a random suffix. */
    @WithName("worker-id")
    Optional<String> workerId();

    /** How often the lease leader reassigns leases; unset for KCL's default (twice the failover time). */
    @WithName("lease-assignment-interval")
    Optional<Duration> leaseAssignmentInterval();

    /** How long the leader's lock lasts without a heartbeat (KCL's default 2 min). */
    @WithName("leader-lease-duration")
    @WithDefault("120s")
    Duration leaderLeaseDuration();

    /** How often the leader renews its lock (KCL's default 30 s). */
    @WithName("leader-heartbeat")
    @WithDefault("30s")
    Duration leaderHeartbeat();

    /** How often a child shard checks whether its parents are finished (KCL's default 10 s). */
    @WithName("parent-shard-poll-interval")
    @WithDefault("10s")
    Duration parentShardPollInterval();

    /**
     * How often the scheduler moves each shard's consumer to its next state (a new lease: wait for
     * parents, initialise, process; a handed-over one: final checkpoint, release) and checks its
     * health (KCL's {@code shardConsumerDispatchPollIntervalMillis}, default 1 s). A lease changing
     * hands passes through several states, each a tick on the old and on the new owner.
     */
    @WithName("dispatch-poll-interval")
    @WithDefault("1s")
    Duration dispatchPollInterval();

    /** How often the leader checks the lease table for missing shards (KCL's default 2 min). */
    @WithName("shard-sync-interval")
    @WithDefault("120s")
    Duration shardSyncInterval();

    /** How long a graceful shutdown (SIGTERM) waits for the final checkpoints and hand-off. */
    @WithName("shutdown-timeout")
    @WithDefault("60s")
    Duration shutdownTimeout();

    /** KCL's own CloudWatch metrics: {@code NONE}, {@code SUMMARY} or {@code DETAILED}. */
    @WithName("metrics-level")
    @WithDefault("SUMMARY")
    String metricsLevel();

    /**
     * The Kinesis endpoint KCL reads from, when it differs from the one the stage's sinks use
     * ({@code AWS_ENDPOINT_URL_KINESIS}); locally, fan-out needs kinesis-mock's TLS (HTTP/2) port.
     */
    @WithName("kinesis-endpoint")
    Optional<java.net.URI> kinesisEndpoint();

    /** Local emulators only: trust any TLS certificate (kinesis-mock's self-signed one). */
    @WithName("trust-all-certificates")
    @WithDefault("false")
    boolean trustAllCertificates();

    /**
     * Local runs only: the process id of the launcher that started this worker; the worker shuts
     * down (gracefully) as soon as it is no longer its parent, so a killed launcher leaves no worker.
     */
    @WithName("parent-pid")
    java.util.OptionalLong parentPid();

    /** How records are read from the stream. */
    enum Retrieval {
        POLLING,
        FAN_OUT
    }
}
