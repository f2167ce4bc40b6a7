package dev.sluice.verify.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.emulators.LocalAws;
import dev.sluice.emulators.LocalAwsExtension;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The fault suite's partial-cluster KCL scenarios at CI size ({@code ./sluice faults} runs them with
 * more workers): a zombie worker, a partition that heals, a worker cut off S3, scale out and in under
 * load — each reconciled, in order, and free of state regressions while sampled.
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
        System.out.printf(
                "kcl-zombie: takeover %.1f s%n", result.takeoverSeconds().get());
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
        assertPassed(result);
        System.out.printf(
                "kcl-scale-out: hand-off %.1f s, dip %s%n",
                result.takeoverSeconds().orElse(-1.0), result.dipPercent());
    }

    @Test
    void workersLeavingUnderLoadHandTheirShardsToTheRest(LocalAws aws) {
        KclClusterFaults.ClusterRow result =
                new KclClusterFaults(aws, ROOT, 2, 4).run(KclClusterFaults.SCALE_IN, EVENTS);
        assertPassed(result);
        assertThat(result.takeoverSeconds()).as("takeover after the SIGKILL").isPresent();
        System.out.printf(
                "kcl-scale-in: takeover %.1f s, dip %s%n",
                result.takeoverSeconds().get(), result.dipPercent());
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
