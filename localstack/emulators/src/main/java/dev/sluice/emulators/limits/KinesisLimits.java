package dev.sluice.emulators.limits;

import java.time.InstantSource;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * Kinesis Data Streams' per-shard quotas, metered with token buckets of one second's allowance on an
 * injectable clock (AWS: "Quotas and limits", Amazon Kinesis Data Streams developer guide,
 * https://docs.aws.amazon.com/streams/latest/dev/service-sizes-and-limits.html):
 *
 * <ul>
 *   <li>writes: 1,000 records/s and 1 MiB/s (data + partition key) per shard;
 *   <li>reads: 5 GetRecords calls/s and 2 MiB/s per shard; a big read puts the shard's read allowance
 *       into debt, so the next calls are throttled until it is paid back, as AWS does.
 * </ul>
 *
 * <p>And two control-plane rates, as the Kinesis API reference states them: "ListShards [...] has a
 * limit of 1000 transactions per second per data stream" (API_ListShards) and "DescribeStreamSummary
 * has a limit of 20 transactions per second per account" (API_DescribeStreamSummary; per account,
 * not per stream — one {@code KinesisLimits} meters one account's gate). A call over either is
 * refused with HTTP 400 and {@code "__type": "LimitExceededException"}, the error both operations
 * document. The SDK v2 does not count {@code LimitExceededException} as throttling (it is not among
 * its throttling or retryable error codes), so callers retry it themselves, as the KCL's shard
 * detector does ({@code dev.sluice.aws.kpl.ShardMaps} for Sluice's own listings).
 *
 * <p>On-demand streams have the same per-shard quotas (AWS scales their shard count, which the local
 * stack does not). The shard of a record is found as Kinesis does ({@link ShardMap}); the map of a
 * stream comes from {@code shardLister} (the gate asks the emulator's ListShards) and is read again
 * after a reshard or when a record falls in no known shard.
 */
public final class KinesisLimits {

    public static final int WRITE_RECORDS_PER_SECOND = 1_000;
    public static final long WRITE_BYTES_PER_SECOND = 1L << 20;
    public static final int READ_CALLS_PER_SECOND = 5;
    public static final long READ_BYTES_PER_SECOND = 2L << 20;
    /** The records one PutRecords may carry. */
    public static final int PUT_RECORDS_RECORDS = 500;
    /** The bytes (data and partition keys) one PutRecords may carry. */
    public static final long PUT_RECORDS_BYTES = 5L << 20;
    /** The records one GetRecords returns at most (and its default {@code Limit}). */
    public static final int GET_RECORDS_RECORDS = 10_000;
    /** The bytes one GetRecords returns at most. */
    public static final long GET_RECORDS_BYTES = 10L << 20;
    /** ListShards calls a second per data stream. */
    public static final int LIST_SHARDS_PER_SECOND = 1_000;
    /** DescribeStreamSummary calls a second per account. */
    public static final int DESCRIBE_STREAM_SUMMARY_PER_SECOND = 20;
    /** The error code of a control-plane call over its rate. */
    public static final String LIMIT_EXCEEDED = "LimitExceededException";
    /** The error code of a throttled write or read. */
    public static final String THROTTLED = "ProvisionedThroughputExceededException";

    private final InstantSource clock;
    private final Function<String, ShardMap> shardLister;
    private final String account;
    private final long getRecordsBytes;
    private final Map<String, ShardMap> maps = new ConcurrentHashMap<>();
    private final Map<String, Shard> shards = new ConcurrentHashMap<>();
    private final AtomicLong throttledRecords = new AtomicLong();
    private final AtomicLong throttledReads = new AtomicLong();
    private final AtomicLong refusedControlCalls = new AtomicLong();
    private final Map<String, TokenBucket> listShards = new ConcurrentHashMap<>();
    private TokenBucket describeStreamSummary;
    /** epoch second → {records throttled, GetRecords calls throttled} */
    private final ConcurrentSkipListMap<Long, AtomicLong[]> throttlesPerSecond = new ConcurrentSkipListMap<>();

    /**
     * @param shardLister the open shards of a stream by its name
     * @param account the account named in throttling messages
     */
    public KinesisLimits(InstantSource clock, Function<String, ShardMap> shardLister, String account) {
        this(clock, shardLister, account, GET_RECORDS_BYTES);
    }

    /**
     * Like {@link #KinesisLimits(InstantSource, Function, String)} with another cap on the bytes one
     * GetRecords returns (tests: kinesis-mock needs about a minute to hand out 10 MiB).
     */
    public KinesisLimits(
            InstantSource clock, Function<String, ShardMap> shardLister, String account, long getRecordsBytes) {
        this.clock = clock;
        this.shardLister = shardLister;
        this.account = account;
        this.getRecordsBytes = getRecordsBytes;
    }

    /** The most bytes one GetRecords returns ({@link #GET_RECORDS_BYTES} unless set otherwise). */
    public long getRecordsBytes() {
        return getRecordsBytes;
    }

    private final class Shard {
        final TokenBucket writeRecords = new TokenBucket(WRITE_RECORDS_PER_SECOND, WRITE_RECORDS_PER_SECOND, clock);
        final TokenBucket writeBytes = new TokenBucket(WRITE_BYTES_PER_SECOND, WRITE_BYTES_PER_SECOND, clock);
        final TokenBucket readCalls = new TokenBucket(READ_CALLS_PER_SECOND, READ_CALLS_PER_SECOND, clock);
        final TokenBucket readBytes = new TokenBucket(READ_BYTES_PER_SECOND, READ_BYTES_PER_SECOND, clock);
    }

    private Shard shard(String stream, String shardId) {
        return shards.computeIfAbsent(stream + "/" + shardId, key -> new Shard());
    }

    /** The verdict on one record of a write. */
    public record Write(String shardId, boolean accepted) {}

    /**
     * Meters one record written to a stream: accepted (and counted against its shard) if the shard's
     * records and bytes allowances both hold it, else throttled.
     *
     * @param bytes the data's size plus the partition key's
     */
    public Write write(String stream, String partitionKey, String explicitHashKey, long bytes) {
        ShardMap map = maps.computeIfAbsent(stream, shardLister);
        java.math.BigInteger hash = ShardMap.hashKey(partitionKey, explicitHashKey);
        String shardId = map.shardOf(hash);
        if (shardId == null) {
            map = shardLister.apply(stream);
            maps.put(stream, map);
            shardId = map.shardOf(hash);
            if (shardId == null) {
                return new Write(null, true); // unknown stream: the emulator answers as it does
            }
        }
        Shard shard = shard(stream, shardId);
        synchronized (shard) {
            if (shard.writeRecords.has(1) && shard.writeBytes.has(bytes)) {
                shard.writeRecords.tryTake(1);
                shard.writeBytes.tryTake(bytes);
                return new Write(shardId, true);
            }
        }
        throttledRecords.incrementAndGet();
        countThrottle(0);
        return new Write(shardId, false);
    }

    /** Whether a GetRecords call on the shard may go ahead (counting the call); else it is throttled. */
    public boolean read(String stream, String shardId) {
        Shard shard = shard(stream, shardId);
        synchronized (shard) {
            if (shard.readBytes.positive() && shard.readCalls.tryTake(1)) {
                return true;
            }
        }
        throttledReads.incrementAndGet();
        countThrottle(1);
        return false;
    }

    /** Counts the bytes a GetRecords call returned against the shard's read allowance. */
    public void readBytes(String stream, String shardId, long bytes) {
        shard(stream, shardId).readBytes.debit(bytes);
    }

    /**
     * Whether a ListShards call on the stream may go ahead (counting it), else it is over the
     * stream's 1,000 a second.
     */
    public boolean listShards(String stream) {
        TokenBucket bucket = listShards.computeIfAbsent(
                stream, s -> new TokenBucket(LIST_SHARDS_PER_SECOND, LIST_SHARDS_PER_SECOND, clock));
        return control(bucket);
    }

    /** Whether a DescribeStreamSummary call may go ahead (counting it), else it is over the account's 20 a second. */
    public boolean describeStreamSummary() {
        TokenBucket bucket;
        synchronized (this) {
            if (describeStreamSummary == null) {
                describeStreamSummary =
                        new TokenBucket(DESCRIBE_STREAM_SUMMARY_PER_SECOND, DESCRIBE_STREAM_SUMMARY_PER_SECOND, clock);
            }
            bucket = describeStreamSummary;
        }
        return control(bucket);
    }

    private boolean control(TokenBucket bucket) {
        if (bucket.tryTake(1)) {
            return true;
        }
        refusedControlCalls.incrementAndGet();
        return false;
    }

    /** ListShards and DescribeStreamSummary calls refused so far. */
    public long refusedControlCalls() {
        return refusedControlCalls.get();
    }

    /** The message of a refused control-plane call (AWS documents the error, not its wording). */
    public String limitMessage(String operation, String stream) {
        return "Rate exceeded for " + operation + (stream == null ? "" : " of stream " + stream) + " under account "
                + account + ".";
    }

    /** Forgets a stream's shard map (after a reshard or a new stream): it is read again when needed. */
    public void reshaped(String stream) {
        maps.remove(stream);
    }

    /** AWS's message for a throttled record or call. */
    public String message(String stream, String shardId) {
        return "Rate exceeded for shard " + shardId + " in stream " + stream + " under account " + account + ".";
    }

    private void countThrottle(int kind) {
        long second = clock.instant().getEpochSecond();
        throttlesPerSecond.computeIfAbsent(second, s -> new AtomicLong[] {new AtomicLong(), new AtomicLong()})[kind]
                .incrementAndGet();
        while (throttlesPerSecond.size() > 3_600) {
            throttlesPerSecond.pollFirstEntry();
        }
    }

    /** Records refused so far (PutRecord and PutRecords entries). */
    public long throttledRecords() {
        return throttledRecords.get();
    }

    /** GetRecords calls refused so far. */
    public long throttledReads() {
        return throttledReads.get();
    }

    /**
     * The throttles of one second.
     *
     * @param records PutRecord and PutRecords entries refused
     * @param reads GetRecords calls refused
     */
    public record Throttles(long records, long reads) {
        public long total() {
            return records + reads;
        }
    }

    /** Throttles per epoch second (seconds without any are left out), the last hour. */
    public Map<Long, Throttles> throttlesPerSecond() {
        Map<Long, Throttles> out = new java.util.TreeMap<>();
        throttlesPerSecond.forEach(
                (second, counts) -> out.put(second, new Throttles(counts[0].get(), counts[1].get())));
        return out;
    }
}
