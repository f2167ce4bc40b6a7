package dev.sluice.verify.reconcile;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import software.amazon.awssdk.services.kinesis.KinesisClient;

/**
 * Per-key order across a re-key hop: in the hop's stream, the events of one partition key that came
 * from one shard of the first stage's input (their {@code origin}) must appear — the first time each
 * appears — in their origin order. Events of one key from different origin shards have no order to
 * keep; later copies of an event (a batch put again) are at least once by nature and skipped.
 */
public final class HopOrder {

    private final KinesisClient kinesis;
    private final ObjectMapper mapper = new ObjectMapper();

    public HopOrder(KinesisClient kinesis) {
        this.kinesis = kinesis;
    }

    /**
     * @param records records in the hop
     * @param copies records that were a later copy of an event already seen
     * @param violations events found after a later event of the same key and origin shard
     * @param examples the first few violations, for people
     */
    public record Result(long records, long copies, long violations, List<String> examples) {}

    public Result check(String stream) {
        Set<String> seen = new HashSet<>();
        Map<String, BigInteger[]> lastByKeyAndOrigin = new HashMap<>();
        List<String> examples = new ArrayList<>();
        long records = 0;
        long copies = 0;
        long violations = 0;
        for (StreamRecords.UserRecordAt record : StreamRecords.readAll(kinesis, stream)) {
            records++;
            JsonNode event;
            try {
                event = mapper.readTree(record.data());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            if (!seen.add(event.path("eventId").asText())) {
                copies++;
                continue;
            }
            JsonNode origin = event.path("origin");
            String key =
                    record.partitionKey() + " from " + origin.path("shardId").asText();
            BigInteger[] position = {
                new BigInteger(origin.path("sequenceNumber").asText("0")),
                BigInteger.valueOf(origin.path("subSequenceNumber").asLong(0))
            };
            BigInteger[] last = lastByKeyAndOrigin.put(key, position);
            if (last != null && compare(position, last) < 0) {
                violations++;
                if (examples.size() < 10) {
                    examples.add(key + ": " + event.path("eventId").asText() + " (origin " + position[0] + ") after "
                            + last[0]);
                }
            }
        }
        return new Result(records, copies, violations, List.copyOf(examples));
    }

    private static int compare(BigInteger[] a, BigInteger[] b) {
        int sequence = a[0].compareTo(b[0]);
        return sequence != 0 ? sequence : a[1].compareTo(b[1]);
    }
}
