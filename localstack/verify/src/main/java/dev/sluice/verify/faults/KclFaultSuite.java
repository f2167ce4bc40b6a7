package dev.sluice.verify.faults;

import dev.sluice.emulators.LocalAws;
import dev.sluice.emulators.ResourceNames;
import dev.sluice.local.kcl.KclTimings;
import dev.sluice.local.kcl.LocalKclWorker;
import dev.sluice.local.kcl.LocalKclWorkers;
import dev.sluice.verify.reconcile.KclViewsRun;
import dev.sluice.verify.reconcile.Reconciliation;
import dev.sluice.verify.reconcile.StreamOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fault suite's KCL scenarios: the {@code kclviews} test pipeline's {@code consumer: kcl} stage
 * run by two local KCL workers (separate JVMs), one of which is killed hard (SIGKILL), stopped
 * gracefully (SIGTERM) or joined by a third mid-stream; each run reconciled against the producer's
 * ledger (lake, table, aggregate, dead-letter queue; per-key order in the stage's output stream and
 * its lake). The
 * takeover time is the seconds from a worker's death to the first batch its successor processed on
 * one of its shards.
 */
public final class KclFaultSuite {

    /** A worker is killed with SIGKILL mid-stream; the other takes its leases after the failover time. */
    public static final String KILLED = "kcl-worker-killed";
    /** A worker gets SIGTERM mid-stream: final checkpoints, leases handed over. */
    public static final String GRACEFUL = "kcl-graceful-handover";
    /** A worker joins mid-stream and takes a share of the leases. */
    public static final String JOINS = "kcl-worker-joins";

    private static final Logger LOG = LoggerFactory.getLogger(KclFaultSuite.class);
    private static final Duration READY = Duration.ofSeconds(90);
    private static final Duration STALL = Duration.ofSeconds(90);

    /**
     * One scenario's row and the takeover it measured.
     *
     * @param takeoverSeconds seconds from the worker's death to its successor's first batch on one of
     *     its shards (killed and graceful scenarios), or empty
     */
    public record KclRow(FaultSuite.Row row, Optional<Double> takeoverSeconds) {}

    private final LocalAws aws;
    private final Path repository;

    public KclFaultSuite(LocalAws aws, Path repository) {
        this.aws = aws;
        this.repository = repository;
    }

    /** The scenario names, in the order they run. */
    public static List<String> scenarios() {
        return List.of(KILLED, GRACEFUL, JOINS);
    }

    /** What each scenario does, for the table. */
    public static String description(String scenario) {
        return switch (scenario) {
            case KILLED -> "a KCL worker is killed hard (SIGKILL) mid-stream";
            case GRACEFUL -> "a KCL worker is stopped (SIGTERM) and hands its leases over";
            case JOINS -> "a KCL worker joins mid-stream and takes a share of the leases";
            default -> throw new IllegalArgumentException("unknown KCL scenario " + scenario);
        };
    }

    /** Whether the KCL app these scenarios need is built. */
    public boolean available() {
        return LocalKclWorkers.built(repository.resolve(LocalKclWorkers.APP_JAR));
    }

    /** Runs one scenario with {@code events} page views (2% of them poison records). */
    public KclRow run(String scenario, int events) {
        return run(scenario, events, run -> List.of());
    }

