package dev.sluice.cdk;

import static dev.sluice.cdk.TestApps.getAtt;
import static dev.sluice.cdk.TestApps.ref;

import dev.sluice.core.definition.Persona;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awscdk.assertions.Match;
import software.amazon.awscdk.assertions.Template;

/** The outputs {@code ./sluice smoke --aws} reads: persona role ARNs and physical names. */
class SmokeOutputsTest {

    @Test
    void everyPersonaRoleArnAndEveryPhysicalNameIsAStackOutput() throws Exception {
        PipelineStack payments = RepositoryPipelines.get().stack("payments");
        Template template = RepositoryPipelines.get().template(payments);
        for (Persona persona : Persona.values()) {
            template.hasOutput(
                    SmokeOutputs.personaRole(persona),
                    Match.objectLike(
                            Map.of("Value", getAtt(payments.getPersonas().getRole(persona), "Arn"))));
        }
        template.hasOutput(
                "StreamPaymentsRaw",
                Match.objectLike(Map.of("Value", ref(payments.getStreams().get("payments-raw")))));
        template.hasOutput(
                "TablePaymentsById",
                Match.objectLike(Map.of("Value", ref(payments.getTables().get("payments-by-id")))));
        template.hasOutput(
                "TableSpendPerCurrencyHourly",
                Match.objectLike(Map.of("Value", ref(payments.getTables().get("spend-per-currency-hourly")))));
        template.hasOutput(
                "QueueUrlPaymentsDlq",
                Match.objectLike(Map.of("Value", ref(payments.getQueues().get("payments-dlq")))));
        template.hasOutput(
                SmokeOutputs.LAKE_BUCKET,
                Match.objectLike(Map.of("Value", ref(payments.getLakeBucket().orElseThrow()))));
    }
}
