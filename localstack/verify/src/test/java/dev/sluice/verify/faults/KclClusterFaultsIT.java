package dev.sluice.verify.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.emulators.LocalAws;
import dev.sluice.emulators.LocalAwsExtension;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The fault suite's partial-cluster KCL scenarios at CI size ({@code ./sluice faults} runs them with
 * more workers): a zombie worker, a partition that heals, a worker cut off S3, scale out under load —
 * each reconciled, in order, and free of state regressions while sampled. {@code kcl-scale-in} (4 → 2
 * under load, SIGTERM then SIGKILL) runs in {@code ./sluice faults} only, to keep CI under 30 minutes
 * on 2 cores: in CI, {@code KclFaultSuiteIT}'s graceful hand-over and hard kill cover the same exits
 * without the steady load.
 */
@ExtendWith(LocalAwsExtension.class)
class KclClusterFaultsIT {

    private static final Path ROOT = Path.of(System.getProperty("sluice.root"));
    private static final int EVENTS = 300;

    @Test
    void aZombieThatLostItsLeaseTableIsTakenOverAndItsLateWritesAreAbsorbed(LocalAws aws) {
        KclClusterFaults.ClusterRow result = new KclClusterFaults(aws, ROOT, 2, 4).run(KclClusterFaults.ZOMBIE, EVENTS);

        assertPassed(result);
        assertThat(result.takeoverSeconds()).as("takeover measured").isPresent();
        KclClusterFaults.LateWrites late = result.lateWrites().orElseThrow();
        assertThat(late.writes()).as("late writes landed").isPositive();
        assertThat(late.applied()).as("late writes that took effect").isZero();
        assertThat(late.refused()).isEqualTo(late.writes());
        System.out.printf(
                "kcl-zombie: takeover %.1f s, %d requests held, %d late writes refused (%s)%n",
                result.takeoverSeconds().get(), late.held(), late.refused(), late.outcomes());
    }

    @Test
    void aPartitionThatHealsMidBatchLosesNothingAndAppliesNothingTwice(LocalAws aws) {
        assertPassed(new KclClusterFaults(aws, ROOT, 2, 4).run(KclClusterFaults.HEALS, EVENTS));
    }

    @Test
    void aWorkerCutOffS3HoldsItsShardsWithoutSkippingAndRecovers(LocalAws aws) {
        assertPassed(new KclClusterFaults(aws, ROOT, 2, 4).run(KclClusterFaults.SINK, EVENTS));
    }

    @Test
    void workersAddedUnderLoadShareTheShardsWithoutLossOrDuplicateEffect(LocalAws aws) {
        KclClusterFaults.ClusterRow result =
                new KclClusterFaults(aws, ROOT, 2, 4).run(KclClusterFaults.SCALE_OUT, EVENTS);

        assertPassedUnderLoad(result);
        assertThat(result.takeoverSeconds()).as("hand-off measured").isPresent();
        print(result);
    }

    /**
     * A scale scenario: its first {@code EVENTS / 2} page views, then a paced producer from before the
     * change until after the hand-off; the same checks on whatever it produced, and a dip measured.
     */
    private static void assertPassedUnderLoad(KclClusterFaults.ClusterRow result) {
        FaultSuite.Row row = result.row();
        assertThat(row.problems()).as("problems of %s", row.scenario()).isEmpty();
        assertThat(result.regressions()).isEmpty();
        KclClusterFaults.ScaleLoad load = KclClusterFaults.ScaleLoad.CI;
        long steadyEvents =
                (long) (load.rate() * (load.before().toSeconds() + load.after().toSeconds()));
        assertThat(row.events()).isGreaterThan(EVENTS / 2 + steadyEvents / 2);
        assertThat(row.lost()).isZero();
        assertThat(row.duplicateEffects()).isZero();
        assertThat(row.orderViolations()).isZero();
        assertThat(row.effects()).isEqualTo(row.events());
        assertThat(row.deadLettered()).isEqualTo(row.events() / 50);
        assertThat(row.faultsFired()).isEqualTo(row.faultsPlanned());
        assertThat(result.scale()).isPresent();
        assertThat(result.scale().get().dip())
                .as("dip measured while the producer ran")
                .isPresent();
        assertThat(result.dipPercent()).isPresent();
    }

    private static void print(KclClusterFaults.ClusterRow result) {
        KclClusterFaults.ScaleFigures f = result.scale().orElseThrow();
        ThroughputDip d = f.dip().orElseThrow();
        System.out.printf(
                java.util.Locale.ROOT,
                "%s: %d events, %.0f/s asked, %.1f/s put, hand-off %.1f s, takeover %s, processed %.1f/s before"
                        + " (lowest window %.1f/s), lowest after %.1f/s over %d windows, dip %.0f %%, per window"
                        + " after: %s%n",
                result.row().scenario(),
                result.row().events(),
                f.rate(),
                f.producedPerSecond(),
                f.handoffSeconds(),
                result.takeoverSeconds()
                        .map(t -> String.format(java.util.Locale.ROOT, "%.1f s", t))
                        .orElse("-"),
                d.beforePerSecond(),
                d.beforeLowestPerSecond(),
                d.lowestPerSecond(),
                d.windows(),
                d.percent(),
                d.afterWindows());
    }

    private static void assertPassed(KclClusterFaults.ClusterRow result) {
        FaultSuite.Row row = result.row();
        assertThat(row.problems()).as("problems of %s", row.scenario()).isEmpty();
        assertThat(result.regressions()).isEmpty();
        assertThat(row.events()).isEqualTo(EVENTS);
        assertThat(row.lost()).isZero();
        assertThat(row.duplicateEffects()).isZero();
        assertThat(row.orderViolations()).isZero();
        assertThat(row.effects()).isEqualTo(EVENTS);
        assertThat(row.deadLettered()).isEqualTo(EVENTS / 50);
        assertThat(row.faultsFired()).isEqualTo(row.faultsPlanned());
    }
}
