package dev.sluice.verify.faults;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.emulators.LocalAws;
import dev.sluice.emulators.ResourceNames;
import dev.sluice.local.kcl.KclTimings;
import dev.sluice.local.kcl.LocalKclWorker;
import dev.sluice.local.kcl.LocalKclWorkers;
import dev.sluice.verify.reconcile.KclViewsRun;
import dev.sluice.verify.reconcile.Reconciliation;
import dev.sluice.verify.reconcile.StateRegressions;
import dev.sluice.verify.reconcile.StateSampler;
import dev.sluice.verify.reconcile.StreamOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fault suite's partial-cluster KCL scenarios (issue 17): partitioned and zombie workers, scale
 * out and in under load, on the {@code kclviews} test pipeline. A partition cuts one worker's access
 * to one service while its process lives: each worker signs with its own session key of the stage's
 * task role, and the access gates black-hole that key's requests to the cut service (held without an
 * answer, then dropped), as a network partition would. Each run is reconciled against the
 * producer's ledger, per-key order is checked in the output stream, and the table and aggregate are
 * sampled during the run for state regressions.
 */
public final class KclClusterFaults {

    /** A worker loses its lease table for longer than the failover time while its sinks still work. */
    public static final String ZOMBIE = "kcl-zombie";
    /** A worker is cut off every service mid-batch; the partition heals before the failover time. */
    public static final String HEALS = "kcl-partition-heals";
    /** A worker cannot reach its sink tables (its lease table it can): its shards wait, then resume. */
    public static final String SINK = "kcl-sink-partitioned";
    /** Workers are added under load. */
    public static final String SCALE_OUT = "kcl-scale-out";
    /** Workers leave under load: SIGTERM, then one SIGKILL. */
    public static final String SCALE_IN = "kcl-scale-in";

    private static final Logger LOG = LoggerFactory.getLogger(KclClusterFaults.class);
    private static final Duration READY = Duration.ofSeconds(240);
    private static final Duration STALL = Duration.ofSeconds(180);
    private static final int BAD_EVERY = 50;

    /**
     * One scenario's row and its figures.
     *
     * @param takeoverSeconds seconds from the fault to another worker's first batch on the victim's
     *     shards, or empty
     * @param dipPercent the throughput dip around a scale change (scale scenarios), or empty
     * @param regressions state regressions seen while sampling
     */
    public record ClusterRow(
            FaultSuite.Row row,
            Optional<Double> takeoverSeconds,
            Optional<Double> dipPercent,
            List<StateRegressions.Regression> regressions) {}

    private final LocalAws aws;
    private final Path repository;
    private final int smallCluster;
    private final int largeCluster;

    /**
     * @param smallCluster workers before scale-out and after scale-in (2)
     * @param largeCluster workers after scale-out and before scale-in (6 in {@code ./sluice faults},
     *     3 in CI)
     */
    public KclClusterFaults(LocalAws aws, Path repository, int smallCluster, int largeCluster) {
        this.aws = aws;
        this.repository = repository;
        this.smallCluster = smallCluster;
        this.largeCluster = largeCluster;
    }

    /** The scenario names, in the order they run. */
    public static List<String> scenarios() {
        return List.of(ZOMBIE, HEALS, SINK, SCALE_OUT, SCALE_IN);
    }

    /** What each scenario does, for the table. */
    public static String description(String scenario) {
        return switch (scenario) {
            case ZOMBIE -> "a KCL worker loses its lease table past the failover time; its sinks still work";
            case HEALS -> "a KCL worker is cut off every service mid-batch; the partition heals";
            case SINK -> "a KCL worker cannot reach its sink tables; its shards wait, then resume";
            case SCALE_OUT -> "KCL workers are added under load";
            case SCALE_IN -> "KCL workers leave under load (SIGTERM, then one SIGKILL)";
            default -> throw new IllegalArgumentException("unknown KCL cluster scenario " + scenario);
        };
    }

    /** Whether the KCL app is built and IAM enforced (partitions need each worker's own key). */
    public boolean available() {
        return LocalKclWorkers.built(repository.resolve(LocalKclWorkers.APP_JAR)) && aws.iamEnforced();
    }

