package dev.sluice.lambda.snapstart;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.aws.FunctionEnvironment;
import dev.sluice.core.definition.EnvironmentNames;
import dev.sluice.lambda.KinesisStageHandler;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runtime's no-arg constructor wires the stage from resource names alone (no AWS call) and
 * registers the SnapStart hook, which then primes; the constructor tests use takes no hook.
 */
class HandlerRegistersSnapStartHookTest {

    @TempDir
    Path secrets;

    @Test
    void theRuntimesConstructorRegistersAHookThatPrimesWithoutNetwork() throws Exception {
        // the chain reads the tokenization key when it compiles (locally from a secrets folder)
        java.nio.file.Files.writeString(secrets.resolve("tokenization-key"), "k".repeat(64));
        Map<String, String> environment = Map.of(
                EnvironmentNames.PIPELINE,
                "payments",
                EnvironmentNames.STAGE,
                "validate",
                "AWS_REGION",
                "eu-west-1",
                EnvironmentNames.queueUrl("payments-dlq"),
                "https://sqs.eu-west-1.amazonaws.com/123456789012/payments-dlq",
                EnvironmentNames.LAKE_BUCKET,
                "sluice-payments-lake",
                EnvironmentNames.LEDGER_TABLE,
                "sluice-payments-lake-ledger",
                EnvironmentNames.table("payments-by-id"),
                "payments-by-id",
                EnvironmentNames.table("spend-per-currency-hourly"),
                "spend-per-currency-hourly",
                EnvironmentNames.SECRETS_DIR,
                secrets.toString());

        KinesisStageHandler handler = FunctionEnvironment.with(environment, KinesisStageHandler::new);

        SnapStartPriming priming = dev.sluice.lambda.HandlerAccess.priming(handler);
        assertThat(priming).isNotNull();
        assertThat(priming.primed()).isEmpty();
        priming.beforeCheckpoint(null);
        assertThat(priming.primed())
                .hasValueSatisfying(p -> assertThat(p.accepted()).isPositive());
    }
}
