package dev.sluice.local.iam;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.emulators.LocalAws;
import dev.sluice.emulators.LocalAwsExtension;
import dev.sluice.emulators.ResourceNames;
import dev.sluice.emulators.iam.Decision;
import dev.sluice.local.LocalPipeline;
import dev.sluice.local.kcl.KclTimings;
import dev.sluice.local.kcl.LocalKclWorker;
import dev.sluice.local.template.CloudFormationTemplate;
import dev.sluice.verify.reconcile.KclViewsRun;
import dev.sluice.verify.reconcile.Reconciliation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A fan-out KCL worker (a separate JVM acting as the stage's task role, reading with enhanced fan-out
 * through the Kinesis gate) whose role is granted everything fan-out needs except {@code
 * kinesis:SubscribeToShard} registers its consumer and is refused at the gate, each subscription
 * with AccessDenied (counted and logged); granted SubscribeToShard again, it subscribes, reads every
 * shard and the records reconcile.
 */
@ExtendWith(LocalAwsExtension.class)
class KclFanOutGrantRemovalIT {

    private static final Path ROOT = Path.of(System.getProperty("sluice.root"));

    @Test
    void aFanOutWorkerWithoutSubscribeToShardIsDeniedAtTheGateAndReadsOnceGranted(LocalAws aws, ResourceNames names)
            throws Exception {
        assertThat(aws.iamEnforced())
                .as("the local stack enforces IAM by default")
                .isTrue();
        try (KclViewsRun run = KclViewsRun.provision(aws, names, ROOT, true, KclTimings.LOCAL)) {
            LocalPipeline pipeline = run.pipeline();
            AccessModel.Principal taskRole =
                    pipeline.stagePrincipal(KclViewsRun.STAGE).orElseThrow();
            // what provision deployed: the stack's grants plus fan-out's (KclViewsRun#withFanOutGrants)
            CloudFormationTemplate fanOut = KclViewsRun.withFanOutGrants(
                    pipeline.template(), taskRole.logicalId(), KclViewsRun.inputStreamLogicalId(pipeline.template()));
            Grants.Revoked revoked = Grants.revoke(
                    fanOut,
                    taskRole.logicalId(),
                    "kinesis:SubscribeToShard",
                    KclViewsRun.inputStreamLogicalId(pipeline.template()),
                    null);
            assertThat(revoked.statements())
                    .as("the fan-out task role is granted SubscribeToShard on its stream's consumers")
                    .isPositive();

            List<Decision.Denied> denials = new CopyOnWriteArrayList<>();
            AtomicBoolean restored = new AtomicBoolean();
            long deniedBefore = aws.accessControl().denied();
            aws.accessControl().onDenial(decision -> {
                if (decision instanceof Decision.Denied denied
                        && denied.caller().contains("/" + taskRole.roleName() + "/")
                        && denied.action().equals("kinesis:SubscribeToShard")) {
                    denials.add(denied);
                    // let the worker retry a few subscriptions refused before granting it again
                    if (denials.size() >= 3 && restored.compareAndSet(false, true)) {
                        pipeline.deployAccess(fanOut);
                    }
                }
            });
            pipeline.deployAccess(revoked.template());
            List<LocalKclWorker> workers = run.workers().start(1, Duration.ofSeconds(120));
            run.produce(100, 0);
            run.awaitProcessed(Duration.ofSeconds(90));

            assertThat(denials)
                    .as("the worker's SubscribeToShard was denied at the gate")
                    .hasSizeGreaterThanOrEqualTo(3);
            assertThat(denials.get(0).resource())
                    .as("denied on the worker's consumer of its input stream")
                    .contains(":stream/" + run.inputStream() + "/consumer/");
            assertThat(aws.accessControl().denied() - deniedBefore)
                    .as("access_denied counted")
                    .isGreaterThanOrEqualTo(denials.size());
            assertThat(restored).isTrue();
            assertThat(Files.readString(workers.get(0).log()))
                    .as("the worker saw AccessDeniedException")
                    .contains("AccessDeniedException");
            Reconciliation result = run.reconcile();
            assertThat(result.problems()).isEmpty();
            assertThat(KclViewsRun.reconciled(result)).isTrue();
            assertThat(run.workers().checkpoints())
                    .as("every shard read by fan-out once granted")
                    .hasSize(KclViewsRun.INPUT_SHARDS);
        }
    }
}
