package dev.sluice.verify.reconcile;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.aws.sink.DynamoDbStateSink;
import dev.sluice.aws.sink.S3LakeSink;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The lake against its deduplicate table in claim mode (a deduplicating stage at a
 * parallelization factor above 1, docs/exactly-once.md section 5), as {@link LakeLedgerCheck} holds
 * it against the commit ledger otherwise: every object holding records carries the token of the
 * batch write that put it, and each of its events' deduplicate items names it as the event's lake
 * object. An event in an object its item does not name is one a redelivery cannot account for (it
 * would be re-pointed and written again); tombstones hold no records and are skipped. Claim mode
 * writes no ledger: a ledger item under the lake's prefix means the stage did not run in claim mode.
 */
public final class LakeClaimCheck {

    private final S3Client s3;
    private final DynamoDbClient dynamoDb;
    private final ObjectMapper mapper = new ObjectMapper();

    public LakeClaimCheck(S3Client s3, DynamoDbClient dynamoDb) {
        this.s3 = s3;
        this.dynamoDb = dynamoDb;
    }

    /** What this check looked at: objects with records, tombstones, events read. */
    public record Figures(int objects, int tombstones, int events) {}

    /** The problems found, in words, and what was looked at. */
    public record Result(List<String> problems, Figures figures) {}

    /**
     * Checks the objects under {@code prefix} against the deduplicate table (items keyed by {@code
     * eventId}, the lake object in {@link DynamoDbStateSink#LAKE}) and the ledger table (no item
     * under the prefix).
     */
    public Result check(String bucket, String prefix, String deduplicateTable, String ledgerTable) {
        List<String> problems = new ArrayList<>();
        Map<String, String> named = new HashMap<>();
        for (Map<String, AttributeValue> item : dynamoDb.scanPaginator(
                        b -> b.tableName(deduplicateTable).consistentRead(true))
                .items()) {
            AttributeValue id = item.get("eventId");
            AttributeValue lake = item.get(DynamoDbStateSink.LAKE);
            if (id != null && lake != null && lake.s() != null) {
                named.put(id.s(), lake.s());
            }
        }
        if (ledgerTable != null) {
            for (Map<String, AttributeValue> item : dynamoDb.scanPaginator(
                            b -> b.tableName(ledgerTable).consistentRead(true))
                    .items()) {
                String pk = item.get("pk") == null ? "" : item.get("pk").s();
                if (pk.startsWith(prefix)) {
                    problems.add("ledger item " + pk + " in " + ledgerTable + ": the stage wrote the commit ledger"
                            + " although it runs in claim mode");
                }
            }
        }
        int objects = 0;
        int tombstones = 0;
        int events = 0;
        for (S3Object object :
                s3.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(prefix)).contents()) {
            Map<String, String> metadata =
                    s3.headObject(b -> b.bucket(bucket).key(object.key())).metadata();
            if (S3LakeSink.isTombstone(metadata)) {
                tombstones++;
                continue;
            }
            objects++;
            if (metadata.get(S3LakeSink.TOKEN) == null) {
                problems.add("s3://" + bucket + "/" + object.key() + " carries no " + S3LakeSink.TOKEN
                        + ": not written by a claim-mode batch write");
            }
            for (String eventId : eventIds(bucket, object.key())) {
                events++;
                String lake = named.get(eventId);
                if (!object.key().equals(lake)) {
                    problems.add("event " + eventId + " is in s3://" + bucket + "/" + object.key()
                            + " but its deduplicate item names " + (lake == null ? "no lake object" : lake));
                }
            }
        }
        return new Result(List.copyOf(problems), new Figures(objects, tombstones, events));
    }

    private List<String> eventIds(String bucket, String key) {
        return LakeOrder.eventIds(s3, mapper, bucket, key);
    }
}
