package dev.sluice.lambda.snapstart;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.aws.StageRuntime;
import dev.sluice.aws.priming.StagePriming;
import dev.sluice.aws.priming.SyntheticEvent;
import dev.sluice.core.definition.DefinitionLoader;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.schema.SchemaCatalog;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The SnapStart hook primes a stage with no emulator, no network and no credentials (the
 * environment below has no AWS variable at all), and re-seeds the random source after a restore.
 */
class SnapStartPrimingTest {

    private static final ObjectMapper MAPPER = StageRuntime.mapper();

    private static PipelineDefinition pipeline(String name) {
        ClassLoader loader = SnapStartPrimingTest.class.getClassLoader();
        return new DefinitionLoader(SchemaCatalog.fromClasspath(loader, MAPPER)).loadResource(loader, name);
    }

    @Test
    void beforeCheckpointRunsASyntheticBatchThroughTheChainAndSendsTheSinksRequestsToALoopbackServer() {
        SnapStartPriming priming = new SnapStartPriming(pipeline("payments"), "validate", Map.of(), new SecureRandom());

        priming.beforeCheckpoint(null);

        assertThat(priming.primed()).hasValueSatisfying(primed -> {
            assertThat(primed.records()).isEqualTo(SnapStartPriming.PRIMING_RECORDS);
            // the synthetic event passes validation, so masking and the aggregator ran; the
            // malformed one primed the dead-letter path
            assertThat(primed.accepted())
                    .as("accepted; dead letters: %s", primed.deadLetters())
                    .isEqualTo(SnapStartPriming.PRIMING_RECORDS - 1);
            assertThat(primed.deadLetters()).singleElement().asString().startsWith("MALFORMED_JSON");
            // DynamoDB put, update and get, the S3 put, the SQS batch and (payments masks) Secrets
            // Manager, each sent over the loopback interface through the stage's HTTP client and answered
            // in a shape the SDK accepted
            assertThat(primed.sdkCalls())
                    .containsExactly(
                            "DynamoDB_20120810.PutItem",
                            "DynamoDB_20120810.UpdateItem",
                            "DynamoDB_20120810.GetItem",
                            "S3 PUT",
                            "AmazonSQS.SendMessageBatch",
                            "secretsmanager.GetSecretValue");
            assertThat(primed.sdkErrors()).isEmpty();
        });
    }

    @Test
    void aStageThatFiltersAndWritesAStreamPrimesItsExpressionsAndTheKinesisClient() {
        SnapStartPriming priming =
                new SnapStartPriming(pipeline("clickstream"), "mask-and-rekey", Map.of(), new SecureRandom());

        StagePriming.Primed primed = priming.prime();

        assertThat(primed.records()).isEqualTo(SnapStartPriming.PRIMING_RECORDS);
        assertThat(primed.accepted())
                .as("accepted; dead letters: %s", primed.deadLetters())
                .isPositive();
        // DynamoDB ×3, S3, SQS, Kinesis PutRecords, Secrets Manager
        assertThat(primed.sdkRequests()).isEqualTo(7);
        assertThat(primed.sdkCalls()).contains("Kinesis_20131202.PutRecords");
        assertThat(primed.sdkErrors()).isEmpty();
    }

    @Test
    void afterRestoreReseedsTheRandomSourceSoRestoredCopiesDiffer() throws Exception {
        // two copies of one snapshot: the same generator state in each
        SecureRandom first = SecureRandom.getInstance("SHA1PRNG");
        SecureRandom second = SecureRandom.getInstance("SHA1PRNG");
        first.setSeed(42L);
        second.setSeed(42L);
        assertThat(first.nextLong()).isEqualTo(second.nextLong());
        SnapStartPriming one = new SnapStartPriming(pipeline("payments"), "validate", Map.of(), first);
        SnapStartPriming two = new SnapStartPriming(pipeline("payments"), "validate", Map.of(), second);

        one.afterRestore(null);
        two.afterRestore(null);

        assertThat(one.random().nextLong()).isNotEqualTo(two.random().nextLong());
        assertThat(one.restores()).isEqualTo(1);
    }

    @Test
    void patternsOfLiteralsClassesAndCountsGiveAMatchingString() {
        assertThat(SyntheticEvent.fromPattern("^cust-[0-9]{7}$")).isEqualTo("cust-0000000");
        assertThat(SyntheticEvent.fromPattern("^[0-9]{12,19}$")).isEqualTo("000000000000");
        assertThat(SyntheticEvent.fromPattern("^[A-Z]{2}$")).isEqualTo("AA");
        assertThat(SyntheticEvent.fromPattern("^[A-Za-z0-9_-]+$")).isEqualTo("A");
        // beyond it: groups and alternation
        assertThat(SyntheticEvent.fromPattern("^(a|b)$")).isNull();
    }

    @Test
    void theSyntheticEventHasEveryRequiredPropertyAndIsValid() {
        SchemaCatalog schemas = SchemaCatalog.fromClasspath(SnapStartPrimingTest.class.getClassLoader(), MAPPER);
        var schema = schemas.schema("payments.transaction.v1");
        var event = new SyntheticEvent(Instant.parse("2026-12-01T10:15:30.123Z")).of(schema.document());
        assertThat(event.path("occurredAt").asText()).isEqualTo("2026-12-01T10:15:30Z");
        assertThat(event.path("type").asText()).isEqualTo("payments.transaction.v1");
        assertThat(schema.violations(event)).isEmpty();
    }
}
