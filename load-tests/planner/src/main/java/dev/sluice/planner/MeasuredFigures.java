package dev.sluice.planner;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * What a load run measured that a plan can use instead of its constants ({@code ./sluice plan
 * --from-report}): the stage fed by the produced stream — its mean billed duration per batch and its
 * per-shard consumer ceiling — from the run's {@code report.json} ({@code data.capacity}, written by
 * {@code ./sluice load}; load-tests/README.md).
 *
 * @param report the report.json read
 * @param pipeline the pipeline the run loaded
 * @param stage the stage the figures are of
 * @param consumer {@code lambda} or {@code kcl}
 * @param awsLatency whether the run modelled AWS's latencies ({@code --aws-latency}); without it the
 *     figures are the local emulators'
 * @param msPerBatch mean duration per batch, milliseconds
 * @param recordsPerBatch mean records per batch in the run
 * @param batchSize the stage's batch size the ceiling is for
 * @param parallelization the stage's parallelization factor the ceiling is for
 * @param ceilingPerShard events a second one shard can be consumed at
 * @param modelled true for a handler bench's modelled AWS figures ({@code ./sluice bench handler}:
 *     {@link AwsBatchModel} over the measured CPU and call graph), false for a load run's measurement
 * @param requestsPer1000 a handler bench's AWS requests per 1,000 events by {@code "SERVICE Operation"},
 *     summed over the stages it benched (empty for a load run)
 * @param requestStages the stages {@code requestsPer1000} covers
 * @param recordBytes a handler bench's average bytes of a record of the pipeline's shape (0 for a load run)
 * @param memoryMb the function memory a handler bench modelled its batch at (0 for a load run)
 */
