package dev.sluice.verify.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.emulators.LocalAws;
import dev.sluice.emulators.LocalAwsExtension;
import dev.sluice.local.kcl.LocalKclWorker;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The fault suite's KCL scenarios ({@code ./sluice faults}): two local KCL workers (separate JVMs) on
 * a four-shard stream, one killed hard or stopped gracefully; each reconciled (nothing lost, no
 * duplicate effect, per-key order in the output stream), plus what each scenario promises about the
 * leases. The third, {@code kcl-worker-joins} (a worker joining mid-stream takes a share of the leases
 * while the first keeps processing), runs in {@code ./sluice faults} only: in CI {@code
 * KclClusterFaultsIT}'s scale-out checks the same under a steady load and more strictly (every added
 * worker holds a lease, no 5-s window without a processed record).
 */
@ExtendWith(LocalAwsExtension.class)
class KclFaultSuiteIT {

    private static final Path ROOT = Path.of(System.getProperty("sluice.root"));
    private static final int EVENTS = 300;

    @Test
    void aWorkerKilledHardMidStreamLosesEveryLeaseToTheOtherWhichFinishes(LocalAws aws) {
        KclFaultSuite.KclRow result = new KclFaultSuite(aws, ROOT).run(KclFaultSuite.KILLED, EVENTS, run -> {
            List<String> problems = new ArrayList<>();
            LocalKclWorker survivor = run.workers().workers().get(1);
            if (!run.workers().owners().values().stream().allMatch(survivor.workerId()::equals)
                    || run.workers().owners().size() != 4) {
                problems.add("the survivor does not own every lease: "
                        + run.workers().owners());
            }
            return problems;
        });

        assertPassed(result.row());
        assertThat(result.takeoverSeconds()).as("takeover measured").isPresent();
        System.out.printf(
                "kcl-worker-killed: takeover %.1f s%n", result.takeoverSeconds().get());
    }

    @Test
    void gracefulShutdownHandsTheLeasesOverWithNoReprocessingBeyondTheInFlightBatch(LocalAws aws) {
        KclFaultSuite.KclRow result = new KclFaultSuite(aws, ROOT).run(KclFaultSuite.GRACEFUL, EVENTS, run -> {
            List<String> problems = new ArrayList<>();
            LocalKclWorker survivor = run.workers().workers().get(1);
            if (!run.workers().owners().values().stream().allMatch(survivor.workerId()::equals)) {
                problems.add("the survivor does not own every lease: "
                        + run.workers().owners());
            }
            // the leaving worker checkpointed every batch it finished: at most one in-flight batch
            // (batch size 100) per shard is delivered again
            long copies = run.order().copies();
            if (copies > 100L * 4) {
                problems.add(copies + " records forwarded twice: more than one batch per shard");
            }
            return problems;
        });

        assertPassed(result.row());
        assertThat(result.row().absorbed()).isLessThanOrEqualTo(400);
        assertThat(result.takeoverSeconds()).isPresent();
        System.out.printf(
                "kcl-graceful-handover: takeover %.1f s, absorbed %d%n",
                result.takeoverSeconds().get(), result.row().absorbed());
    }

    private static void assertPassed(FaultSuite.Row row) {
        assertThat(row.problems()).as("problems of %s", row.scenario()).isEmpty();
        assertThat(row.events()).isEqualTo(EVENTS);
        assertThat(row.lost()).isZero();
        assertThat(row.duplicateEffects()).isZero();
        assertThat(row.orderViolations()).isZero();
        assertThat(row.effects()).isEqualTo(EVENTS);
        assertThat(row.deadLettered()).isEqualTo(EVENTS / 50);
        assertThat(row.faultsFired()).isEqualTo(row.faultsPlanned());
        assertThat(row.deliveries()).isGreaterThanOrEqualTo(EVENTS);
    }
}