    /** Runs one scenario with {@code events} page views (2% poison records). */
    public ClusterRow run(String scenario, int events) {
        long started = System.nanoTime();
        List<String> problems = new ArrayList<>();
        Optional<Double> takeover = Optional.empty();
        Optional<Double> dip = Optional.empty();
        int planned = 1;
        int fired = 0;
        KclViewsRun run = KclViewsRun.provision(aws, ResourceNames.random(), repository, false, KclTimings.LOCAL);
        Reconciliation r = null;
        StreamOrder.Result order = null;
        StateSampler sampler = null;
        try (run) {
            sampler = sampler(run);
            int initial = scenario.equals(SCALE_IN) ? largeCluster : smallCluster;
            List<LocalKclWorker> workers = run.workers().start(initial, READY);
            int half = events / 2;
            run.produce(half, BAD_EVERY);
            awaitRecords(run, Math.max(1, half / 4));
            LocalKclWorker victim = workers.get(0);
            Set<String> shards = shardsOf(run, victim);
            Instant fault = Instant.now();
            switch (scenario) {
                case ZOMBIE -> {
                    try (AutoCloseable cut = run.workers().partition(victim, LocalKclWorkers.Cut.LEASE_TABLE)) {
                        fired++;
                        // the zombie still reads and writes its sinks; its lease renewals get no answer
                        run.produce((events - half) / 2, BAD_EVERY);
                        await("another worker owns every shard of " + victim.workerId(), () -> {
                            Map<String, String> owners = run.workers().owners();
                            return shards.stream()
                                    .allMatch(s -> owners.containsKey(s)
                                            && !owners.get(s).equals(victim.workerId()));
                        });
                        run.produce(events - half - (events - half) / 2, BAD_EVERY);
                        hold(Duration.ofSeconds(2));
                    }
                    if (!victim.isAlive()) {
                        problems.add("the zombie's process died");
                    }
                }
                case HEALS -> {
                    // records in flight when the worker is cut off every service, healed before failover
                    run.produce((events - half) / 2, BAD_EVERY);
                    try (AutoCloseable cut = run.workers().partition(victim, LocalKclWorkers.Cut.EVERYTHING)) {
                        fired++;
                        hold(Duration.ofSeconds(2));
                    }
                    run.produce(events - half - (events - half) / 2, BAD_EVERY);
                }
                case SINK -> {
                    Map<String, String> before = run.workers().checkpoints();
                    try (AutoCloseable cut = run.workers().partition(victim, LocalKclWorkers.Cut.SINK_TABLES)) {
                        fired++;
                        run.produce(events - half, BAD_EVERY);
                        Map<String, String> last = run.lastSequenceByShard();
                        // the other worker's shards finish; the victim's do not advance past what it had
                        await("the other workers' shards checkpointed", () -> {
                            Map<String, String> now = run.workers().checkpoints();
                            return last.entrySet().stream()
                                    .filter(e -> !shards.contains(e.getKey()))
                                    .allMatch(e -> LocalKclWorkers.past(now.get(e.getKey()), e.getValue()));
                        });
                        hold(Duration.ofSeconds(6));
                        Map<String, String> during = run.workers().checkpoints();
                        for (String shard : shards) {
                            if (last.containsKey(shard) && LocalKclWorkers.past(during.get(shard), last.get(shard))) {
                                problems.add("shard " + shard + " advanced to " + during.get(shard)
                                        + " while its worker could not reach its sinks (was " + before.get(shard)
                                        + ")");
                            }
                            if (!victim.workerId().equals(run.workers().owners().get(shard))) {
                                problems.add("shard " + shard + " left its worker, which still renewed its lease");
                            }
                        }
                    }
                }
                case SCALE_OUT, SCALE_IN -> {
                    Thread producer = new Thread(() -> run.produce(events - half, BAD_EVERY), "scale-producer");
                    producer.start();
                    if (scenario.equals(SCALE_OUT)) {
                        List<LocalKclWorker> added = new ArrayList<>();
                        for (int i = initial; i < largeCluster; i++) {
                            added.add(run.workers().startWorker());
                        }
                        fired++;
                        added.forEach(w -> run.workers().awaitReady(w, READY));
                        await("every added worker holds a lease", () -> {
                            Set<String> owners =
                                    Set.copyOf(run.workers().owners().values());
                            return added.stream().allMatch(w -> owners.contains(w.workerId()))
                                    && run.workers().handoffsPending().isEmpty();
                        });
                        takeover = Optional.of(
                                Duration.between(fault, Instant.now()).toMillis() / 1000.0);
                    } else {
                        List<LocalKclWorker> leaving = workers.subList(smallCluster, workers.size() - 1);
                        for (LocalKclWorker w : leaving) {
                            if (!w.stop(Duration.ofSeconds(40))) {
                                problems.add(w.workerId() + " did not exit within 40 s of SIGTERM");
                            }
                        }
                        LocalKclWorker killed = workers.get(workers.size() - 1);
                        Set<String> killedShards = shardsOf(run, killed);
                        Instant death = Instant.now();
                        killed.kill();
                        fired++;
                        await("the remaining workers own every shard", () -> {
                            Set<String> owners =
                                    Set.copyOf(run.workers().owners().values());
                            return workers.subList(0, smallCluster).stream()
                                            .map(LocalKclWorker::workerId)
                                            .collect(java.util.stream.Collectors.toSet())
                                            .containsAll(owners)
                                    && run.workers().owners().size() == 4;
                        });
                        takeover = run.takeoverSeconds(killed.workerId(), killedShards, death);
                    }
                    try {
                        producer.join();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    dip = dipPercent(run.metrics(), fault);
                }
                default -> throw new IllegalArgumentException("unknown KCL cluster scenario " + scenario);
            }
            run.awaitProcessed(STALL);
            if (scenario.equals(ZOMBIE)) {
                // the new owners' first batch on the zombie's shards, from the moment it was cut off
                takeover = run.takeoverSeconds(victim.workerId(), shards, fault);
                if (!shards.isEmpty() && takeover.isEmpty()) {
                    problems.add("no other worker processed the shards " + shards + " of the zombie");
                }
            }
            sampler.close();
            r = run.reconcile();
            order = run.order();
            if (!KclViewsRun.reconciled(r)) {
                problems.add("not reconciled: " + r);
            }
            problems.addAll(r.problems());
            if (order.violations() > 0) {
                problems.add("order violations: " + order.examples());
            }
            if (!sampler.regressions().isEmpty()) {
                problems.add("state regressions: "
                        + sampler.regressions().stream().limit(5).toList());
            }
        } catch (Exception e) {
            LOG.error("KCL cluster scenario {} failed to run", scenario, e);
            problems.add("did not complete: " + e.getMessage());
        } finally {
            if (sampler != null) {
                sampler.close();
            }
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
                planned,
                fired,
                false,
                (System.nanoTime() - started) / 1e9,
                List.copyOf(problems));
        return new ClusterRow(row, takeover, dip, sampler == null ? List.of() : sampler.regressions());
    }

    private StateSampler sampler(KclViewsRun run) {
        Map<String, String> tables = run.pipeline().resources().tables();
        return new StateSampler(
                aws.dynamoDb(),
                List.of(
                        new StateSampler.Watched(
                                tables.get("views-by-id"), new StateRegressions("pk", Set.of("position"), null)),
                        new StateSampler.Watched(
                                tables.get("views-per-minute"),
                                new StateRegressions("pk", Set.of("version", "count"), "wm_"))),
                Duration.ofMillis(300));
    }

    /**
     * The throughput dip around a scale change: the lowest records-per-second of the workers together
     * over 2-second windows in the 20 s after {@code change}, against their rate in the 10 s before,
     * as a percentage of that rate (0 when it never dropped). Windows after the stream was drained
     * are left out.
     */
    static Optional<Double> dipPercent(List<JsonNode> metrics, Instant change) {
        long at = change.toEpochMilli();
        long lastBatch = metrics.stream()
                .filter(m -> m.path("Records").asLong() > 0)
                .mapToLong(m -> m.path("_aws").path("Timestamp").asLong())
                .max()
                .orElse(at);
        double before = records(metrics, at - 10_000, at) / 10.0;
        if (before <= 0) {
            return Optional.empty();
        }
        double lowest = Double.MAX_VALUE;
        for (long from = at; from + 2_000 <= Math.min(at + 20_000, lastBatch); from += 2_000) {
            lowest = Math.min(lowest, records(metrics, from, from + 2_000) / 2.0);
        }
        if (lowest == Double.MAX_VALUE) {
            return Optional.empty();
        }
        return Optional.of(Math.max(0, 100.0 * (1 - lowest / before)));
    }

    private static long records(List<JsonNode> metrics, long from, long to) {
        return metrics.stream()
                .filter(m -> {
                    long ts = m.path("_aws").path("Timestamp").asLong();
                    return ts >= from && ts < to;
                })
                .mapToLong(m -> m.path("Records").asLong())
                .sum();
    }

    private static Set<String> shardsOf(KclViewsRun run, LocalKclWorker worker) {
        Set<String> shards = new TreeSet<>();
        run.workers().owners().forEach((shard, owner) -> {
            if (owner.equals(worker.workerId())) {
                shards.add(shard);
            }
        });
        return shards;
    }

    private static void await(String what, java.util.function.BooleanSupplier condition) {
        LocalKclWorkers.await(what, Duration.ofSeconds(180), condition);
    }

    /** Keeps a fault in place for a while (the fault's duration, not a wait for a condition). */
    private static void hold(Duration duration) {
        LockSupport.parkNanos(duration.toNanos());
    }

    private static void awaitRecords(KclViewsRun run, long records) {
        await(
                records + " records processed",
                () -> run.recordsByWorker().values().stream()
                                .mapToLong(Long::longValue)
                                .sum()
                        >= records);
    }
}
