package dev.sluice.localstack.kcl;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.localstack.LocalAws;
import dev.sluice.localstack.LocalAwsExtension;
import dev.sluice.localstack.ResourceNames;
import dev.sluice.localstack.reconcile.Reconciliation;
import dev.sluice.localstack.reconcile.StreamOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Local KCL workers (separate JVMs running the packaged KCL app) on kinesis-mock + dynalite, each
 * scenario reconciled against the producer's ledger: nothing lost, no duplicate effect, per-key
 * order kept in the output stream.
 */
@ExtendWith(LocalAwsExtension.class)
class KclWorkersIT {

    static final Path ROOT = Path.of(System.getProperty("sluice.root"));
    static final Duration READY = Duration.ofSeconds(90);
    static final Duration STALL = Duration.ofSeconds(60);

    @Test
    void twoWorkersShareTheShardsOfAFourShardStream(LocalAws aws, ResourceNames names) {
        try (KclViewsRun run = KclViewsRun.provision(aws, names, ROOT, false, KclTimings.LOCAL)) {
            run.workers().start(2, READY);
            run.produce(400, 0);
            run.awaitProcessed(STALL);

            assertReconciled(run, 400);
            Map<String, Set<String>> shards = run.shardsByWorker();
            assertThat(shards).as("both workers processed shards").hasSize(2);
            Set<String> all = new HashSet<>();
            shards.values().forEach(all::addAll);
            assertThat(all).hasSize(4);
            System.out.printf("two workers: shards %s, records/s %s%n", shards, run.recordsPerSecondByWorker());
        }
    }

    @Test
    void aWorkerKilledHardMidStreamLosesItsLeasesToTheOtherWhichFinishes(LocalAws aws, ResourceNames names) {
        try (KclViewsRun run = KclViewsRun.provision(aws, names, ROOT, false, KclTimings.LOCAL)) {
            var workers = run.workers().start(2, READY);
            run.produce(300, 0);
            awaitRecords(run, 100);
            LocalKclWorker victim = workers.get(0);
            Set<String> victimShards = shardsOwnedBy(run, victim);
            Instant death = Instant.now();
            victim.kill();
            run.produce(300, 0);
            run.awaitProcessed(STALL);

            assertReconciled(run, 600);
            LocalKclWorkers.await(
                    "every lease owned by the survivor",
                    Duration.ofSeconds(30),
                    () -> run.workers().owners().values().stream()
                            .allMatch(o -> o.equals(workers.get(1).workerId())));
            assertThat(run.workers().owners()).hasSize(4);
            if (!victimShards.isEmpty()) {
                assertThat(run.takeoverSeconds(victim.workerId(), victimShards, death))
                        .as("the survivor processed the dead worker's shards")
                        .isPresent();
            }
            System.out.printf(
                    "killed hard: victim shards %s, takeover %s s, records/s %s%n",
                    victimShards,
                    run.takeoverSeconds(victim.workerId(), victimShards, death),
                    run.recordsPerSecondByWorker());
        }
    }

    @Test
    void aWorkerJoiningMidStreamTakesAShareOfTheLeases(LocalAws aws, ResourceNames names) {
        try (KclViewsRun run = KclViewsRun.provision(aws, names, ROOT, false, KclTimings.LOCAL)) {
            LocalKclWorker first = run.workers().start(1, READY).get(0);
            run.produce(300, 0);
            awaitRecords(run, 100);
            Instant joined = Instant.now();
            LocalKclWorker second = run.workers().startWorker();
            run.workers().awaitReady(second, READY);
            LocalKclWorkers.await(
                    "the joining worker holds a lease",
                    Duration.ofSeconds(60),
                    () -> run.workers().owners().containsValue(second.workerId()));
            run.produce(300, 0);
            run.awaitProcessed(STALL);

            assertReconciled(run, 600);
            assertThat(run.shardsByWorker()).containsKey(second.workerId());
            assertThat(run.workers().owners().values()).contains(first.workerId(), second.workerId());
            assertThat(first.isAlive()).isTrue();
            assertThat(run.metrics().stream()
                            .filter(m -> m.path("workerId").asText().equals(first.workerId()))
                            .anyMatch(m -> m.path("_aws").path("Timestamp").asLong() > joined.toEpochMilli()
                                    && m.path("Records").asLong() > 0))
                    .as("the first worker kept processing after the second joined")
                    .isTrue();
        }
    }

