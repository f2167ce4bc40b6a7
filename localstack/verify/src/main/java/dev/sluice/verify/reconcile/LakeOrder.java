package dev.sluice.verify.reconcile;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Per-key order in the lake: reading a shard's objects in position order (parent shards before
 * their children) and each object line by line, every partition key's events must appear in the
 * order the stream gave them. An event found at a position before one of its key's earlier
 * events in the lake is an order violation.
 */
public final class LakeOrder {

    private final S3Client s3;
    private final ObjectMapper mapper = new ObjectMapper();

    public LakeOrder(S3Client s3) {
        this.s3 = s3;
    }

    /** A violation, for people: an event found after one of its key's later events. */
    public record Violation(String key, String eventId, String position, String after) {}

    /** How many events were out of order, and the first few of them. */
    public record Result(long violations, List<Violation> examples) {}

    /** Checks the lake under {@code prefix}, listing at most {@code limit} violations. */
    public Result check(List<LedgerEntry> ledger, String bucket, String prefix, int limit) {
        Map<String, LedgerEntry> byEventId = new HashMap<>();
        for (LedgerEntry entry : ledger) {
            byEventId.putIfAbsent(entry.event().eventId(), entry);
        }
        List<S3Object> objects = new ArrayList<>();
        s3.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(prefix))
                .contents()
                .forEach(objects::add);
        objects.sort(Comparator.comparing((S3Object o) -> shard(o.key())).thenComparing(o -> position(o.key())));
        Map<String, LedgerEntry> lastByKey = new HashMap<>();
        List<Violation> violations = new ArrayList<>();
        long count = 0;
        for (S3Object object : objects) {
            for (String eventId : eventIds(bucket, object.key())) {
                LedgerEntry entry = byEventId.get(eventId);
                if (entry == null) {
                    continue; // not the reconciler's concern here: it reports unexpected records
                }
                String key = entry.event().partitionKey();
                LedgerEntry last = lastByKey.put(key, entry);
                if (last != null && compare(entry, last) < 0) {
                    count++;
                    if (violations.size() < limit) {
                        violations.add(new Violation(key, eventId, entry.position(), last.position()));
                    }
                }
            }
        }
        return new Result(count, List.copyOf(violations));
    }

    private static int compare(LedgerEntry a, LedgerEntry b) {
        int shard = a.shardId().compareTo(b.shardId());
        if (shard != 0) {
            return shard;
        }
        return LedgerEntry.compareInShard(a, b);
    }

    /** {@code .../payments-raw-shardId-000000000001-000…0042.jsonl.gz} → {@code shardId-000000000001}. */
    static String shard(String key) {
        int at = key.lastIndexOf("shardId-");
        return at < 0 ? key : key.substring(at, key.indexOf('-', at + "shardId-".length()));
    }

    /**
     * The sortable first position in an object's name, after its shard: {@code
     * …-shardId-000000000001-<position>[.g<generation>].jsonl.gz} (the commit ledger's keys) or {@code
     * …-shardId-000000000001-<position>-<token>.jsonl.gz} (claim mode's, whose random token must not
     * order them).
     */
    static String position(String key) {
        String name = key.endsWith(".jsonl.gz") ? key.substring(0, key.length() - ".jsonl.gz".length()) : key;
        int shard = name.lastIndexOf("shardId-");
        int afterShard = shard < 0 ? -1 : name.indexOf('-', shard + "shardId-".length());
        if (afterShard < 0) {
            return name.substring(name.lastIndexOf('-') + 1);
        }
        String rest = name.substring(afterShard + 1);
        int token = rest.indexOf('-');
        return token < 0 ? rest : rest.substring(0, token);
    }

    private List<String> eventIds(String bucket, String key) {
        return eventIds(s3, mapper, bucket, key);
    }

    /** The eventIds of one lake object (gzipped JSON lines), in its line order. */
    static List<String> eventIds(S3Client s3, ObjectMapper mapper, String bucket, String key) {
        List<String> ids = new ArrayList<>();
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(
                new GZIPInputStream(s3.getObject(b -> b.bucket(bucket).key(key))), StandardCharsets.UTF_8))) {
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                if (!line.isBlank()) {
                    ids.add(mapper.readTree(line).path("eventId").asText());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read s3://" + bucket + "/" + key, e);
        }
        return ids;
    }
}
