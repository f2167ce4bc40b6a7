package dev.sluice.local.kcl;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The KCL settings a local worker runs with (environment variables of the KCL app, see
 * {@code functions/kcl/README.md}). {@link #LOCAL} shortens what KCL lets us shorten so that a
 * takeover takes seconds instead of minutes.
 *
 * @param failover a lease not renewed for this long is taken over
 * @param idleBetweenReads pause between two GetRecords calls of a shard
 * @param leaseAssignment how often the leader (re)assigns leases
 * @param leaderLease how long the leader's lock lasts without a heartbeat
 * @param leaderHeartbeat how often the leader renews its lock
 * @param parentShardPoll how often a child shard checks that its parents are done
 * @param shardSync how often the leader looks for shards without a lease
 * @param shutdownTimeout how long a graceful shutdown may take
 * @param dispatchPoll how often the scheduler moves each shard's consumer to its next state (each
 *     step of a lease hand-off, on the old and on the new owner, waits for one)
 */
public record KclTimings(
        Duration failover,
        Duration idleBetweenReads,
        Duration leaseAssignment,
        Duration leaderLease,
        Duration leaderHeartbeat,
        Duration parentShardPoll,
        Duration shardSync,
        Duration shutdownTimeout,
        Duration dispatchPoll) {

    /** Short timings for local runs and tests. */
    public static final KclTimings LOCAL = new KclTimings(
            Duration.ofSeconds(4),
            Duration.ofMillis(250),
            Duration.ofSeconds(2),
            Duration.ofSeconds(6),
            Duration.ofSeconds(2),
            Duration.ofSeconds(1),
            Duration.ofSeconds(5),
            Duration.ofSeconds(30),
            Duration.ofMillis(250));

    /** The worker's environment variables for these timings. */
    public Map<String, String> environment() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("SLUICE_KCL_FAILOVER_TIME", millis(failover));
        env.put("SLUICE_KCL_IDLE_TIME_BETWEEN_READS", millis(idleBetweenReads));
        env.put("SLUICE_KCL_LEASE_ASSIGNMENT_INTERVAL", millis(leaseAssignment));
        env.put("SLUICE_KCL_LEADER_LEASE_DURATION", millis(leaderLease));
        env.put("SLUICE_KCL_LEADER_HEARTBEAT", millis(leaderHeartbeat));
        env.put("SLUICE_KCL_PARENT_SHARD_POLL_INTERVAL", millis(parentShardPoll));
        env.put("SLUICE_KCL_SHARD_SYNC_INTERVAL", millis(shardSync));
        env.put("SLUICE_KCL_SHUTDOWN_TIMEOUT", millis(shutdownTimeout));
        env.put("SLUICE_KCL_DISPATCH_POLL_INTERVAL", millis(dispatchPoll));
        // no CPU metrics locally: spread leases by count, so that workers really share the shards
        env.put("SLUICE_KCL_LEASE_ASSIGNMENT", "LEASE_COUNT_BASED");
        // the leader forgets a worker silent for two intervals: a dead one gets no leases after 2 s
        env.put("SLUICE_KCL_WORKER_METRICS_INTERVAL", "1000ms");
        return env;
    }

    private static String millis(Duration d) {
        return d.toMillis() + "ms";
    }
}
