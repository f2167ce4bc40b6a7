package dev.sluice.aws.metrics;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.core.definition.EnvironmentNames;
import dev.sluice.core.stage.BatchResult;
import dev.sluice.core.stage.SinkReport;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A stage's metrics in CloudWatch Embedded Metric Format: one JSON document per batch, written to
 * standard output, which Lambda ships to CloudWatch Logs, where the metrics are extracted without a
 * single PutMetricData call. Local runs append the same lines to a file ({@link
 * EnvironmentNames#METRICS_FILE}), which the fault suite and the load harness read back.
 *
 * <p>Namespace {@value #NAMESPACE}, dimensions pipeline and stage. The per-sink figures travel as
 * properties of the document (searchable in Logs Insights), not as metrics.
 */
public final class EmfMetrics {

    public static final String NAMESPACE = "Sluice";
    public static final String RECORDS = "Records";
    public static final String ACCEPTED = "Accepted";
    public static final String DEAD_LETTERED = "DeadLettered";
    public static final String APPLIED = "Applied";
    public static final String ABSORBED_DUPLICATES = "AbsorbedDuplicates";
    public static final String FAILED_BATCHES = "FailedBatches";

    /** KCL stages: how far the shard's reader is behind the stream's tip, from KCL. */
    public static final String MILLIS_BEHIND_LATEST = "MillisBehindLatest";
    /** KCL stages: the leases (shards) the reporting worker holds. */
    public static final String LEASES_HELD = "LeasesHeld";

    private static final String[] METRICS = {
        RECORDS, ACCEPTED, DEAD_LETTERED, APPLIED, ABSORBED_DUPLICATES, FAILED_BATCHES
    };

    private final String pipeline;
    private final String stage;
    private final Consumer<String> out;
    private final Clock clock;
    private final ObjectMapper mapper = new ObjectMapper();

    public EmfMetrics(String pipeline, String stage, Consumer<String> out, Clock clock) {
        this.pipeline = pipeline;
        this.stage = stage;
        this.out = out;
        this.clock = clock;
    }

    /** Metrics to standard output, or to the file named by {@link EnvironmentNames#METRICS_FILE}. */
    public static EmfMetrics fromEnvironment(Map<String, String> env, String pipeline, String stage) {
        String file = env.get(EnvironmentNames.METRICS_FILE);
        if (file == null || file.isBlank()) {
            PrintStream stdout = System.out;
            return new EmfMetrics(pipeline, stage, stdout::println, Clock.systemUTC());
        }
        return new EmfMetrics(pipeline, stage, appender(Path.of(file)), Clock.systemUTC());
    }

    private static Consumer<String> appender(Path file) {
        return line -> {
            synchronized (EmfMetrics.class) {
                try {
                    Files.writeString(
                            file,
                            line + "\n",
                            StandardCharsets.UTF_8,
                            StandardOpenOption.CREATE,
                            StandardOpenOption.APPEND);
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot append metrics to " + file, e);
                }
            }
        };
    }

    /** Publishes one batch's figures. */
    public void batch(String shardId, BatchResult result) {
        batch(shardId, null, null, result);
    }

    /**
     * Publishes one batch's figures with the positions it covered. The document's {@code
     * _aws.Timestamp} is taken here, after every sink of the batch is durable, so a reader that
     * knows when each record was produced (the load harness does) gets each record's end-to-end
     * latency: Timestamp − occurredAt, for the records from {@code firstSequenceNumber} to {@code
     * lastSequenceNumber} (before {@code failedFromSequenceNumber} when the batch is incomplete).
     */
    public void batch(String shardId, String firstSequenceNumber, String lastSequenceNumber, BatchResult result) {
        out.accept(document(shardId, firstSequenceNumber, lastSequenceNumber, result)
                .toString());
    }

    /**
     * Publishes one batch's figures as a KCL worker sees them: the Lambda path's metrics plus
     * {@value #MILLIS_BEHIND_LATEST} (milliseconds) and {@value #LEASES_HELD}, and the worker's id as
     * a property (searchable, not a dimension).
     */
    public void kclBatch(
            String shardId, BatchResult result, String workerId, long millisBehindLatest, long leasesHeld) {
        kclBatch(shardId, null, null, result, workerId, millisBehindLatest, leasesHeld);
    }

    /**
     * Like {@link #kclBatch(String, BatchResult, String, long, long)}, with the positions the batch
     * covered, as {@link #batch(String, String, String, BatchResult)} writes them: the load harness
     * matches each record of a KCL stage to the moment its sinks were durable.
     */
    public void kclBatch(
            String shardId,
            String firstSequenceNumber,
            String lastSequenceNumber,
            BatchResult result,
            String workerId,
            long millisBehindLatest,
            long leasesHeld) {
        ObjectNode document = document(shardId, firstSequenceNumber, lastSequenceNumber, result);
        ArrayNode metrics = (ArrayNode)
                document.path("_aws").path("CloudWatchMetrics").path(0).path("Metrics");
        metrics.addObject().put("Name", MILLIS_BEHIND_LATEST).put("Unit", "Milliseconds");
        metrics.addObject().put("Name", LEASES_HELD).put("Unit", "Count");
        document.put(MILLIS_BEHIND_LATEST, Math.max(0, millisBehindLatest));
        document.put(LEASES_HELD, leasesHeld);
        document.put("workerId", workerId);
        out.accept(document.toString());
    }

    private ObjectNode document(
            String shardId, String firstSequenceNumber, String lastSequenceNumber, BatchResult result) {
        long applied = 0;
        long absorbed = 0;
        for (SinkReport report : result.sinks().values()) {
            applied += report.applied();
            absorbed += report.absorbedDuplicates();
        }
        ObjectNode document = mapper.createObjectNode();
        ObjectNode aws = document.putObject("_aws");
        aws.put("Timestamp", clock.millis());
        ObjectNode directive = aws.putArray("CloudWatchMetrics").addObject();
        directive.put("Namespace", NAMESPACE);
        directive.putArray("Dimensions").addArray().add("pipeline").add("stage");
        ArrayNode metrics = directive.putArray("Metrics");
        for (String name : METRICS) {
            metrics.addObject().put("Name", name).put("Unit", "Count");
        }
        document.put("pipeline", pipeline);
        document.put("stage", stage);
        document.put("shardId", shardId);
        if (firstSequenceNumber != null) {
            document.put("firstSequenceNumber", firstSequenceNumber);
            document.put("lastSequenceNumber", lastSequenceNumber);
        }
        result.failedFrom().ifPresent(p -> document.put("failedFromSequenceNumber", p.sequenceNumber()));
        document.put(RECORDS, result.received());
        document.put(ACCEPTED, result.accepted());
        document.put(DEAD_LETTERED, result.deadLettered());
        document.put(APPLIED, applied);
        document.put(ABSORBED_DUPLICATES, absorbed);
        document.put(FAILED_BATCHES, result.complete() ? 0 : 1);
        ObjectNode sinks = document.putObject("sinks");
        result.sinks()
                .forEach((name, report) -> sinks.putObject(name)
                        .put("applied", report.applied())
                        .put("absorbedDuplicates", report.absorbedDuplicates()));
        return document;
    }
}
