package dev.sluice.verify.faults;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.aws.sink.S3LakeSink;
import dev.sluice.core.definition.DefinitionLoader;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.definition.SinkDefinition;
import dev.sluice.core.definition.StageDefinition;
import dev.sluice.core.definition.StepType;
import dev.sluice.core.schema.SchemaCatalog;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code payments-pf} test pipeline of the pf-* fault scenarios runs in claim mode, as they need. */
class PaymentsPfDefinitionTest {

    private static final Path ROOT = Path.of(System.getProperty("sluice.root"));

    @Test
    void parallelBatchScenariosRunTheClaimModeTestPipeline(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("payments-pf.yaml");
        try (InputStream yaml = FaultSuite.class.getResourceAsStream("/sluice/pf/payments-pf.yaml")) {
            assertThat(yaml).isNotNull();
            Files.write(file, yaml.readAllBytes());
        }
        PipelineDefinition pipeline = new DefinitionLoader(
                        SchemaCatalog.fromDirectory(ROOT.resolve("schemas"), new ObjectMapper()))
                .load(file);
        StageDefinition stage = pipeline.stages().values().iterator().next();

        assertThat(pipeline.pipeline()).isEqualTo(FaultScenario.PAYMENTS_PF);
        assertThat(stage.batching().parallelizationFactor()).isEqualTo(4);
        assertThat(S3LakeSink.claimMode(stage))
                .as("deduplicate table + factor 4 + lake")
                .isTrue();
        assertThat(stage.sinks()).extracting(SinkDefinition::kind).contains(SinkDefinition.Kind.TABLE);
        assertThat(stage.failure().deadLetterQueue()).isNotNull();
        assertThat(stage.steps()).extracting(s -> s.type()).contains(StepType.VALIDATE, StepType.AGGREGATE);
        assertThat(pipeline.streams().get(stage.input()).partitionKey())
                .as("the aggregate is keyed by the partition key")
                .isEqualTo(stage.steps().stream()
                        .filter(s -> s.type() == StepType.AGGREGATE)
                        .findFirst()
                        .orElseThrow()
                        .option("key"));
        assertThat(FaultSuite.scenarios(300))
                .filteredOn(s -> s.pipeline().equals(FaultScenario.PAYMENTS_PF))
                .extracting(FaultScenario::name)
                .containsExactly("pf-crash-mid-batch", "pf-overlapping-batches", "pf-reshard");
    }
}
