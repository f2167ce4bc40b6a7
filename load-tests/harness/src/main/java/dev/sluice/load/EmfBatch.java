package dev.sluice.load;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.aws.metrics.EmfMetrics;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * One batch as a stage's function reported it in Embedded Metric Format ({@link EmfMetrics}):
 * when every sink of the batch was durable, and which records it covered.
 *
 * @param timestampMillis {@code _aws.Timestamp}: taken after every sink of the batch was durable
 * @param shardId the batch's shard
 * @param firstSequenceNumber the batch's first record ({@code null} from functions that predate it)
 * @param lastSequenceNumber its last record
 * @param failedFromSequenceNumber the first record not done, when the batch was incomplete
 * @param records records in the batch
 * @param deadLettered records sent to the dead-letter queue
 * @param absorbed duplicates the sinks recognised
 * @param millisBehindLatest what a KCL worker reported ({@code MillisBehindLatest}); -1 from Lambda
 */
public record EmfBatch(
        long timestampMillis,
        String shardId,
        String firstSequenceNumber,
        String lastSequenceNumber,
        String failedFromSequenceNumber,
        long records,
        long deadLettered,
        long absorbed,
        long millisBehindLatest) {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    /** A batch a function reported (no {@code MillisBehindLatest}). */
    public EmfBatch(
            long timestampMillis,
            String shardId,
            String firstSequenceNumber,
            String lastSequenceNumber,
            String failedFromSequenceNumber,
            long records,
            long deadLettered,
            long absorbed) {
        this(
                timestampMillis,
                shardId,
                firstSequenceNumber,
                lastSequenceNumber,
                failedFromSequenceNumber,
                records,
                deadLettered,
                absorbed,
                -1);
    }

    /** Parses one EMF line, or {@code null} when it is another pipeline's or stage's. */
    public static EmfBatch parse(String line, String pipeline, String stage) {
        try {
            JsonNode d = MAPPER.readTree(line);
            if (!pipeline.equals(d.path("pipeline").asText())
                    || !stage.equals(d.path("stage").asText())) {
                return null;
            }
            return new EmfBatch(
                    d.at("/_aws/Timestamp").asLong(),
                    d.path("shardId").asText(),
                    d.hasNonNull("firstSequenceNumber")
                            ? d.get("firstSequenceNumber").asText()
                            : null,
                    d.hasNonNull("lastSequenceNumber")
                            ? d.get("lastSequenceNumber").asText()
                            : null,
                    d.hasNonNull("failedFromSequenceNumber")
                            ? d.get("failedFromSequenceNumber").asText()
                            : null,
                    d.path(EmfMetrics.RECORDS).asLong(),
                    d.path(EmfMetrics.DEAD_LETTERED).asLong(),
                    d.path(EmfMetrics.ABSORBED_DUPLICATES).asLong(),
                    d.has(EmfMetrics.MILLIS_BEHIND_LATEST)
                            ? d.get(EmfMetrics.MILLIS_BEHIND_LATEST).asLong()
                            : -1);
        } catch (IOException e) {
            return null; // a line cut short by a crash: not a batch
        }
    }

    /** The batches of one stage in a metrics file, from a byte offset on. */
    public static List<EmfBatch> read(Path file, long fromOffset, String pipeline, String stage) {
        List<EmfBatch> batches = new ArrayList<>();
        if (!Files.exists(file)) {
            return batches;
        }
        try (RandomAccessFile in = new RandomAccessFile(file.toFile(), "r")) {
            in.seek(fromOffset);
            byte[] rest = new byte[(int) (in.length() - fromOffset)];
            in.readFully(rest);
            for (String line : new String(rest, StandardCharsets.UTF_8).split("\n")) {
                if (!line.isBlank()) {
                    EmfBatch batch = parse(line, pipeline, stage);
                    if (batch != null) {
                        batches.add(batch);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read metrics " + file, e);
        }
        return batches;
    }
}
