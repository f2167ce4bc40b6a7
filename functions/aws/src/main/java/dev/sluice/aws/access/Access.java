package dev.sluice.aws.access;

import java.util.List;
import java.util.Objects;

/**
 * One AWS permission a Sluice component needs: IAM actions (plain strings such as {@code
 * dynamodb:GetItem}) on one resource of the pipeline, named by what the definition calls it — no AWS
 * SDK type, no ARN. infra-cdk turns each into a policy statement on that resource's ARN; the emulator
 * ITs check that every SDK call a component makes is covered by its declarations.
 *
 * @param target the kind of resource
 * @param name the resource's logical name in the definition (stream, table, queue, secret name);
 *     for {@link Target#KEY} the service whose store the key encrypts ({@code kinesis}, {@code
 *     dynamodb}, {@code s3}, {@code sqs}, {@code secretsmanager}); for {@link Target#METRICS} the
 *     namespace; empty for the lake ledger, the lake bucket and the KCL stage's own tables
 * @param scope for {@link Target#OBJECTS} the object key pattern ({@code <prefix>*} or an exact
 *     key); for {@link Target#BUCKET} the {@code s3:prefix} the listing is limited to; for {@link
 *     Target#KCL_TABLE} the table name's suffix after the application name ({@code -CoordinatorState});
 *     for {@link Target#LEASE_TABLE} an index name ({@code index/NAME}) or empty for the table itself;
 *     empty otherwise
 * @param actions the IAM actions, exact names (no wildcards), sorted
 */
public record Access(Target target, String name, String scope, List<String> actions) {

    /** What an access is on. */
    public enum Target {
        /** A Kinesis stream of the definition. */
        STREAM,
        /** A DynamoDB table of the definition. */
        TABLE,
        /** The lake's commit ledger table. */
        LEDGER,
        /** Objects of the pipeline's bucket under a key pattern. */
        OBJECTS,
        /** The pipeline's bucket itself (listing), limited to an {@code s3:prefix}. */
        BUCKET,
        /** An SQS queue of the definition. */
        QUEUE,
        /** A Secrets Manager secret, by the name {@code mask} steps use. */
        SECRET,
        /** The pipeline's KMS key of a store, used only through that store's service ({@code kms:ViaService}). */
        KEY,
        /** The KCL stage's lease table, or one of its indexes. */
        LEASE_TABLE,
        /** A table KCL names after its application ({@code <application><suffix>}), which the stack does not create. */
        KCL_TABLE,
        /** {@code cloudwatch:PutMetricData} in one namespace (the action has no resource type). */
        METRICS
    }

    public Access {
        Objects.requireNonNull(target, "target");
        name = name == null ? "" : name;
        scope = scope == null ? "" : scope;
        actions = actions.stream().distinct().sorted().toList();
        if (actions.isEmpty()) {
            throw new IllegalArgumentException("an access needs at least one action");
        }
        for (String action : actions) {
            if (!action.matches("[a-z0-9-]+:[A-Za-z0-9]+")) {
                throw new IllegalArgumentException("not an exact IAM action: '" + action + "'");
            }
        }
    }

    public static Access stream(String stream, String... actions) {
        return new Access(Target.STREAM, stream, "", List.of(actions));
    }

    public static Access table(String table, String... actions) {
        return new Access(Target.TABLE, table, "", List.of(actions));
    }

    public static Access ledger(String... actions) {
        return new Access(Target.LEDGER, "", "", List.of(actions));
    }

    /** Actions on the objects whose keys match {@code keyPattern} ({@code <prefix>*} or an exact key). */
    public static Access objects(String keyPattern, String... actions) {
        return new Access(Target.OBJECTS, "", keyPattern, List.of(actions));
    }

    /** {@code s3:ListBucket} on the bucket, limited to keys under {@code prefix} ({@code s3:prefix}). */
    public static Access listing(String prefix) {
        return new Access(Target.BUCKET, "", prefix, List.of("s3:ListBucket"));
    }

    public static Access queue(String queue, String... actions) {
        return new Access(Target.QUEUE, queue, "", List.of(actions));
    }

    public static Access secret(String secret, String... actions) {
        return new Access(Target.SECRET, secret, "", List.of(actions));
    }

    /** KMS actions on the key of {@code service}'s store, only in requests that service makes. */
    public static Access key(String service, String... actions) {
        return new Access(Target.KEY, service, "", List.of(actions));
    }

    /** Actions on the KCL stage's lease table ({@code index} empty) or on its index {@code index}. */
    public static Access leaseTable(String index, String... actions) {
        return new Access(Target.LEASE_TABLE, "", index.isEmpty() ? "" : "index/" + index, List.of(actions));
    }

    public static Access kclTable(String suffix, String... actions) {
        return new Access(Target.KCL_TABLE, "", suffix, List.of(actions));
    }

    public static Access metrics(String namespace) {
        return new Access(Target.METRICS, namespace, "", List.of("cloudwatch:PutMetricData"));
    }

    /** The same resource with these actions added. */
    public Access plus(List<String> more) {
        List<String> all = new java.util.ArrayList<>(actions);
        all.addAll(more);
        return new Access(target, name, scope, all);
    }

    /** Whether {@code other} names the same resource (target, name and scope). */
    public boolean sameResource(Access other) {
        return target == other.target && name.equals(other.name) && scope.equals(other.scope);
    }

    @Override
    public String toString() {
        return target + (name.isEmpty() ? "" : " " + name) + (scope.isEmpty() ? "" : " " + scope) + " " + actions;
    }

    /** One access per resource, with the union of the actions declared on it, sorted by resource. */
    public static List<Access> merge(List<Access> accesses) {
        List<Access> merged = new java.util.ArrayList<>();
        for (Access access : accesses) {
            int i = indexOf(merged, access);
            if (i < 0) {
                merged.add(access);
            } else {
                merged.set(i, merged.get(i).plus(access.actions()));
            }
        }
        merged.sort(java.util.Comparator.comparing(Access::target)
                .thenComparing(Access::name)
                .thenComparing(Access::scope));
        return List.copyOf(merged);
    }

    private static int indexOf(List<Access> accesses, Access access) {
        for (int i = 0; i < accesses.size(); i++) {
            if (accesses.get(i).sameResource(access)) {
                return i;
            }
        }
        return -1;
    }
}
