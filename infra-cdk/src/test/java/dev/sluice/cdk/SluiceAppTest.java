package dev.sluice.cdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awscdk.App;
import software.amazon.awscdk.AppProps;
import software.amazon.awscdk.assertions.Template;

class SluiceAppTest {

    @TempDir
    Path dir;

    @Test
    void everyPipelineDefinitionBecomesOneStack() throws IOException {
        Path root = SluiceRoot.locate();
        List<String> pipelines;
        try (Stream<Path> files = Files.list(root.resolve("pipelines"))) {
            pipelines = files.map(f -> f.getFileName().toString())
                    .filter(name -> name.endsWith(".yaml"))
                    .map(name -> "sluice-" + name.substring(0, name.length() - ".yaml".length()))
                    .toList();
        }
        assertThat(pipelines).contains("sluice-payments", "sluice-clickstream");

        List<PipelineStack> stacks = RepositoryPipelines.get().stacks(); // SluiceApp.addPipelines(TestApps.app(...))

        assertThat(stacks).extracting(PipelineStack::getStackName).containsExactlyInAnyOrderElementsOf(pipelines);
    }

    @Test
    @SuppressWarnings("unchecked")
    void synthesisSummaryEndsWithTheStackAndResourceCounts() throws IOException {
        App app = TestApps.app(dir);
        List<PipelineStack> stacks = SluiceApp.addPipelines(app, SluiceRoot.locate());
        NagChecks.apply(app);
        int resources = 0;
        int suppressed = 0;
        for (PipelineStack stack : stacks) {
            Map<String, Object> template = Template.fromStack(stack).toJSON();
            resources += ((Map<String, Object>) template.get("Resources")).size();
            suppressed += NagChecks.suppressed(stack).size();
        }
        assertThat(suppressed).isPositive();
        assertThat(resources).isGreaterThan(stacks.size());

        List<String> summary = SluiceApp.summary(app.synth(), stacks, Map.of());

        assertThat(summary.get(summary.size() - 1))
                .isEqualTo("RESULT stacks=" + stacks.size() + " resources=" + resources
                        + " nag_errors=0 nag_warnings=0 nag_suppressed=" + suppressed + " refused=0");
        assertThat(summary)
                .anyMatch(line -> line.startsWith("  sluice-payments: ") && line.contains("dashboard sluice-payments"))
                .noneMatch(line -> line.contains("not deployed"))
                .anyMatch(line -> line.startsWith("  sluice-payments: cdk-nag 0 errors, 0 warnings, "));
    }

    @Test
    void missingArtifactContextIsReportedWithTheWayToSetIt() {
        App app = new App(AppProps.builder().outdir(dir.toString()).build());
        assertThatThrownBy(() -> SluiceApp.addPipelines(app, SluiceRoot.locate()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("sluice:lambdaArtifact is not set")
                .hasMessageContaining("-c sluice:lambdaArtifact=PATH");
    }

    @Test
    void artifactThatDoesNotExistIsReportedWithItsPath() {
        Path missing = dir.resolve("no-such-lambda.zip");
        App app = new App(AppProps.builder()
                .outdir(dir.toString())
                .context(Map.of(SluiceApp.LAMBDA_ARTIFACT_CONTEXT, missing.toString()))
                .build());
        assertThatThrownBy(() -> SluiceApp.addPipelines(app, SluiceRoot.locate()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(missing.toString())
                .hasMessageContaining("does not exist");
    }
}
