package dev.sluice.verify.reconcile;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import software.amazon.awssdk.services.kinesis.KinesisClient;

/**
 * Per-key order in an output stream a stage forwards to (one shard per key, as every stream): the
 * first time each event appears, its key's events must appear in the order the input stream gave
 * them, parents before children. Later copies (a batch forwarded again after a takeover) are at
 * least once by nature and are skipped.
 */
public final class StreamOrder {

    private final KinesisClient kinesis;
    private final ObjectMapper mapper = new ObjectMapper();

    public StreamOrder(KinesisClient kinesis) {
        this.kinesis = kinesis;
    }

    /**
     * @param forwarded events found in the stream (each counted once)
     * @param copies records that were a later copy of an event already seen
     * @param violations events found before one of their key's earlier events
     * @param examples the first few violations, for people
     */
    public record Result(long forwarded, long copies, long violations, List<String> examples) {}

    public Result check(List<LedgerEntry> ledger, String stream) {
        Map<String, LedgerEntry> byEventId = new HashMap<>();
        for (LedgerEntry entry : ledger) {
            byEventId.putIfAbsent(entry.event().eventId(), entry);
        }
        Set<String> seen = new HashSet<>();
        Map<String, LedgerEntry> lastByKey = new HashMap<>();
        List<String> examples = new ArrayList<>();
        long copies = 0;
        long violations = 0;
        for (String eventId : eventIds(stream)) {
            if (!seen.add(eventId)) {
                copies++;
                continue;
            }
            LedgerEntry entry = byEventId.get(eventId);
            if (entry == null) {
                continue;
            }
            String key = entry.event().partitionKey();
            LedgerEntry last = lastByKey.put(key, entry);
            if (last != null && compare(entry, last) < 0) {
                violations++;
                if (examples.size() < 10) {
                    examples.add(key + ": " + eventId + " at " + entry.position() + " after " + last.position());
                }
            }
        }
        return new Result(seen.size(), copies, violations, List.copyOf(examples));
    }

    private static int compare(LedgerEntry a, LedgerEntry b) {
        int shard = a.shardId().compareTo(b.shardId());
        if (shard != 0) {
            return shard;
        }
        return LedgerEntry.compareInShard(a, b);
    }

    private List<String> eventIds(String stream) {
        List<String> ids = new ArrayList<>();
        for (StreamRecords.UserRecordAt record : StreamRecords.readAll(kinesis, stream)) {
            try {
                ids.add(mapper.readTree(record.data()).path("eventId").asText());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return ids;
    }
}
