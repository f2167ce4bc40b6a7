package dev.sluice.local.iam;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.emulators.LocalAws;
import dev.sluice.emulators.LocalAwsExtension;
import dev.sluice.emulators.ResourceNames;
import dev.sluice.emulators.iam.Decision;
import dev.sluice.local.LocalPipeline;
import dev.sluice.local.kcl.KclTimings;
import dev.sluice.local.template.CloudFormationTemplate;
import dev.sluice.verify.reconcile.KclViewsRun;
import dev.sluice.verify.reconcile.Reconciliation;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Removing the KCL task role's {@code dynamodb:UpdateItem} on its lease table (taking, renewing and
 * checkpointing a lease are all UpdateItems) makes the local KCL worker — a separate JVM acting as
 * the task role — fail at that call with AccessDenied; restored, the worker takes its leases and
 * the records drain and reconcile.
 */
@ExtendWith(LocalAwsExtension.class)
class KclLeaseGrantRemovalIT {

    private static final Path ROOT = Path.of(System.getProperty("sluice.root"));

    @Test
    void leaseTableUpdateItemRemovedFailsTheWorkerAtTheLeaseTableAndLosesNothing(LocalAws aws, ResourceNames names) {
        assertThat(aws.iamEnforced())
                .as("the local stack enforces IAM by default")
                .isTrue();
        try (KclViewsRun run = KclViewsRun.provision(aws, names, ROOT, false, KclTimings.LOCAL)) {
            LocalPipeline pipeline = run.pipeline();
            CloudFormationTemplate template =
                    CloudFormationTemplate.synthesize(pipeline.resources().definition());
            AccessModel.Principal taskRole =
                    pipeline.stagePrincipal(KclViewsRun.STAGE).orElseThrow();
            String leaseTable = template.resources().values().stream()
                    .filter(r -> r.kind().orElse("").equals("kcl-lease-table"))
                    .map(CloudFormationTemplate.Resource::logicalId)
                    .findFirst()
                    .orElseThrow();
            Grants.Revoked revoked =
                    Grants.revoke(template, taskRole.logicalId(), "dynamodb:UpdateItem", leaseTable, null);
            assertThat(revoked.statements())
                    .as("the task role is granted UpdateItem on its lease table")
                    .isPositive();

            List<Decision.Denied> denials = new CopyOnWriteArrayList<>();
            AtomicBoolean restored = new AtomicBoolean();
            aws.accessControl().onDenial(decision -> {
                if (decision instanceof Decision.Denied denied
                        && denied.caller().contains("/" + taskRole.roleName() + "/")
                        && denied.action().equals("dynamodb:UpdateItem")) {
                    denials.add(denied);
                    if (restored.compareAndSet(false, true)) {
                        pipeline.deployAccess(template);
                    }
                }
            });
            pipeline.deployAccess(revoked.template());
            run.workers().start(1, Duration.ofSeconds(120));
            run.produce(100, 0);
            run.awaitProcessed(Duration.ofSeconds(90));

            assertThat(denials)
                    .as("the worker was denied UpdateItem on its lease table")
                    .isNotEmpty();
            assertThat(denials.get(0).resource())
                    .endsWith(":table/" + run.workers().leaseTable());
            Reconciliation result = run.reconcile();
            assertThat(result.problems()).isEmpty();
            assertThat(KclViewsRun.reconciled(result)).isTrue();
        }
    }
}
