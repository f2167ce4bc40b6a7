package dev.sluice.aws.kpl;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Packs user records into KPL aggregates, as the Kinesis Producer Library does: one aggregate holds
 * records of one shard only (by explicit hash key or the MD5 of the partition key), in the order
 * they were given, so per-key order holds; an aggregate closes when the next record would take its
 * Kinesis record (data plus partition key) over {@code maxBytes} or past {@link
 * KplAggregates#MAX_RECORDS}. The aggregate is put with the first record's partition key and, as
 * explicit hash key, that record's hash key, so Kinesis routes it to the shard of its records.
 */
public final class KplAggregator {

    /** Kinesis' limit for one record: data and partition key together. */
    public static final int MAX_RECORD_BYTES = 1024 * 1024;

    /** The KPL's default {@code AggregationMaxSize}. */
    public static final int DEFAULT_MAX_BYTES = 51_200;

    /**
     * One aggregate to put.
     *
     * @param shardId the shard its records hash to
     * @param partitionKey the partition key to put it with (its first record's)
     * @param explicitHashKey the explicit hash key to put it with (its first record's hash key)
     * @param data the aggregate's bytes
     * @param indexes which of the given user records it holds, in sub-sequence order
     */
    public record Aggregate(
            String shardId, String partitionKey, String explicitHashKey, byte[] data, List<Integer> indexes) {}

    private final Function<BigInteger, String> group;
    private final int maxBytes;

    /**
     * An aggregator that packs the records of one shard together.
     *
     * @param maxBytes the most bytes of one aggregate's Kinesis record (data plus partition key), at
     *     most {@link #MAX_RECORD_BYTES}
     */
    public KplAggregator(ShardMap shards, int maxBytes) {
        this(shards::shardFor, maxBytes);
    }

    private KplAggregator(Function<BigInteger, String> group, int maxBytes) {
        if (maxBytes < 64 || maxBytes > MAX_RECORD_BYTES) {
            throw new IllegalArgumentException(
                    "an aggregate's size limit is 64 to " + MAX_RECORD_BYTES + " bytes, not " + maxBytes);
        }
        this.group = group;
        this.maxBytes = maxBytes;
    }

    /**
     * An aggregator for a writer that does not know the stream's shards: it packs together only
     * records of one hash key (one partition key, or one explicit hash key), which always share a
     * shard whatever the stream's layout. {@link Aggregate#shardId()} is then the hash key.
     */
    public static KplAggregator byHashKey(int maxBytes) {
        return new KplAggregator(BigInteger::toString, maxBytes);
    }

    /**
     * The aggregates of these records, ordered by their first record.
     *
     * @throws IllegalArgumentException if one record alone does not fit in an aggregate
     */
    public List<Aggregate> aggregate(List<UserRecord> records) {
        Map<String, Open> open = new LinkedHashMap<>();
        List<Open> closed = new ArrayList<>();
        for (int i = 0; i < records.size(); i++) {
            UserRecord record = records.get(i);
            BigInteger hash = ShardMap.hashKey(record.partitionKey(), record.explicitHashKey());
            String shard = group.apply(hash);
            Open current = open.get(shard);
            if (current != null && !current.fits(record, maxBytes)) {
                closed.add(current);
                current = null;
            }
            if (current == null) {
                current = new Open(shard, record.partitionKey(), hash.toString());
                if (!current.fits(record, maxBytes)) {
                    throw new IllegalArgumentException("user record " + i + " (" + record.data().length
                            + " bytes) does not fit in an aggregate of at most " + maxBytes + " bytes");
                }
                open.put(shard, current);
            }
            current.add(i, record);
        }
        closed.addAll(open.values());
        closed.sort((a, b) -> Integer.compare(a.indexes.get(0), b.indexes.get(0)));
        List<Aggregate> aggregates = new ArrayList<>(closed.size());
        for (Open o : closed) {
            byte[] data = KplAggregates.encode(o.records);
            aggregates.add(new Aggregate(o.shard, o.partitionKey, o.hashKey, data, List.copyOf(o.indexes)));
        }
        return aggregates;
    }

    /** An aggregate being filled: its size is tracked exactly as {@link KplAggregates#encode} writes it. */
    private static final class Open {
        final String shard;
        final String partitionKey;
        final String hashKey;
        final List<UserRecord> records = new ArrayList<>();
        final List<Integer> indexes = new ArrayList<>();
        final Set<String> partitionKeys = new HashSet<>();
        final Set<String> hashKeys = new HashSet<>();
        int bytes;

        Open(String shard, String partitionKey, String hashKey) {
            this.shard = shard;
            this.partitionKey = partitionKey;
            this.hashKey = hashKey;
            this.bytes = KplAggregates.envelopeSize() + partitionKey.getBytes(StandardCharsets.UTF_8).length;
        }

        int growth(UserRecord r) {
            int added = 0;
            int pkIndex = partitionKeys.size();
            if (!partitionKeys.contains(r.partitionKey())) {
                added += KplAggregates.tableEntrySize(r.partitionKey());
            }
            int hkIndex = hashKeys.size();
            if (r.explicitHashKey() != null && !hashKeys.contains(r.explicitHashKey())) {
                added += KplAggregates.tableEntrySize(r.explicitHashKey());
            }
            // indexes are at most the table sizes: an upper bound of the varint's length
            return added + KplAggregates.recordOverhead(r, pkIndex, hkIndex);
        }

        boolean fits(UserRecord r, int maxBytes) {
            return records.size() < KplAggregates.MAX_RECORDS && bytes + growth(r) <= maxBytes;
        }

        void add(int index, UserRecord r) {
            bytes += growth(r);
            partitionKeys.add(r.partitionKey());
            if (r.explicitHashKey() != null) {
                hashKeys.add(r.explicitHashKey());
            }
            records.add(r);
            indexes.add(index);
        }
    }
}
