package dev.sluice.verify.faults;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.definition.DefinitionLoader;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.schema.SchemaCatalog;
import dev.sluice.emulators.LocalAws;
import dev.sluice.emulators.LocalAwsOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every scenario of {@code ./sluice faults}, at a smaller volume, reconciled against the producer's
 * ledger: nothing lost, nothing applied twice, every key in order, every planned fault fired, and
 * where a fault forces redelivery, duplicates delivered and absorbed.
 */
class FaultSuiteIT {

    private static final Path ROOT = Path.of(System.getProperty("sluice.root"));
    private static final int EVENTS = 300;

    private static LocalAws aws;
    private static FaultSuite suite;

    @BeforeAll
    static void startPersistentStack() throws IOException {
        Path work = Files.createTempDirectory("sluice-faults");
        aws = LocalAws.start(LocalAwsOptions.builder()
                .kinesisDataDirectory(work.resolve("kinesis"))
                .build());
        // CI runs the fault suite as the demo does: with the template's IAM enforced
        org.assertj.core.api.Assertions.assertThat(aws.iamEnforced())
                .as("the local stack enforces IAM by default (SLUICE_IAM is not off)")
                .isTrue();
        PipelineDefinition payments = new DefinitionLoader(
                        SchemaCatalog.fromDirectory(ROOT.resolve("schemas"), new ObjectMapper()))
                .load(ROOT.resolve("pipelines/payments.yaml"));
        suite = new FaultSuite(aws, payments, ROOT, work);
    }

    @AfterAll
    static void stopStack() {
        if (aws != null) {
            aws.close();
        }
    }

    /**
     * Every scenario, or only those named by {@code -Dfaults.scenario=NAME[,NAME...]} (to run a few
     * while working on them).
     */
    static List<FaultScenario> scenarios() {
        String only = System.getProperty("faults.scenario", "");
        List<String> names = only.isBlank() ? List.of() : List.of(only.split(","));
        return FaultSuite.scenarios(EVENTS).stream()
                .filter(s -> names.isEmpty() || names.contains(s.name()))
                .toList();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("scenarios")
    void scenarioReconcilesExactlyOnce(FaultScenario scenario) {
        FaultSuite.Row row = suite.run(scenario);

        assertThat(row.problems()).as("problems of %s", scenario.name()).isEmpty();
        assertThat(row.events()).isGreaterThanOrEqualTo(EVENTS);
        assertThat(row.lost()).isZero();
        assertThat(row.duplicateEffects()).isZero();
        assertThat(row.orderViolations()).isZero();
        assertThat(row.effects()).as("one effect per distinct event").isBetween((long) EVENTS, row.events());
        assertThat(row.faultsFired()).isEqualTo(row.faultsPlanned());
        if (row.redeliveryExpected()) {
            assertThat(row.deliveries()).isGreaterThan(row.effects());
            assertThat(row.absorbed()).as("duplicates absorbed by the sinks").isPositive();
        }
    }

    @Test
    void suiteRefusesRecordsAtTheAggregateStore() {
        assertThat(FaultSuite.scenarios(EVENTS)).extracting(FaultScenario::name).contains("aggregate-rejects-record");
    }

    @Test
    void suiteHasAtLeastTwelveScenariosEndingInChaos() {
        List<FaultScenario> all = FaultSuite.scenarios(EVENTS);

        assertThat(all).hasSizeGreaterThanOrEqualTo(12);
        assertThat(all)
                .extracting(FaultScenario::name)
                .doesNotHaveDuplicates()
                .last()
                .isEqualTo("chaos");
    }
}
