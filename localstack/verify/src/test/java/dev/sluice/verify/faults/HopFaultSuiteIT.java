package dev.sluice.verify.faults;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.definition.DefinitionLoader;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.schema.SchemaCatalog;
import dev.sluice.emulators.LocalAws;
import dev.sluice.emulators.LocalAwsExtension;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The fault suite's re-key hop scenarios ({@code ./sluice faults}): clickstream's first stage puts
 * views into the hop twice (a crash after its PutRecords landed, a PutRecords whose response was
 * lost) while the KCL stage counts them; every human view is counted exactly once.
 */
@ExtendWith(LocalAwsExtension.class)
class HopFaultSuiteIT {

    private static final Path ROOT = Path.of(System.getProperty("sluice.root"));
    private static final int CLICKS = 300;

    static java.util.List<String> scenarios() {
        return HopFaultSuite.scenarios();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("scenarios")
    void viewsPutTwiceIntoTheHopAreCountedOnce(String scenario, LocalAws aws) {
        PipelineDefinition clickstream = new DefinitionLoader(
                        SchemaCatalog.fromDirectory(ROOT.resolve("schemas"), new ObjectMapper()))
                .load(ROOT.resolve("pipelines/clickstream.yaml"));

        FaultSuite.Row row = new HopFaultSuite(aws, clickstream, ROOT).run(scenario, CLICKS);

        System.out.printf(
                "%s: %d views counted, %d copies in the hop, lost %d, counted twice %d, %.1f s%n",
                scenario, row.effects(), row.absorbed(), row.lost(), row.duplicateEffects(), row.seconds());
        assertThat(row.problems()).as("problems of %s", scenario).isEmpty();
        assertThat(row.lost()).isZero();
        assertThat(row.duplicateEffects()).isZero();
        assertThat(row.effects()).as("every human view counted").isEqualTo(CLICKS - CLICKS / 10);
        assertThat(row.absorbed()).as("copies really put into the hop").isPositive();
        assertThat(row.faultsFired()).isEqualTo(row.faultsPlanned());
    }
}
