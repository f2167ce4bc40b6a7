package dev.sluice.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.aws.access.Access;
import dev.sluice.aws.access.KclAccess;
import dev.sluice.core.definition.DefinitionLoader;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.schema.SchemaCatalog;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the stages of the shipped pipelines declare, from their definitions. */
class StageAccessTest {

    private static PipelineDefinition pipeline(String name) {
        ClassLoader loader = StageAccessTest.class.getClassLoader();
        return new DefinitionLoader(SchemaCatalog.fromClasspath(loader, StageRuntime.mapper()))
                .loadResource(loader, name);
    }

    private static Access on(List<Access> accesses, Access.Target target, String name, String scope) {
        return accesses.stream()
                .filter(a -> a.target() == target
                        && a.name().equals(name)
                        && a.scope().equals(scope))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + target + " " + name + " " + scope + " in " + accesses));
    }

    @Test
    void aLakeIsClaimedThroughTheDeduplicateTableOnlyWhenAShardHasParallelBatches() throws Exception {
        ClassLoader loader = StageAccessTest.class.getClassLoader();
        String payments;
        try (var in = loader.getResourceAsStream("sluice/pipelines/payments.yaml")) {
            payments = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
        // payments without its currency aggregate (not keyed by the partition key), at PF 4
        String parallel = payments.replaceAll("(?s)      - aggregate:\n.*?table: spend-per-currency-hourly\n", "")
                .replace("parallelizationFactor: 1", "parallelizationFactor: 4")
                .replace("reservedConcurrency: 4", "reservedConcurrency: 8");
        PipelineDefinition claimed = new DefinitionLoader(SchemaCatalog.fromClasspath(loader, StageRuntime.mapper()))
                .parse("payments-pf4.yaml", parallel);

        assertThat(dev.sluice.aws.sink.S3LakeSink.claimMode(claimed.stage("validate")))
                .isTrue();
        assertThat(dev.sluice.aws.sink.S3LakeSink.claimMode(pipeline("payments").stage("validate")))
                .isFalse();
        List<Access> validate = StageAccess.of(claimed, "validate");
        // the re-point of an item from a tombstoned object, and no ledger: claim mode never calls it
        assertThat(on(validate, Access.Target.TABLE, "payments-by-id", "").actions())
                .containsExactly("dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem");
        assertThat(validate)
                .noneMatch(a -> a.target() == Access.Target.TABLE && a.name().contains("ledger"));
        assertThat(StageAccess.of(pipeline("payments"), "validate")).anyMatch(a -> a.target() == Access.Target.LEDGER);
    }

    @Test
    void paymentsValidateDeclaresEveryCallOfItsSinksOncePerResource() {
        List<Access> validate = StageAccess.of(pipeline("payments"), "validate");

        assertThat(on(validate, Access.Target.TABLE, "payments-by-id", "").actions())
                .containsExactly("dynamodb:GetItem", "dynamodb:PutItem");
        assertThat(on(validate, Access.Target.TABLE, "spend-per-currency-hourly", "")
                        .actions())
                .containsExactly("dynamodb:GetItem", "dynamodb:UpdateItem");
        assertThat(on(validate, Access.Target.LEDGER, "", "").actions())
                .containsExactly("dynamodb:GetItem", "dynamodb:UpdateItem");
        assertThat(on(validate, Access.Target.OBJECTS, "", "payments/*").actions())
                .containsExactly("s3:GetObject", "s3:PutObject");
        assertThat(on(validate, Access.Target.BUCKET, "", "payments/").actions())
                .containsExactly("s3:ListBucket");
        assertThat(on(validate, Access.Target.OBJECTS, "", "sluice-dead-letters/payments-dlq/*")
                        .actions())
                .containsExactly("s3:PutObject");
        assertThat(on(validate, Access.Target.QUEUE, "payments-dlq", "").actions())
                .containsExactly("sqs:SendMessage");
        assertThat(on(validate, Access.Target.SECRET, "tokenization-key", "").actions())
                .containsExactly("secretsmanager:GetSecretValue");
        // the key uses of one service merge into one declaration
        assertThat(on(validate, Access.Target.KEY, "s3", "").actions()).containsExactly("kms:GenerateDataKey");
        assertThat(on(validate, Access.Target.KEY, "dynamodb", "").actions())
                .containsExactly("kms:Decrypt", "kms:Encrypt", "kms:GenerateDataKey");
        assertThat(validate.stream().filter(a -> a.target() == Access.Target.STREAM))
                .isEmpty();
    }

    @Test
    void clickstreamStagesDeclareTheirHopReferenceAndAggregate() {
        PipelineDefinition clickstream = pipeline("clickstream");
        List<Access> rekey = StageAccess.of(clickstream, "mask-and-rekey");
        List<Access> counts = StageAccess.of(clickstream, "page-counts");

        // the hop aggregates per shard: it lists the shards it packs for
        assertThat(on(rekey, Access.Target.STREAM, "clicks-by-page", "").actions())
                .containsExactlyInAnyOrder("kinesis:ListShards", "kinesis:PutRecords");
        assertThat(on(counts, Access.Target.TABLE, "page-catalogue", "").actions())
                .containsExactly("dynamodb:Scan");
        assertThat(on(counts, Access.Target.TABLE, "page-views-per-minute", "").actions())
                .containsExactly("dynamodb:GetItem", "dynamodb:UpdateItem");
        List<Access> kcl = KclAccess.of("clicks-by-page", "sluice-clickstream-page-counts");
        assertThat(on(kcl, Access.Target.KCL_TABLE, "", KclAccess.COORDINATOR_STATE_SUFFIX)
                        .actions())
                .containsExactly("dynamodb:DescribeTable");
        assertThat(kcl.stream().flatMap(a -> a.actions().stream()))
                .doesNotContain("kinesis:SubscribeToShard", "kinesis:RegisterStreamConsumer");
    }

    @Test
    void anActionMustBeExact() {
        assertThatThrownBy(() -> Access.table("t", "dynamodb:*")).hasMessage("not an exact IAM action: 'dynamodb:*'");
        assertThatThrownBy(() -> Access.table("t")).hasMessage("an access needs at least one action");
    }
}
