package dev.sluice.local.iam;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.definition.DefinitionLoader;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.schema.SchemaCatalog;
import dev.sluice.emulators.LocalAws;
import dev.sluice.emulators.LocalAwsExtension;
import dev.sluice.emulators.ResourceNames;
import dev.sluice.emulators.iam.Decision;
import dev.sluice.generators.GeneratedEvent;
import dev.sluice.generators.PaymentGenerator;
import dev.sluice.local.LocalPipeline;
import dev.sluice.local.template.CloudFormationTemplate;
import dev.sluice.verify.reconcile.AggregateCheck;
import dev.sluice.verify.reconcile.LedgerEntry;
import dev.sluice.verify.reconcile.Producer;
import dev.sluice.verify.reconcile.Reconciler;
import dev.sluice.verify.reconcile.Reconciliation;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Removing a single grant the payments stage needs from its synthesized template makes the stage
 * fail at that very call with AWS's AccessDenied, as its role; the records are not lost: they are
 * retried, and once the grant is back (restored the moment the first denial is seen, within the
 * stage's retry budget) they drain and the run reconciles. Runs on the real emulators behind the
 * access gates, with the real policy evaluator.
 */
@ExtendWith(LocalAwsExtension.class)
class GrantRemovalIT {

    private static final Path ROOT = Path.of(System.getProperty("sluice.root"));
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private static PipelineDefinition payments() {
        return new DefinitionLoader(SchemaCatalog.fromDirectory(ROOT.resolve("schemas"), MAPPER))
                .load(ROOT.resolve("pipelines/payments.yaml"));
    }

    private static List<GeneratedEvent> events(long seed, int n, double invalidShare) {
        PaymentGenerator generator =
                new PaymentGenerator(seed, 10_000, invalidShare, Instant.now().minusSeconds(600));
        List<GeneratedEvent> events = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            events.add(generator.next());
        }
        return events;
    }

    private static String logicalId(CloudFormationTemplate template, String kind, String name) {
        return template.resources().values().stream()
                .filter(r -> r.kind().orElse("").equals(kind)
                        && (name == null || r.name().orElse("").equals(name)))
                .map(CloudFormationTemplate.Resource::logicalId)
                .findFirst()
                .orElseThrow(() -> new AssertionError("the template has no " + kind + " " + name));
    }

    @Test
    void lakePutObjectRemovedFailsTheStageAtPutObjectAndLosesNothing(LocalAws aws, ResourceNames names) {
        CloudFormationTemplate template = CloudFormationTemplate.synthesize(payments());
        runWithout(
                aws,
                names,
                template,
                "s3:PutObject",
                logicalId(template, "lake-bucket", null),
                "/payments/*",
                events(11, 120, 0),
                false);
    }

    @Test
    void deadLetterSendMessageRemovedFailsTheStageAtSendMessageAndLosesNothing(LocalAws aws, ResourceNames names) {
        CloudFormationTemplate template = CloudFormationTemplate.synthesize(payments());
        runWithout(
                aws,
                names,
                template,
                "sqs:SendMessage",
                logicalId(template, "queue", "payments-dlq"),
                null,
                events(12, 120, 0.2),
                false);
    }

    @Test
    void dedupGetItemRemovedFailsTheStageAtGetItemAndLosesNothing(LocalAws aws, ResourceNames names) {
        CloudFormationTemplate template = CloudFormationTemplate.synthesize(payments());
        // the stage reads the deduplicate table after every refused write: a producer re-send
        runWithout(
                aws,
                names,
                template,
                "dynamodb:GetItem",
                logicalId(template, "table", payments().stage("validate").deduplicate()),
                null,
                events(13, 60, 0),
                true);
    }

    private void runWithout(
            LocalAws aws,
            ResourceNames names,
            CloudFormationTemplate template,
            String action,
            String resourceLogicalId,
            String resourceText,
            List<GeneratedEvent> events,
            boolean resend) {
        assertThat(aws.iamEnforced())
                .as("the local stack enforces IAM by default")
                .isTrue();
        try (LocalPipeline pipeline = LocalPipeline.provision(aws, payments(), names, ROOT)) {
            AccessModel.Principal stageRole =
                    pipeline.stagePrincipal("validate").orElseThrow();
            Grants.Revoked revoked =
                    Grants.revoke(template, stageRole.logicalId(), action, resourceLogicalId, resourceText);
            assertThat(revoked.statements())
                    .as("the synthesized template grants %s on %s to the stage's role", action, resourceLogicalId)
                    .isPositive();
            String role = stageRole.arn();
            String roleName = role.substring(role.lastIndexOf('/') + 1);
            List<Decision.Denied> denials = new CopyOnWriteArrayList<>();
            AtomicBoolean restored = new AtomicBoolean();
            aws.accessControl().onDenial(decision -> {
                if (decision instanceof Decision.Denied denied
                        && denied.action().equals(action)
                        && denied.caller().contains("/" + roleName + "/")) {
                    denials.add(denied);
                    if (restored.compareAndSet(false, true)) {
                        pipeline.deployAccess(template); // the grant is back from the next call on
                    }
                }
            });
            pipeline.deployAccess(revoked.template());
            pipeline.start(Optional.of(Duration.ZERO));
            String stream = pipeline.resources().streams().get("payments-raw");
            Producer producer = new Producer(pipeline.producerKinesis(), stream);
            List<LedgerEntry> ledger;
            if (resend) {
                // first time with the grant (nothing to read: no refused write), then the re-send
                pipeline.deployAccess(template);
                ledger = producer.send(events, n -> {});
                await().atMost(Duration.ofSeconds(90)).until(() -> pipeline.acknowledged() >= ledger.size());
                pipeline.deployAccess(revoked.template());
                List<LedgerEntry> again = producer.send(events, n -> {});
                await().atMost(Duration.ofSeconds(90))
                        .until(() -> pipeline.acknowledged() >= ledger.size() + again.size());
            } else {
                ledger = producer.send(events, n -> {});
                await().atMost(Duration.ofSeconds(90)).until(() -> pipeline.acknowledged() >= ledger.size());
            }

            assertThat(denials).as("the stage was denied %s", action).isNotEmpty();
            Decision.Denied first = denials.get(0);
            assertThat(first.message())
                    .startsWith("User: arn:aws:sts::" + aws.accountId() + ":assumed-role/" + roleName + "/")
                    .contains(" is not authorized to perform: " + action + " on resource: ")
                    .contains("because no identity-based policy allows the " + action + " action");

            var r = pipeline.resources();
            Reconciliation result = new Reconciler(aws.s3(), aws.dynamoDb(), aws.sqs())
                    .reconcile(
                            ledger,
                            r.bucket(),
                            "payments/",
                            r.tables().get("payments-by-id"),
                            r.queueUrls().get("payments-dlq"),
                            AggregateCheck.of(payments().stage("validate"), r.tables()));
            assertThat(result.problems()).isEmpty();
            assertThat(result.lost()).isZero();
            assertThat(result.duplicates()).isZero();
            assertThat(result.reconciled()).isTrue();
        }
    }
}
