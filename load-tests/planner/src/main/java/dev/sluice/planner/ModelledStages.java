package dev.sluice.planner;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Every stage a handler bench modelled in AWS ({@code ./sluice bench handler}: its measured CPU and
 * call graph under {@link AwsBatchModel}), read from the bench's report.json so that a load run's
 * report can show, beside what the local stack measured, what the same stages are modelled to do in
 * AWS — figures without the emulators' CPU in them.
 *
 * @param report the bench's report.json
 * @param generatedAt when the bench ended, RFC 3339
 * @param stages the stages it modelled, in the bench's order
 */
public record ModelledStages(Path report, String generatedAt, List<Stage> stages) {

    public ModelledStages {
        stages = List.copyOf(stages);
    }

    /**
     * One modelled stage.
     *
     * @param pipeline the pipeline
     * @param stage the stage
     * @param consumer {@code lambda} or {@code kcl}
     * @param batchSize the definition's batch size the bench ran
     * @param memoryMb the function memory the batch was modelled at (0 for a KCL stage)
     * @param vcpu the vCPU the batch's CPU was modelled on
     * @param parallelization the definition's parallelization factor
     * @param cpuMicrosPerEvent Sluice's measured CPU an event
     * @param naiveCpuMicrosPerEvent the hand-written handler's, same run (0 when it was not run)
     * @param batchP50Millis modelled AWS batch duration, median of the Monte Carlo
     * @param batchP99Millis its 99th percentile
     * @param batchMeanMillis its mean (what Lambda bills on average)
     * @param ceilingPerShard events a second one shard can be consumed at
     * @param binding what binds the ceiling (processing, GetRecords, read bytes)
     * @param requestsPer1000 AWS requests per 1,000 events, by {@code "SERVICE Operation"}
     */
    public record Stage(
            String pipeline,
            String stage,
            String consumer,
            int batchSize,
            int memoryMb,
            double vcpu,
            int parallelization,
            double cpuMicrosPerEvent,
            double naiveCpuMicrosPerEvent,
            double batchP50Millis,
            double batchP99Millis,
            double batchMeanMillis,
            double ceilingPerShard,
            String binding,
            Map<String, Double> requestsPer1000) {

        public Stage {
            requestsPer1000 = Map.copyOf(requestsPer1000);
        }

        /** Issue 29's goal a shard for this stage's consumer ({@link AwsBatchModel#goalPerShard}). */
        public double goalPerShard() {
            return AwsBatchModel.goalPerShard(consumer);
        }
    }

    private static final ObjectMapper MAPPER = new ObjectMapper();

    /** The modelled stages of a bench report; a report that is not one is refused with one line. */
    public static ModelledStages read(Path reportJson) {
        JsonNode root;
        try {
            root = MAPPER.readTree(reportJson.toFile());
        } catch (IOException e) {
            throw new MeasuredFigures.ReportException(
                    "cannot read the bench report " + reportJson + ": " + e.getMessage());
        }
        if (root == null || !"bench".equals(root.path("kind").asText())) {
            throw new MeasuredFigures.ReportException(reportJson + " is not a bench report (./sluice bench handler)");
        }
        List<Stage> stages = new ArrayList<>();
        for (JsonNode s : root.path("data").path("stages")) {
            JsonNode model = s.path("model");
            if (!model.isObject() || !model.path("ceiling").has("perShard")) {
                continue;
            }
            Map<String, Double> requests = new LinkedHashMap<>();
            s.path("sluice")
                    .path("requestsPer1000")
                    .fields()
                    .forEachRemaining(e -> requests.put(e.getKey(), e.getValue().asDouble()));
            JsonNode durations = model.path("durations");
            stages.add(new Stage(
                    s.path("pipeline").asText(),
                    s.path("stage").asText(),
                    s.path("consumer").asText(model.path("consumer").asText("lambda")),
                    s.path("batchSize").asInt(),
                    model.path("memoryMb").asInt(0),
                    model.path("vcpu").asDouble(0),
                    model.path("parallelization").asInt(1),
                    s.path("sluice").path("cpuMicrosPerEvent").asDouble(),
                    s.path("naive").path("cpuMicrosPerEvent").asDouble(0),
                    durations.path("p50Millis").asDouble(),
                    durations.path("p99Millis").asDouble(),
                    durations.path("meanMillis").asDouble(),
                    model.path("ceiling").path("perShard").asDouble(),
                    model.path("ceiling").path("binding").asText(""),
                    requests));
        }
        if (stages.isEmpty()) {
            throw new MeasuredFigures.ReportException(reportJson
                    + " is a bench report without a modelled AWS ceiling (./sluice bench handler writes one)");
        }
        return new ModelledStages(reportJson, root.path("generatedAt").asText(""), stages);
    }

    /**
     * The newest bench report under {@code reportsDirectory} (by modification time) that modelled a
     * stage of {@code pipeline}; empty when there is none.
     */
    public static Optional<ModelledStages> newest(Path reportsDirectory, String pipeline) {
        if (!Files.isDirectory(reportsDirectory)) {
            return Optional.empty();
        }
        List<Path> candidates;
        try (Stream<Path> runs = Files.list(reportsDirectory)) {
            candidates = runs.map(run -> run.resolve("report.json"))
                    .filter(Files::isRegularFile)
                    .sorted(Comparator.comparing(MeasuredFigures::modified).reversed())
                    .toList();
        } catch (IOException e) {
            throw new MeasuredFigures.ReportException("cannot list " + reportsDirectory + ": " + e.getMessage());
        }
        for (Path candidate : candidates) {
            try {
                ModelledStages m = read(candidate);
                if (m.stages().stream().anyMatch(s -> s.pipeline().equals(pipeline))) {
                    return Optional.of(m.of(pipeline));
                }
            } catch (MeasuredFigures.ReportException e) {
                // a load report, or a bench of something else: not this pipeline's model
            }
        }
        return Optional.empty();
    }

    /** Only the stages of {@code pipeline}. */
    public ModelledStages of(String pipeline) {
        return new ModelledStages(
                report,
                generatedAt,
                stages.stream().filter(s -> s.pipeline().equals(pipeline)).toList());
    }

    /** Every stage's requests per 1,000 events added up (a re-key hop's events are the source's). */
    public Map<String, Double> requestsPer1000() {
        Map<String, Double> out = new LinkedHashMap<>();
        for (Stage s : stages) {
            s.requestsPer1000().forEach((k, v) -> out.merge(k, v, Double::sum));
        }
        return out;
    }
}
