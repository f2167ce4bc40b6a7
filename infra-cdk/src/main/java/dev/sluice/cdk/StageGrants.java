package dev.sluice.cdk;

import dev.sluice.aws.access.Access;
import java.util.List;
import java.util.Map;
import software.amazon.awscdk.ArnComponents;
import software.amazon.awscdk.ArnFormat;
import software.amazon.awscdk.services.dynamodb.Table;
import software.amazon.awscdk.services.iam.IGrantable;
import software.amazon.awscdk.services.iam.PolicyStatement;
import software.amazon.awscdk.services.s3.Bucket;

/**
 * Turns the {@link Access} declarations of a stage's code (sluice-aws's {@code StageAccess}, {@code
 * KclAccess}) into identity-policy statements on exactly the stage's resources: one statement per
 * declared resource, with exactly the declared actions. Keys are granted only through their service
 * ({@code kms:ViaService}); listing the bucket only under the declared {@code s3:prefix}; metrics only
 * in the declared namespace. Nothing is granted that was not declared.
 */
final class StageGrants {

    private final PipelineStack stack;
    private final Table leaseTable;
    private final String application;

    /**
     * @param leaseTable the KCL stage's lease table, {@code null} for a Lambda stage
     * @param application the KCL application name, {@code null} for a Lambda stage
     */
    StageGrants(PipelineStack stack, Table leaseTable, String application) {
        this.stack = stack;
        this.leaseTable = leaseTable;
        this.application = application;
    }

    /** Adds one statement per access to the grantee's policy. */
    void grant(IGrantable grantee, List<Access> accesses) {
        accesses.forEach(access -> grantee.getGrantPrincipal().addToPrincipalPolicy(statement(access)));
    }

    /** The statement granting {@code access}. */
    PolicyStatement statement(Access access) {
        PolicyStatement.Builder statement = PolicyStatement.Builder.create().actions(access.actions());
        switch (access.target()) {
            case STREAM ->
                statement.resources(List.of(stack.getStream(access.name()).getStreamArn()));
            case TABLE ->
                statement.resources(List.of(stack.getTable(access.name()).getTableArn()));
            case LEDGER ->
                statement.resources(List.of(stack.getLedgerTable()
                        .orElseThrow(() -> missing("a lake ledger table"))
                        .getTableArn()));
            case OBJECTS -> statement.resources(List.of(bucket().arnForObjects(access.scope())));
            case BUCKET ->
                statement
                        .resources(List.of(bucket().getBucketArn()))
                        .conditions(Map.of("StringLike", Map.of("s3:prefix", List.of(access.scope() + "*"))));
            case QUEUE ->
                statement.resources(List.of(stack.getQueue(access.name()).getQueueArn()));
            case SECRET ->
                statement.resources(List.of(stack.getSecret(access.name()).getSecretArn()));
            case KEY -> {
                PipelineKeys.Use use = PipelineKeys.Use.forService(access.name());
                statement
                        .resources(List.of(stack.getKey(use).getKeyArn()))
                        .conditions(Map.of(
                                "StringEquals",
                                Map.of("kms:ViaService", access.name() + "." + stack.getRegion() + ".amazonaws.com")));
            }
            case LEASE_TABLE -> {
                if (leaseTable == null) {
                    throw missing("a KCL lease table (not a KCL stage)");
                }
                statement.resources(List.of(
                        access.scope().isEmpty()
                                ? leaseTable.getTableArn()
                                : leaseTable.getTableArn() + "/" + access.scope()));
            }
            case KCL_TABLE ->
                statement.resources(List.of(stack.formatArn(ArnComponents.builder()
                        .service("dynamodb")
                        .resource("table")
                        .resourceName(application(access) + access.scope())
                        .arnFormat(ArnFormat.SLASH_RESOURCE_NAME)
                        .build())));
            case METRICS ->
                statement
                        .resources(List.of("*"))
                        .conditions(Map.of("StringEquals", Map.of("cloudwatch:namespace", access.name())));
        }
        return statement.build();
    }

    private String application(Access access) {
        if (application == null) {
            throw missing("a KCL application for " + access);
        }
        return application;
    }

    private Bucket bucket() {
        return stack.getLakeBucket().orElseThrow(() -> missing("a bucket"));
    }

    private IllegalStateException missing(String what) {
        return new IllegalStateException("pipeline '" + stack.getDefinition().pipeline() + "' has no " + what);
    }
}
