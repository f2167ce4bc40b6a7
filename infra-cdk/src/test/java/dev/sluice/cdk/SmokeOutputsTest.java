package dev.sluice.cdk;

import static dev.sluice.cdk.TestApps.getAtt;
import static dev.sluice.cdk.TestApps.ref;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.definition.Persona;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awscdk.assertions.Match;
import software.amazon.awscdk.assertions.Template;

/**
 * The outputs {@code ./sluice smoke --aws} reads: persona role ARNs, physical names and the Lambda
 * stage functions' log groups.
 */
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

    @Test
    void everyLambdaStageFunctionsLogGroupIsAnOutputThatAdminMayFilter() throws Exception {
        for (String pipeline : List.of("payments", "clickstream")) {
            PipelineStack stack = RepositoryPipelines.get().stack(pipeline);
            Template template = RepositoryPipelines.get().template(stack);
            // the smoke reads the restore figure as admin, whose log reads name each stage's log group
            List<Map<String, Object>> filter = TemplateQueries.allowing(
                    TemplateQueries.statementsOf(template, stack.getPersonas().getRole(Persona.ADMIN)),
                    "logs:FilterLogEvents");
            assertThat(filter).hasSize(1);
            assertThat(stack.getLambdaStages()).isNotEmpty();
            stack.getLambdaStages().forEach((name, stage) -> {
                template.hasOutput(
                        SmokeOutputs.functionLogGroup(name),
                        Match.objectLike(Map.of("Value", ref(stage.getLogGroup()))));
                assertThat(TemplateQueries.resources(filter.get(0))).contains(getAtt(stage.getLogGroup(), "Arn"));
            });
        }
        assertThat(SmokeOutputs.functionLogGroup("mask-and-rekey")).isEqualTo("FunctionLogGroupMaskAndRekey");
    }
}
