package dev.sluice.verify.reconcile;

import dev.sluice.aws.sink.S3LakeSink;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The lake against its commit ledger: every object holding records must be named by the ledger —
 * its last position at or before its partition's {@code committed}, or it is the partition's open
 * intent — and no object may hold records under the key of an intent that was abandoned (such a key
 * is claimed by a tombstone, an object of no records, which readers skip). An object the ledger does
 * not name holds records no redelivery will account for: records reported given up although they are
 * in the lake, or records twice in it.
 */
public final class LakeLedgerCheck {

    private final S3Client s3;
    private final DynamoDbClient dynamoDb;

    public LakeLedgerCheck(S3Client s3, DynamoDbClient dynamoDb) {
        this.s3 = s3;
        this.dynamoDb = dynamoDb;
    }

    /**
     * The problems, in words: objects under {@code prefix} no ledger entry names, and objects holding
     * records under one of {@code abandonedKeys} (keys of intents another writer abandoned, seen by the
     * fault suite).
     */
    public List<String> check(String bucket, String prefix, String ledgerTable, Collection<String> abandonedKeys) {
        List<String> problems = new ArrayList<>();
        if (bucket == null || ledgerTable == null) {
            return problems;
        }
        for (String key : abandonedKeys) {
            if (holdsRecords(bucket, key)) {
                problems.add("s3://" + bucket + "/" + key + " holds records under the key of an intent another"
                        + " invocation abandoned: no ledger entry names it");
            }
        }
        for (Map<String, AttributeValue> item : dynamoDb.scanPaginator(
                        b -> b.tableName(ledgerTable).consistentRead(true))
                .items()) {
            String pk = item.get("pk").s();
            if (!pk.startsWith(prefix)) {
                continue;
            }
            String committed =
                    item.containsKey("committed") ? item.get("committed").s() : null;
            String open =
                    item.containsKey("open") ? item.get("open").m().get("key").s() : null;
            for (S3Object object : s3.listObjectsV2Paginator(
                            b -> b.bucket(bucket).prefix(objectPrefix(pk)))
                    .contents()) {
                if (object.key().equals(open)) {
                    continue;
                }
                Map<String, String> metadata = metadata(bucket, object.key());
                if (metadata == null || S3LakeSink.isTombstone(metadata)) {
                    continue;
                }
                String last = metadata.get(S3LakeSink.LAST_POSITION);
                if (last == null || committed == null || last.compareTo(committed) > 0) {
                    problems.add("s3://" + bucket + "/" + object.key() + " ends at " + last + ", after what the"
                            + " ledger item " + pk + " has committed (" + committed + "): no ledger entry names it");
                }
            }
        }
        return problems;
    }

    /** Whether an object holding records (not a tombstone) exists under {@code key}. */
    public boolean holdsRecords(String bucket, String key) {
        Map<String, String> metadata = metadata(bucket, key);
        return metadata != null && !S3LakeSink.isTombstone(metadata);
    }

    /** The ledger's open intents: ledger item key → the key of the object being written. */
    public static Map<String, String> openIntents(DynamoDbClient dynamoDb, String ledgerTable) {
        Map<String, String> open = new HashMap<>();
        for (Map<String, AttributeValue> item : dynamoDb.scanPaginator(
                        b -> b.tableName(ledgerTable).consistentRead(true))
                .items()) {
            AttributeValue intent = item.get("open");
            if (intent != null && intent.hasM()) {
                open.put(item.get("pk").s(), intent.m().get("key").s());
            }
        }
        return open;
    }

    /**
     * Where a ledger item's objects are: {@code <prefix>dt=…/hr=…/<stream>/<shard>} →
     * {@code <prefix>dt=…/hr=…/<stream>-<shard>-}.
     */
    static String objectPrefix(String pk) {
        int shard = pk.lastIndexOf('/');
        int stream = pk.lastIndexOf('/', shard - 1);
        return pk.substring(0, stream + 1) + pk.substring(stream + 1, shard) + "-" + pk.substring(shard + 1) + "-";
    }

    private Map<String, String> metadata(String bucket, String key) {
        try {
            HeadObjectResponse head = s3.headObject(b -> b.bucket(bucket).key(key));
            return head.metadata();
        } catch (NoSuchKeyException e) {
            return null;
        } catch (S3Exception e) {
            if (e.statusCode() == 404) {
                return null;
            }
            throw e;
        }
    }
}
