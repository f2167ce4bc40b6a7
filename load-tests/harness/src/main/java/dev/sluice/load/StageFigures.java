package dev.sluice.load;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;

/**
 * One stage's figures in a load run: latency (the event's {@code occurredAt} → every sink of the
 * stage's batch durable), throughput and lag, from the stage's EMF batch lines. The stage fed by the
 * produced stream is matched against what the producer sent; a stage further down (the clickstream's
 * KCL {@code page-counts}, reading the re-key hop) against the records read back from its input
 * stream, each carrying the event's original {@code occurredAt}: its latency is therefore end to end
 * through every stage before it.
 *
 * @param stage the stage's name
 * @param consumer {@code lambda} or {@code kcl}
 * @param input the stream it reads (the local name)
 * @param records records in its input stream during the run
 * @param batches batches it reported
 * @param latency latency summary (null when nothing matched)
 * @param eventsPerSecond records ÷ (first send → the stage's last durable batch)
 * @param maxLag the most records produced (by event time) and not yet durable at the end of a second
 * @param maxMillisBehindLatest the largest {@code MillisBehindLatest} it reported (KCL; -1 otherwise)
 * @param seconds per-second throughput, latency and lag
 */
public record StageFigures(
        String stage,
        String consumer,
        String input,
        long records,
        long batches,
        LoadResult.Latency latency,
        double eventsPerSecond,
        long maxLag,
        long maxMillisBehindLatest,
        List<LatencyAccounting.Second> seconds) {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    /** One record read back from a stream: where it is and its bytes. */
    public record StreamRecord(String shardId, String sequenceNumber, long arrivedAtMillis, byte[] data) {}

    /**
     * The records of a stream as if the harness had sent them: position and the event's {@code
     * occurredAt}. A record without a readable {@code occurredAt} (not an event of ours) is left out
     * and counted by the caller as records − sent.
     */
    public static List<LatencyAccounting.Sent> sentFrom(List<StreamRecord> records) {
        List<LatencyAccounting.Sent> sent = new ArrayList<>(records.size());
        for (StreamRecord r : records) {
            try {
                JsonNode event = MAPPER.readTree(r.data());
                String occurredAt =
                        event == null ? "" : event.path("occurredAt").asText("");
                if (occurredAt.isEmpty()) {
                    continue;
                }
                sent.add(new LatencyAccounting.Sent(
                        r.shardId(),
                        r.sequenceNumber(),
                        Instant.parse(occurredAt).toEpochMilli(),
                        r.arrivedAtMillis()));
            } catch (IOException | DateTimeParseException e) {
                // not an event with an event time: no latency to measure
            }
        }
        return sent;
    }

    /** Accounts one stage's batches against the records of its input. */
    public static StageFigures of(
            String stage,
            String consumer,
            String input,
            long records,
            List<LatencyAccounting.Sent> sent,
            List<EmfBatch> batches,
            long startMillis) {
        LatencyAccounting.Result accounting = LatencyAccounting.account(sent, batches, startMillis);
        LoadResult.Latency latency = LoadResult.Latency.of(accounting);
        long firstSend = sent.stream()
                .mapToLong(LatencyAccounting.Sent::occurredAtMillis)
                .min()
                .orElse(startMillis);
        long lastWrite =
                batches.stream().mapToLong(EmfBatch::timestampMillis).max().orElse(firstSend);
        double seconds = Math.max(1e-3, (lastWrite - firstSend) / 1000.0);
        long maxLag = accounting.seconds().stream()
                .mapToLong(LatencyAccounting.Second::lag)
                .max()
                .orElse(0);
        long behind =
                batches.stream().mapToLong(EmfBatch::millisBehindLatest).max().orElse(-1);
        return new StageFigures(
                stage,
                consumer,
                input,
                records,
                batches.size(),
                latency,
                accounting.matched() / seconds,
                maxLag,
                behind,
                accounting.seconds());
    }
}
