package dev.sluice.verify.faults;

import dev.sluice.emulators.LocalAws;
import dev.sluice.emulators.iam.Decision;
import dev.sluice.local.LocalPipeline;
import dev.sluice.local.iam.AccessModel;
import dev.sluice.local.iam.Grants;
import dev.sluice.local.iam.LocalIam;
import dev.sluice.local.template.CloudFormationTemplate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The fault suite's IAM scenarios: a stage that loses a grant mid-run ({@code iam-grant-revoked})
 * and personas attempting what they must not ({@code persona-denied}).
 */
final class IamFaults {

    private static final Logger LOG = LoggerFactory.getLogger(IamFaults.class);
    private static final Set<String> DENIED = Set.of(
            "AccessDeniedException",
            "AccessDenied",
            "KMSAccessDeniedException",
            "KmsAccessDenied",
            "KMS.AccessDeniedException");

    private IamFaults() {}

    /** A grant revoked until the stage's first denial. */
    static final class Revoking implements AutoCloseable {
        private final LocalPipeline pipeline;
        private final CloudFormationTemplate template;
        private final String action;
        private final AtomicLong denials = new AtomicLong();
        private final List<String> problems = new ArrayList<>();
        private AutoCloseable listener = () -> {};

        Revoking(LocalPipeline pipeline, CloudFormationTemplate template, String action) {
            this.pipeline = pipeline;
            this.template = template;
            this.action = action;
        }

        /** What went wrong: never denied, or no failed batch in the stage's metrics. */
        List<String> problems(long failedBatches) {
            List<String> out = new ArrayList<>(problems);
            if (problems.isEmpty() && denials.get() == 0) {
                out.add("the stage was never denied " + action + " while its grant was revoked");
            }
            if (problems.isEmpty() && failedBatches == 0) {
                out.add("the stage's FailedBatches metric shows no failed batch while " + action + " was denied");
            }
            return out;
        }

        @Override
        public void close() {
            try {
                listener.close();
            } catch (Exception e) {
                LOG.debug("removing the denial listener failed", e);
            }
            if (template != null) {
                pipeline.deployAccess(template);
            }
        }
    }

    /**
     * Revokes {@code plan}'s grant from the stage's role now and restores it at the first denial of
     * that action to that role.
     */
    static Revoking revoke(LocalAws aws, LocalPipeline pipeline, String stage, FaultPlan plan) {
        FaultPlan.Revocation revocation = plan.revocation();
        Revoking revoking;
        if (!aws.iamEnforced() || pipeline.stagePrincipal(stage).isEmpty()) {
            revoking = new Revoking(pipeline, null, revocation.action());
            revoking.problems.add("IAM is not enforced (--iam off / SLUICE_IAM=off): no grant to revoke");
            return revoking;
        }
        CloudFormationTemplate template =
                CloudFormationTemplate.synthesize(pipeline.resources().definition());
        AccessModel.Principal role = pipeline.stagePrincipal(stage).orElseThrow();
        String resource = template.resources().values().stream()
                .filter(r -> r.kind().orElse("").equals(revocation.resourceKind())
                        && r.name().orElse("").equals(revocation.resourceName()))
                .map(CloudFormationTemplate.Resource::logicalId)
                .findFirst()
                .orElse(null);
        revoking = new Revoking(pipeline, template, revocation.action());
        if (resource == null) {
            revoking.problems.add("the template has no " + revocation.resourceKind() + " " + revocation.resourceName());
            return revoking;
        }
        Grants.Revoked revoked = Grants.revoke(template, role.logicalId(), revocation.action(), resource, null);
        if (revoked.statements() == 0) {
            revoking.problems.add("the template grants the stage no " + revocation.action() + " on "
                    + revocation.resourceName() + ": nothing to revoke");
            return revoking;
        }
        AtomicBoolean restored = new AtomicBoolean();
        Revoking target = revoking;
        revoking.listener = aws.accessControl().onDenial(decision -> {
            if (decision instanceof Decision.Denied denied
                    && denied.action().equals(revocation.action())
                    && denied.caller().contains("/" + role.roleName() + "/")) {
                target.denials.incrementAndGet();
                if (restored.compareAndSet(false, true)) {
                    pipeline.deployAccess(template);
                    plan.actionDone();
                    LOG.info("{} denied to {}: grant restored", revocation.action(), role.roleName());
                }
            }
        });
        pipeline.deployAccess(revoked.template());
        return revoking;
    }

