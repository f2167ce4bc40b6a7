package dev.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code ./sluice load} for a few seconds at a low rate on a fresh local stack: reconciled, reported. */
class LoadCommandIT {

    @TempDir
    Path reports;

    @ParameterizedTest
    @ValueSource(strings = {"payments", "clickstream"})
    void shortLoadReconcilesAndWritesBothReportFiles(String pipeline) throws IOException {
        Path root = Path.of(System.getProperty("sluice.root"));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = new SluiceCli(
                        root,
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8))
                .run(List.of(
                        "load",
                        "--pipeline",
                        pipeline,
                        "--rate",
                        "40",
                        "--duration",
                        "4",
                        "--invalid-share",
                        "0.05",
                        "--reports",
                        reports.toString()));
        String stdout = out.toString(StandardCharsets.UTF_8);

        assertThat(status).as(stdout + err.toString(StandardCharsets.UTF_8)).isZero();
        String result =
                stdout.lines().filter(l -> l.startsWith("RESULT ")).findFirst().orElseThrow();
        assertThat(result).contains(" lost=0 duplicates=0").matches("RESULT events=[1-9][0-9]* seconds=.*");
        // the load run acts as its personas and roles with the template's IAM enforced, and nothing is denied
        // ... and under AWS's limits, whose throttles it counts
        assertThat(result).containsPattern(" iam=enforced access_denied=0 limits=enforced throttled=[0-9]+$");

        Path directory;
        try (Stream<Path> runs = Files.list(reports)) {
            directory = runs.findFirst().orElseThrow();
        }
        JsonNode json =
                new ObjectMapper().readTree(directory.resolve("report.json").toFile());
        JsonNode data = json.path("data");
        assertThat(data.path("reconciled").asBoolean()).isTrue();
        assertThat(data.at("/reconciliation/produced").asLong()).isPositive();
        assertThat(data.at("/latency/unmatched").asLong())
                .as("every record is matched to the batch that made it durable")
                .isZero();
        assertThat(data.at("/latency/matched").asLong())
                .isEqualTo(data.path("events").asLong());
        assertThat(data.path("requests").findValuesAsText("role")).contains("producer", "function");
        assertThat(data.path("costs")).hasSize(3);
        assertThat(Files.readString(directory.resolve("report.html")))
                .contains("<svg id='throughput'")
                .contains("<svg id='latency-distribution'");
    }

    /**
     * {@code load --pipeline FILE} runs that file end to end: a renamed copy, whose pipeline name has no
     * {@code pipelines/<name>.yaml}, is read by its function too (it used to look for
     * {@code pipelines/payments-copy.yaml} and fail).
     */
    @Test
    void aDefinitionFileOutsidePipelinesIsWhatTheFunctionsRun(@TempDir Path dir) throws IOException {
        Path root = Path.of(System.getProperty("sluice.root"));
        String payments = Files.readString(root.resolve("pipelines/payments.yaml"));
        assertThat(payments).contains("\npipeline: payments\n");
        Path copy = dir.resolve("my-payments.yaml");
        Files.writeString(copy, payments.replace("\npipeline: payments\n", "\npipeline: payments-copy\n"));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();

        int status = new SluiceCli(
                        root,
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8))
                .run(List.of(
                        "load",
                        "--pipeline",
                        copy.toString(),
                        "--rate",
                        "40",
                        "--duration",
                        "3",
                        "--reports",
                        reports.toString()));
        String stdout = out.toString(StandardCharsets.UTF_8);

        assertThat(status).as(stdout + err.toString(StandardCharsets.UTF_8)).isZero();
        assertThat(stdout).contains("Sluice load: payments-copy, stage 'validate'");
        assertThat(stdout.lines()
                        .filter(l -> l.startsWith("RESULT "))
                        .findFirst()
                        .orElseThrow())
                .contains(" lost=0 duplicates=0")
                .matches("RESULT events=[1-9][0-9]* seconds=.*");
    }
}