public record MeasuredFigures(
        Path report,
        String pipeline,
        String stage,
        String consumer,
        boolean awsLatency,
        double msPerBatch,
        double recordsPerBatch,
        int batchSize,
        int parallelization,
        double ceilingPerShard,
        boolean modelled,
        Map<String, Double> requestsPer1000,
        List<String> requestStages,
        double recordBytes,
        int memoryMb) {

    public MeasuredFigures {
        requestsPer1000 = Map.copyOf(requestsPer1000);
        requestStages = List.copyOf(requestStages);
    }

    private static final ObjectMapper MAPPER = new ObjectMapper();

    /** A report that cannot be used: unreadable, not a load report, or without measured capacity. */
    public static final class ReportException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ReportException(String message) {
            super(message);
        }
    }

    /** The figures of the stage the run's events were produced to, from a report.json. */
    public static MeasuredFigures read(Path reportJson) {
        JsonNode root;
        try {
            root = MAPPER.readTree(reportJson.toFile());
        } catch (IOException e) {
            throw new ReportException("cannot read the load report " + reportJson + ": " + e.getMessage());
        }
        JsonNode data = root == null ? null : root.path("data");
        if (data != null && "bench".equals(root.path("kind").asText())) {
            return fromHandlerBench(reportJson, data);
        }
        if (data == null || !"load".equals(root.path("kind").asText())) {
            throw new ReportException(reportJson + " is not a load report (./sluice load writes them)");
        }
        String stage = data.path("stage").asText();
        for (JsonNode c : data.path("capacity")) {
            if (c.path("stage").asText().equals(stage)) {
                return new MeasuredFigures(
                        reportJson,
                        data.path("pipeline").asText(),
                        stage,
                        c.path("consumer").asText(),
                        data.path("awsLatency").asBoolean(false),
                        c.path("durationMeanMs").asDouble(),
                        c.path("recordsPerBatch").asDouble(),
                        c.path("batchSize").asInt(),
                        c.path("parallelizationFactor").asInt(1),
                        c.path("ceilingPerShard").asDouble(),
                        false,
                        Map.of(),
                        List.of(),
                        0,
                        0);
            }
        }
        throw new ReportException(reportJson + " has no measured capacity for stage '" + stage
                + "' (a local run of ./sluice load writes it; runs before --aws-latency did not)");
    }

    /**
     * A handler bench's report ({@code ./sluice bench handler}): its first stage's modelled AWS batch
     * (mean of the Monte Carlo) and ceiling a shard, Sluice's handler.
     */
    private static MeasuredFigures fromHandlerBench(Path reportJson, JsonNode data) {
        for (JsonNode s : data.path("stages")) {
            JsonNode model = s.path("model");
            if (model.isObject() && model.path("ceiling").has("perShard")) {
                return new MeasuredFigures(
                        reportJson,
                        s.path("pipeline").asText(),
                        s.path("stage").asText(),
                        "lambda",
                        true,
                        model.path("durations").path("meanMillis").asDouble(),
                        s.path("batchSize").asDouble(),
                        s.path("batchSize").asInt(),
                        model.path("parallelization").asInt(1),
                        model.path("ceiling").path("perShard").asDouble(),
                        true,
                        requests(data.path("stages")),
                        stagesWithRequests(data.path("stages")),
                        model.path("recordBytes").asDouble(),
                        model.path("memoryMb").asInt(0));
            }
        }
        throw new ReportException(reportJson + " is a bench report without a modelled AWS ceiling (./sluice bench"
                + " handler writes one)");
    }

    /** Every benched stage's requests per 1,000 events, added up (a re-key hop's events are the source's). */
    private static Map<String, Double> requests(JsonNode stages) {
        Map<String, Double> out = new java.util.LinkedHashMap<>();
        for (JsonNode stage : stages) {
            stage.path("sluice")
                    .path("requestsPer1000")
                    .fields()
                    .forEachRemaining(e -> out.merge(e.getKey(), e.getValue().asDouble(), Double::sum));
        }
        return out;
    }

    private static List<String> stagesWithRequests(JsonNode stages) {
        List<String> out = new java.util.ArrayList<>();
        for (JsonNode stage : stages) {
            if (stage.path("sluice").path("requestsPer1000").isObject()) {
                out.add(stage.path("stage").asText());
            }
        }
        return out;
    }

    /** The newest report.json under {@code reportsDirectory} (by modification time) that has capacity figures. */
    public static Optional<Path> newest(Path reportsDirectory) {
        return newest(reportsDirectory, null);
    }

    /**
     * The newest report.json under {@code reportsDirectory} (by modification time) that has capacity
     * figures, of {@code pipeline} when it is not null.
     */
    public static Optional<Path> newest(Path reportsDirectory, String pipeline) {
        if (!Files.isDirectory(reportsDirectory)) {
            return Optional.empty();
        }
        try (Stream<Path> runs = Files.list(reportsDirectory)) {
            return runs.map(run -> run.resolve("report.json"))
                    .filter(Files::isRegularFile)
                    .filter(report -> hasCapacity(report, pipeline))
                    .max(Comparator.comparing(MeasuredFigures::modified));
        } catch (IOException e) {
            throw new ReportException("cannot list " + reportsDirectory + ": " + e.getMessage());
        }
    }

    private static boolean hasCapacity(Path reportJson, String pipeline) {
        try {
            MeasuredFigures figures = read(reportJson);
            return pipeline == null || pipeline.equals(figures.pipeline());
        } catch (ReportException e) {
            return false;
        }
    }

    static java.nio.file.attribute.FileTime modified(Path file) {
        try {
            return Files.getLastModifiedTime(file);
        } catch (IOException e) {
            return java.nio.file.attribute.FileTime.fromMillis(0);
        }
    }

    /** The billed milliseconds per batch a plan uses: the mean, rounded up (Lambda bills whole ms). */
    public int billedMsPerBatch() {
        return (int) Math.max(1, Math.ceil(msPerBatch));
    }

    /** Where the figures come from, for the plan's output. */
    public String source() {
        return String.format(
                Locale.ROOT,
                modelled ? "modelled: report %s (%s, stage %s, %s)" : "measured: report %s (%s, stage %s, %s)",
                report,
                pipeline,
                stage,
                modelled
                        ? "bench handler: measured CPU and call graph, AWS latencies modelled"
                        : awsLatency ? "AWS latency modelled" : "local emulators' latency, not AWS's");
    }
}
