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

    static void assertReconciled(KclViewsRun run, int produced) {
        Reconciliation r = run.reconcile();
        assertThat(r.problems()).isEmpty();
        assertThat(r.produced()).isEqualTo(produced);
        assertThat(KclViewsRun.reconciled(r)).as("reconciled: %s", r).isTrue();
        StreamOrder.Result order = run.order();
        assertThat(order.examples()).isEmpty();
        assertThat(order.violations()).isZero();
        assertThat(order.forwarded()).isEqualTo(r.table());
    }

    static Instant now() {
        return Instant.now();
    }
}