    @Test
    void gracefulShutdownHandsTheLeasesOverWithoutReprocessing(LocalAws aws, ResourceNames names) {
        try (KclViewsRun run = KclViewsRun.provision(aws, names, ROOT, false, KclTimings.LOCAL)) {
            var workers = run.workers().start(2, READY);
            run.produce(300, 0);
            run.awaitProcessed(STALL);
            LocalKclWorker leaving = workers.get(0);
            Set<String> handedOver = shardsOwnedBy(run, leaving);
            Instant stop = Instant.now();
            assertThat(leaving.stop(Duration.ofSeconds(40)))
                    .as("exits on SIGTERM")
                    .isTrue();
            run.produce(300, 0);
            run.awaitProcessed(STALL);

            assertReconciled(run, 600);
            assertThat(run.workers().owners().values())
                    .containsOnly(workers.get(1).workerId());
            // every batch was checkpointed before the hand-off: nothing is delivered twice
            long absorbed = run.metrics().stream()
                    .mapToLong(m -> m.path("AbsorbedDuplicates").asLong())
                    .sum();
            assertThat(absorbed).isLessThanOrEqualTo(100L * handedOver.size());
            assertThat(run.order().copies()).isLessThanOrEqualTo(100L * handedOver.size());
            System.out.printf(
                    "graceful: handed over %s, absorbed %d, takeover %s s%n",
                    handedOver, absorbed, run.takeoverSeconds(leaving.workerId(), handedOver, stop));
        }
    }

    @Test
    void aShardSplitMidStreamFinishesTheParentBeforeItsChildren(LocalAws aws, ResourceNames names) {
        try (KclViewsRun run = KclViewsRun.provision(aws, names, ROOT, false, KclTimings.LOCAL)) {
            run.workers().start(1, READY);
            run.produce(200, 0);
            run.awaitProcessed(STALL);
            run.splitShard("shardId-000000000000");
            run.produce(300, 0);
            run.awaitProcessed(STALL);
            LocalKclWorkers.await(
                    "the parent's lease at SHARD_END",
                    Duration.ofSeconds(60),
                    () -> "SHARD_END".equals(run.workers().checkpoints().get("shardId-000000000000")));

            assertReconciled(run, 500);
            assertThat(run.ledger().stream().map(e -> e.shardId()).distinct())
                    .as("records went to the children")
                    .contains("shardId-000000000004", "shardId-000000000005");
        }
    }

    @Test
    void enhancedFanOutDeliversAndCheckpoints(LocalAws aws, ResourceNames names) {
        try (KclViewsRun run = KclViewsRun.provision(aws, names, ROOT, true, KclTimings.LOCAL)) {
            run.workers().start(1, READY);
            run.produce(200, 0);
            run.awaitProcessed(STALL);

            assertReconciled(run, 200);
            assertThat(run.workers().checkpoints()).hasSize(4);
        }
    }

    @Test
    void aPoisonRecordGoesToTheDeadLetterQueueAndDoesNotStallItsShard(LocalAws aws, ResourceNames names) {
        try (KclViewsRun run = KclViewsRun.provision(aws, names, ROOT, false, KclTimings.LOCAL)) {
            run.workers().start(1, READY);
            run.produce(200, 10);
            run.awaitProcessed(STALL);

            // the reconciler reads the dead-letter queue once (messages stay invisible afterwards)
            Reconciliation r = assertReconciled(run, 200);
            assertThat(r.deadLettered()).isEqualTo(20);
            assertThat(r.table()).isEqualTo(180);
        }
    }

    static void awaitRecords(KclViewsRun run, long records) {
        LocalKclWorkers.await(
                records + " records processed",
                STALL,
                () -> run.recordsByWorker().values().stream()
                                .mapToLong(Long::longValue)
                                .sum()
                        >= records);
    }

    static Set<String> shardsOwnedBy(KclViewsRun run, LocalKclWorker worker) {
        Set<String> shards = new java.util.TreeSet<>();
        run.workers().owners().forEach((shard, owner) -> {
            if (owner.equals(worker.workerId())) {
                shards.add(shard);
            }
        });
        return shards;
    }

    static Reconciliation assertReconciled(KclViewsRun run, int produced) {
        Reconciliation r = run.reconcile();
        assertThat(r.problems()).isEmpty();
        assertThat(r.produced()).isEqualTo(produced);
        assertThat(KclViewsRun.reconciled(r)).as("reconciled: %s", r).isTrue();
        StreamOrder.Result order = run.order();
        assertThat(order.examples()).isEmpty();
        assertThat(order.violations()).isZero();
        assertThat(order.forwarded()).isEqualTo(r.table());
        return r;
    }

    static Instant now() {
        return Instant.now();
    }
}