    /**
     * Runs one scenario; {@code checks} looks at the finished run (workers, leases, metrics) and
     * returns further problems, if any.
     */
    public KclRow run(String scenario, int events, java.util.function.Function<KclViewsRun, List<String>> checks) {
        long started = System.nanoTime();
        List<String> problems = new ArrayList<>();
        Optional<Double> takeover = Optional.empty();
        int fired = 0;
        int badEvery = 50;
        KclViewsRun run = KclViewsRun.provision(aws, ResourceNames.random(), repository, false, KclTimings.LOCAL);
        Reconciliation r = null;
        StreamOrder.Result order = null;
        try (run) {
            List<LocalKclWorker> workers = run.workers().start(scenario.equals(JOINS) ? 1 : 2, READY);
            int half = events / 2;
            run.produce(half, badEvery);
            awaitRecords(run, Math.max(1, half / 4));
            Set<String> shards = new TreeSet<>();
            LocalKclWorker victim = workers.get(0);
            run.workers().owners().forEach((shard, owner) -> {
                if (owner.equals(victim.workerId())) {
                    shards.add(shard);
                }
            });
            Instant death = Instant.now();
            switch (scenario) {
                case KILLED -> victim.kill();
                case GRACEFUL -> {
                    if (!victim.stop(Duration.ofSeconds(40))) {
                        problems.add("the worker did not exit within 40 s of SIGTERM");
                    }
                }
                case JOINS -> {
                    LocalKclWorker joining = run.workers().startWorker();
                    run.workers().awaitReady(joining, READY);
                }
                default -> throw new IllegalArgumentException("unknown KCL scenario " + scenario);
            }
            fired++;
            if (scenario.equals(JOINS)) {
                // records keep coming while the leader moves leases to the new worker
                int quarter = (events - half) / 2;
                run.produce(quarter, badEvery);
                LocalKclWorker joined = run.workers().workers().get(1);
                try {
                    // holds it: the previous owner handed it over and the new one took it (its /leases)
                    LocalKclWorkers.await(
                            "the joining worker holds a lease",
                            Duration.ofSeconds(60),
                            () -> run.workers().owners().containsValue(joined.workerId())
                                    && joined.leasesHeld() > 0
                                    && run.workers().handoffsPending().isEmpty());
                } catch (IllegalStateException e) {
                    problems.add(e.getMessage());
                }
                run.produce(events - half - quarter, badEvery);
            } else {
                run.produce(events - half, badEvery);
            }
            run.awaitProcessed(STALL);
            r = run.reconcile();
            order = run.order();
            if (!scenario.equals(JOINS)) {
                takeover = run.takeoverSeconds(victim.workerId(), shards, death);
                if (!shards.isEmpty() && takeover.isEmpty()) {
                    problems.add("no other worker processed the shards " + shards + " of " + victim.workerId());
                }
            } else if (run.shardsByWorker().size() < 2) {
                problems.add("the joining worker processed no shard: " + run.shardsByWorker());
            }
            if (!KclViewsRun.reconciled(r)) {
                problems.add("not reconciled: " + r);
            }
            problems.addAll(r.problems());
            if (order.violations() > 0) {
                problems.add("order violations: " + order.examples());
            }
            problems.addAll(checks.apply(run));
        } catch (RuntimeException e) {
            LOG.error("KCL scenario {} failed to run", scenario, e);
            problems.add("did not complete: " + e.getMessage());
        }
        long deliveries = run.metrics().stream()
                .mapToLong(m -> m.path("Records").asLong())
                .sum();
        long absorbed = run.metrics().stream()
                .mapToLong(m -> m.path("AbsorbedDuplicates").asLong())
                .sum();
        FaultSuite.Row row = new FaultSuite.Row(
                scenario,
                description(scenario),
                run.ledger().size(),
                deliveries,
                r == null ? 0 : r.table() + r.deadLettered(),
                absorbed,
                r == null ? 0 : r.deadLettered(),
                r == null ? 0 : r.lost(),
                r == null ? 0 : r.duplicates(),
                order == null ? 0 : order.violations(),
                1,
                fired,
                false,
                (System.nanoTime() - started) / 1e9,
                List.copyOf(problems));
        return new KclRow(row, takeover);
    }

    private static void awaitRecords(KclViewsRun run, long records) {
        long deadline = System.nanoTime() + STALL.toNanos();
        while (run.recordsByWorker().values().stream()
                        .mapToLong(Long::longValue)
                        .sum()
                < records) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("fewer than " + records + " records processed in " + STALL);
            }
            java.util.concurrent.locks.LockSupport.parkNanos(
                    Duration.ofMillis(200).toNanos());
        }
    }
}