    /** One thing a persona must not do. */
    private record Attempt(String persona, String what, java.util.function.Consumer<AwsCredentialsProvider> call) {}

    /**
     * Each persona attempts what it must not; every attempt must fail with AWS's AccessDenied and be
     * counted (logged) by the gates. Returns the problems.
     */
    static List<String> personasAttemptForbidden(LocalAws aws, LocalPipeline pipeline) {
        List<String> problems = new ArrayList<>();
        if (!aws.iamEnforced() || pipeline.accessModel().isEmpty()) {
            problems.add("IAM is not enforced (--iam off / SLUICE_IAM=off): personas are not checked");
            return problems;
        }
        var resources = pipeline.resources();
        String raw = resources.streams().get("payments-raw");
        String table = resources.tables().get("payments-by-id");
        String dlq = resources.queueUrls().get("payments-dlq");
        String shard =
                aws.kinesis().listShards(b -> b.streamName(raw)).shards().get(0).shardId();
        List<Attempt> attempts = List.of(
                new Attempt(
                        "analyst",
                        "read the restricted raw stream",
                        as -> aws.kinesis(as)
                                .getShardIterator(
                                        b -> b.streamName(raw).shardId(shard).shardIteratorType("TRIM_HORIZON"))),
                new Attempt(
                        "analyst",
                        "receive from the dead-letter queue",
                        as -> aws.sqs(as).receiveMessage(b -> b.queueUrl(dlq))),
                new Attempt(
                        "analyst",
                        "write the serving table",
                        as -> aws.dynamoDb(as)
                                .putItem(b -> b.tableName(table).item(Map.of("pk", AttributeValue.fromS("forged"))))),
                new Attempt(
                        "pipeline-developer",
                        "read the restricted raw stream",
                        as -> aws.kinesis(as)
                                .getShardIterator(
                                        b -> b.streamName(raw).shardId(shard).shardIteratorType("TRIM_HORIZON"))),
                new Attempt(
                        "pipeline-developer",
                        "receive from the dead-letter queue",
                        as -> aws.sqs(as).receiveMessage(b -> b.queueUrl(dlq))),
                new Attempt(
                        "source-operator",
                        "scan the serving table",
                        as -> aws.dynamoDb(as).scan(b -> b.tableName(table))),
                new Attempt(
                        "source-operator",
                        "list the lake",
                        as -> aws.s3(as)
                                .listObjectsV2(b -> b.bucket(resources.bucket()).prefix("payments/"))),
                new Attempt(
                        "viewer",
                        "write the raw stream",
                        as -> aws.kinesis(as)
                                .putRecord(
                                        b -> b.streamName(raw).partitionKey("k").data(SdkBytes.fromUtf8String("{}")))),
                new Attempt(
                        "viewer",
                        "read the serving table",
                        as -> aws.dynamoDb(as)
                                .getItem(b -> b.tableName(table).key(Map.of("pk", AttributeValue.fromS("x"))))));
        long before = aws.accessControl().denied();
        int denied = 0;
        for (Attempt attempt : attempts) {
            if (!pipeline.accessModel().get().personas().containsKey(attempt.persona())) {
                problems.add("no persona role " + attempt.persona() + " in the template");
                continue;
            }
            AwsCredentialsProvider as = pipeline.personaCredentials(attempt.persona());
            try {
                attempt.call().accept(as);
                problems.add(attempt.persona() + " could " + attempt.what());
            } catch (AwsServiceException e) {
                String code =
                        e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
                if (DENIED.contains(code)) {
                    denied++;
                } else {
                    problems.add(attempt.persona() + " trying to " + attempt.what() + " got " + code
                            + " instead of AccessDenied: " + e.getMessage());
                }
            }
        }
        long logged = aws.accessControl().denied() - before;
        if (logged < denied) {
            problems.add(denied + " attempts denied but only " + logged + " denials logged");
        }
        int deniedAttempts = denied;
        LocalIam.summaryOf(aws)
                .ifPresent(summary -> LOG.info(
                        "persona-denied: {} of {} attempts denied; {}", deniedAttempts, attempts.size(), summary));
        return problems;
    }
}
