package dev.sluice.planner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A handler bench's report.json as a load report reads it: every modelled stage of one pipeline. */
class ModelledStagesTest {

    private static final String CLICKSTREAM = "{\"kind\":\"bench\",\"generatedAt\":\"2026-12-07T11:36:07Z\","
            + "\"data\":{\"stages\":[{\"pipeline\":\"clickstream\",\"stage\":\"mask-and-rekey\",\"consumer\":\"lambda\","
            + "\"batchSize\":500,\"sluice\":{\"cpuMicrosPerEvent\":119.5,\"requestsPer1000\":{\"S3 PutObject\":2.0,"
            + "\"KINESIS PutRecords\":6.0}},\"naive\":{\"cpuMicrosPerEvent\":699.1},\"model\":{\"consumer\":\"lambda\","
            + "\"memoryMb\":1024,\"vcpu\":0.58,\"parallelization\":1,\"durations\":{\"p50Millis\":261.0,"
            + "\"p99Millis\":419.0,\"meanMillis\":270.5},\"ceiling\":{\"perShard\":1767.0,\"binding\":\"processing\"}}},"
            + "{\"pipeline\":\"clickstream\",\"stage\":\"page-counts\",\"consumer\":\"kcl\",\"batchSize\":1000,"
            + "\"sluice\":{\"cpuMicrosPerEvent\":1318.8,\"requestsPer1000\":{\"DYNAMODB PutItem\":997.75,"
            + "\"S3 PutObject\":0.5}},\"model\":{\"consumer\":\"kcl\",\"memoryMb\":0,\"vcpu\":1.0,\"durations\":"
            + "{\"p50Millis\":3336.4,\"p99Millis\":3465.7,\"meanMillis\":3340.0},\"ceiling\":{\"perShard\":299.4,"
            + "\"binding\":\"processing\"}}}]}}";

    private static Path write(Path dir, String run, String json, long modifiedMillis) throws IOException {
        return MeasuredFiguresTest.write(dir, run, json, modifiedMillis);
    }

    @Test
    void everyModelledStageIsReadWithItsCpuRequestsBatchAndCeiling(@TempDir Path dir) throws IOException {
        ModelledStages m = ModelledStages.read(write(dir, "bench", CLICKSTREAM, 1_000));

        assertThat(m.generatedAt()).isEqualTo("2026-12-07T11:36:07Z");
        assertThat(m.stages()).extracting(ModelledStages.Stage::stage).containsExactly("mask-and-rekey", "page-counts");
        ModelledStages.Stage rekey = m.stages().get(0);
        assertThat(rekey.consumer()).isEqualTo("lambda");
        assertThat(rekey.memoryMb()).isEqualTo(1024);
        assertThat(rekey.cpuMicrosPerEvent()).isEqualTo(119.5);
        assertThat(rekey.naiveCpuMicrosPerEvent()).isEqualTo(699.1);
        assertThat(rekey.batchP99Millis()).isEqualTo(419.0);
        assertThat(rekey.batchMeanMillis()).isEqualTo(270.5);
        assertThat(rekey.goalPerShard()).isEqualTo(1_000);
        ModelledStages.Stage counts = m.stages().get(1);
        assertThat(counts.consumer()).isEqualTo("kcl");
        assertThat(counts.goalPerShard())
                .as("a KCL stage's goal is a shard's 2 MiB/s out")
                .isEqualTo(2_000);
        assertThat(counts.naiveCpuMicrosPerEvent())
                .as("no hand-written figure in the report")
                .isZero();
        assertThat(counts.ceilingPerShard()).isEqualTo(299.4);
        assertThat(m.requestsPer1000())
                .as("a re-key hop's events are the source's: the stages' requests add up")
                .containsEntry("S3 PutObject", 2.5)
                .containsEntry("DYNAMODB PutItem", 997.75)
                .containsEntry("KINESIS PutRecords", 6.0);
    }

    @Test
    void theNewestBenchOfThePipelineIsTakenNotANewerLoadReportOrAnotherPipelinesBench(@TempDir Path dir)
            throws IOException {
        write(dir, "old-bench", CLICKSTREAM.replace("2026-12-07T11:36:07Z", "old"), 1_000);
        write(dir, "bench", CLICKSTREAM, 2_000);
        write(dir, "payments-bench", CLICKSTREAM.replace("clickstream", "payments"), 3_000);
        write(dir, "load", "{\"kind\":\"load\",\"data\":{\"pipeline\":\"clickstream\"}}", 4_000);

        assertThat(ModelledStages.newest(dir, "clickstream"))
                .hasValueSatisfying(m -> assertThat(m.generatedAt()).isEqualTo("2026-12-07T11:36:07Z"));
        assertThat(ModelledStages.newest(dir, "payments"))
                .hasValueSatisfying(
                        m -> assertThat(m.stages()).allMatch(s -> s.pipeline().equals("payments")));
        assertThat(ModelledStages.newest(dir, "orders")).isEmpty();
        assertThat(ModelledStages.newest(dir.resolve("absent"), "clickstream")).isEmpty();
    }

    @Test
    void aReportThatIsNotAModelledBenchIsRefusedWithOneLine(@TempDir Path dir) throws IOException {
        Path load = write(dir, "load", "{\"kind\":\"load\",\"data\":{}}", 1_000);
        Path bare = write(dir, "bare", "{\"kind\":\"bench\",\"data\":{\"stages\":[{\"stage\":\"x\"}]}}", 1_000);

        assertThatThrownBy(() -> ModelledStages.read(load))
                .isInstanceOf(MeasuredFigures.ReportException.class)
                .hasMessageEndingWith("is not a bench report (./sluice bench handler)");
        assertThatThrownBy(() -> ModelledStages.read(bare))
                .isInstanceOf(MeasuredFigures.ReportException.class)
                .hasMessageContaining("without a modelled AWS ceiling");
    }
}
