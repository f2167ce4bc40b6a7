package dev.sluice.cdk;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awscdk.App;
import software.amazon.awscdk.cxapi.SynthesisMessage;

/** The cdk-nag AwsSolutions and Serverless packs on both pipeline stacks: nothing unsuppressed. */
class NagChecksTest {

    @TempDir
    static Path dir;

    static List<PipelineStack> stacks;

    @BeforeAll
    static void synthesize() throws Exception {
        App app = TestApps.app(dir);
        stacks = SluiceApp.addPipelines(app, SluiceRoot.locate());
        NagChecks.apply(app);
    }

    private static String describe(List<SynthesisMessage> messages) {
        return messages.stream()
                .map(m -> m.getId() + " " + m.getEntry().getData())
                .collect(Collectors.joining("\n"));
    }

    @Test
    void noUnsuppressedErrors() {
        assertThat(stacks).hasSize(2);
        List<SynthesisMessage> errors = new java.util.ArrayList<>();
        stacks.forEach(stack -> errors.addAll(NagChecks.errors(stack)));
        assertThat(errors).as(describe(errors)).isEmpty();
    }

    @Test
    void noUnsuppressedWarnings() {
        List<SynthesisMessage> warnings = new java.util.ArrayList<>();
        stacks.forEach(stack -> warnings.addAll(NagChecks.warnings(stack)));
        assertThat(warnings).as(describe(warnings)).isEmpty();
    }

    @Test
    void countsForASynthReport() {
        for (PipelineStack stack : stacks) {
            NagChecks.Counts counts = NagChecks.count(stack);
            assertThat(counts.errors()).isZero();
            assertThat(counts.warnings()).isZero();
            // every suppression covers at least one finding, IAM4/IAM5 one per appliesTo entry
            assertThat(counts.suppressed())
                    .as(stack.getStackName())
                    .isGreaterThanOrEqualTo(NagSuppressionsForSluice.of(stack).size());
            assertThat(counts.toString()).startsWith("nag_errors=0 nag_warnings=0 nag_suppressed=");
            System.out.println(stack.getStackName() + ": " + counts);
        }
    }
}
