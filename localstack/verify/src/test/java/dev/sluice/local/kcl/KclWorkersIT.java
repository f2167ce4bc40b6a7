package dev.sluice.local.kcl;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.emulators.LocalAws;
import dev.sluice.emulators.LocalAwsExtension;
import dev.sluice.emulators.ResourceNames;
import dev.sluice.verify.reconcile.KclViewsRun;
import dev.sluice.verify.reconcile.Reconciliation;
import dev.sluice.verify.reconcile.StreamOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Local KCL workers (separate JVMs running the packaged KCL app) on kinesis-mock + dynalite, each
 * scenario reconciled against the producer's ledger: nothing lost, no duplicate effect, per-key
 * order kept in the output stream. A worker killed hard, stopped gracefully or joining mid-stream:
 * {@code KclFaultSuiteIT} (the fault suite's KCL scenarios).
 */
@ExtendWith(LocalAwsExtension.class)
class KclWorkersIT {

    static final Path ROOT = Path.of(System.getProperty("sluice.root"));
    static final Duration READY = Duration.ofSeconds(90);
    static final Duration STALL = Duration.ofSeconds(60);
    static final ObjectMapper MAPPER = new ObjectMapper();

    @Test
    void twoWorkersShareTheShardsOfAFourShardStream(LocalAws aws, ResourceNames names) throws Exception {
        try (KclViewsRun run = KclViewsRun.provision(aws, names, ROOT, false, KclTimings.LOCAL)) {
            var workers = run.workers().start(2, READY);
            // the leader spreads the leases by count once both workers reported; wait until the
            // hand-offs are done and each worker holds its share
            LocalKclWorkers.await(
                    "both workers hold leases",
                    Duration.ofSeconds(60),
                    () -> workers.stream().allMatch(w -> w.leasesHeld() > 0)
                            && run.workers().handoffsPending().isEmpty());
            run.produce(400, 0);
            run.awaitProcessed(STALL);

            assertReconciled(run, 400);
            Map<String, Set<String>> shards = run.shardsByWorker();
            assertThat(shards).as("both workers processed shards").hasSize(2);
            Set<String> all = new HashSet<>();
            shards.values().forEach(all::addAll);
            assertThat(all).hasSize(4);
            // each worker lists the leases it holds, with the checkpoints it wrote
            for (LocalKclWorker worker : workers) {
                assertThat(worker.live()).isTrue();
                JsonNode leases = MAPPER.readTree(worker.leases().orElseThrow());
                assertThat(leases.path("workerId").asText()).isEqualTo(worker.workerId());
                assertThat(leases.path("leases")).isNotEmpty();
                for (JsonNode lease : leases.path("leases")) {
                    assertThat(run.workers().owners().get(lease.path("shardId").asText()))
                            .isEqualTo(worker.workerId());
                    assertThat(List.of(
                                    lease.path("checkpoint").asText(),
                                    lease.path("processed").path("checkpoint").asText()))
                            .as("a sequence number checkpointed in %s", lease)
                            .anyMatch(c -> c.matches("\\d+"));
                }
            }
            System.out.printf("two workers: shards %s, records/s %s%n", shards, run.recordsPerSecondByWorker());
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
}
