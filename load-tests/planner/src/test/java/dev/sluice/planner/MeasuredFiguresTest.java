package dev.sluice.planner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A load run's report.json as the planner reads it: the measured stage's duration and ceiling. */
class MeasuredFiguresTest {

    private static final String CAPACITY =
            "{\"kind\":\"load\",\"data\":{\"pipeline\":\"payments\",\"stage\":\"validate\","
                    + "\"awsLatency\":true,\"capacity\":[{\"stage\":\"validate\",\"consumer\":\"lambda\",\"batchSize\":100,"
                    + "\"parallelizationFactor\":1,\"recordsPerBatch\":48.5,\"durationMeanMs\":312.4,"
                    + "\"ceilingPerShard\":163.9},{\"stage\":\"other\",\"consumer\":\"kcl\",\"ceilingPerShard\":5}]}}";

    /** A report.json under {@code dir/run} with this modification time (shared with ModelledStagesTest). */
    static Path write(Path dir, String run, String json, long modifiedMillis) throws IOException {
        Path file = dir.resolve(run).resolve("report.json");
        Files.createDirectories(file.getParent());
        Files.writeString(file, json);
        Files.setLastModifiedTime(file, FileTime.fromMillis(modifiedMillis));
        return file;
    }

    @Test
    void theProducedStagesMeasuredDurationAndCeilingAreRead(@TempDir Path dir) throws IOException {
        MeasuredFigures f = MeasuredFigures.read(write(dir, "run", CAPACITY, 1_000));

        assertThat(f.stage()).isEqualTo("validate");
        assertThat(f.consumer()).isEqualTo("lambda");
        assertThat(f.awsLatency()).isTrue();
        assertThat(f.msPerBatch()).isEqualTo(312.4);
        assertThat(f.billedMsPerBatch())
                .as("Lambda bills whole milliseconds, rounded up")
                .isEqualTo(313);
        assertThat(f.ceilingPerShard()).isEqualTo(163.9);
        assertThat(f.batchSize()).isEqualTo(100);
        assertThat(f.source()).contains("report.json (payments, stage validate, AWS latency modelled)");
    }

    @Test
    void aHandlerBenchsModelledBatchAndCeilingAreRead(@TempDir Path dir) throws IOException {
        String bench = "{\"kind\":\"bench\",\"data\":{\"stages\":[{\"pipeline\":\"clickstream\","
                + "\"stage\":\"sessionize\",\"batchSize\":500,\"model\":{\"memoryMb\":1024,"
                + "\"parallelization\":2,\"durations\":{\"p50Millis\":150.0,\"meanMillis\":161.2},"
                + "\"ceiling\":{\"perShard\":5654.0,\"binding\":\"processing\"}}}]}}";
        MeasuredFigures f = MeasuredFigures.read(write(dir, "bench", bench, 1_000));

        assertThat(f.modelled()).isTrue();
        assertThat(f.pipeline()).isEqualTo("clickstream");
        assertThat(f.consumer()).isEqualTo("lambda");
        assertThat(f.msPerBatch()).isEqualTo(161.2);
        assertThat(f.billedMsPerBatch()).isEqualTo(162);
        assertThat(f.recordsPerBatch()).isEqualTo(500);
        assertThat(f.parallelization()).isEqualTo(2);
        assertThat(f.ceilingPerShard()).isEqualTo(5654.0);
        assertThat(f.source()).startsWith("modelled: report").contains("bench handler");
    }

    @Test
    void aReportWithoutCapacityOrNotALoadReportIsRefusedNamingTheFile(@TempDir Path dir) throws IOException {
        Path old =
                write(dir, "old", "{\"kind\":\"load\",\"data\":{\"pipeline\":\"payments\",\"stage\":\"validate\"}}", 1);
        Path bench = write(dir, "bench", "{\"kind\":\"bench\",\"data\":{}}", 1);
        Path broken = write(dir, "broken", "{not json", 1);

        assertThatThrownBy(() -> MeasuredFigures.read(old))
                .isInstanceOf(MeasuredFigures.ReportException.class)
                .hasMessage(old + " has no measured capacity for stage 'validate' (a local run of ./sluice load"
                        + " writes it; runs before --aws-latency did not)");
        assertThatThrownBy(() -> MeasuredFigures.read(bench))
                .hasMessage(bench + " is a bench report without a modelled AWS ceiling (./sluice bench handler"
                        + " writes one)");
        assertThatThrownBy(() -> MeasuredFigures.read(broken))
                .hasMessageStartingWith("cannot read the load report " + broken);
    }

    @Test
    void theNewestReportWithCapacityIsChosen(@TempDir Path dir) throws IOException {
        write(dir, "a", CAPACITY, 1_000);
        Path newest = write(dir, "b", CAPACITY, 3_000);
        write(dir, "c-newer-but-without-capacity", "{\"kind\":\"load\",\"data\":{\"stage\":\"validate\"}}", 5_000);

        assertThat(MeasuredFigures.newest(dir)).contains(newest);
        Path clicks = write(dir, "d-clickstream", CAPACITY.replace("\"payments\"", "\"clickstream\""), 4_000);
        assertThat(MeasuredFigures.newest(dir)).contains(clicks);
        assertThat(MeasuredFigures.newest(dir, "payments"))
                .as("the newest of the pipeline asked for")
                .contains(newest);
        assertThat(MeasuredFigures.newest(dir, "orders")).isEmpty();
        assertThat(MeasuredFigures.newest(dir.resolve("none"))).isEmpty();
    }
}
