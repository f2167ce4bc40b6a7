package dev.sluice.verify.reconcile;

import dev.sluice.aws.kpl.AggregatedPuts;
import dev.sluice.aws.kpl.KplAggregates;
import dev.sluice.aws.kpl.KplAggregator;
import dev.sluice.aws.kpl.ShardMapCache;
import dev.sluice.aws.kpl.UserRecord;
import dev.sluice.generators.GeneratedEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongConsumer;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.PutRecordsRequestEntry;
import software.amazon.awssdk.services.kinesis.model.PutRecordsResponse;
import software.amazon.awssdk.services.kinesis.model.PutRecordsResultEntry;

/**
 * Puts events as the Kinesis Producer Library does with aggregation on: user records packed into
 * KPL aggregates per shard ({@link KplAggregator}), from a shard map listed once and listed again
 * only when a put shows the stream was resharded ({@link AggregatedPuts}: an aggregate consumers
 * would drop is put again, packed with the fresh map); the aggregates put in waves of one a shard
 * with PutRecords (at most 500 and 5 MiB a call), only the aggregates a partial failure names sent
 * again, all of them when a put gets no answer. The ledger has one entry per user record: the
 * aggregate's shard and sequence number and the record's sub-sequence. Optionally the first user
 * record of every n-th aggregate is put alone in an aggregate whose MD5 digest is corrupt (the rest
 * of that aggregate follows in a valid one): its ledger entry is the corrupt aggregate, to be
 * dead-lettered whole as {@code MALFORMED_AGGREGATE}, so the ledger still has one entry per event.
 */
public final class AggregatingProducer {

    private static final int MAX_ENTRIES = 500;
    private static final int MAX_REQUEST_BYTES = 5 * 1024 * 1024;
    private static final int MAX_ATTEMPTS = 10;

    /** The reason code a corrupted aggregate must be dead-lettered with. */
    public static final String MALFORMED_AGGREGATE = "MALFORMED_AGGREGATE";

    private final KinesisClient kinesis;
    private final String stream;
    private final int maxBytes;
    private final int corruptEvery;
    private final AtomicLong ambiguous = new AtomicLong();
    private final AtomicLong kinesisRecords = new AtomicLong();
    private final AtomicLong aggregates = new AtomicLong();
    private final AtomicLong misplaced = new AtomicLong();
    /** The stream's shards, listed at the first send and again only when a put shows a reshard. */
    private final ShardMapCache shards;

    /**
     * @param maxBytes the size limit of one aggregate ({@link KplAggregator#DEFAULT_MAX_BYTES} is the
     *     KPL's)
     * @param corruptEvery corrupt every n-th aggregate put; 0 for none
     */
    public AggregatingProducer(KinesisClient kinesis, String stream, int maxBytes, int corruptEvery) {
        this.kinesis = kinesis;
        this.stream = stream;
        this.maxBytes = maxBytes;
        this.corruptEvery = corruptEvery;
        this.shards = new ShardMapCache(kinesis, stream);
    }

    public AggregatingProducer(KinesisClient kinesis, String stream) {
        this(kinesis, stream, KplAggregator.DEFAULT_MAX_BYTES, 0);
    }

    /** Aggregates put again because a put got no answer. */
    public long ambiguous() {
        return ambiguous.get();
    }

    /** How many times this producer listed the stream's shards: 1 + the reshards its puts revealed. */
    public long shardListings() {
        return shards.listings();
    }

    /**
     * Aggregates that landed on a shard (after a reshard) where consumers drop them whole, and whose
     * records were put again.
     */
    public long misplaced() {
        return misplaced.get();
    }

    /** Kinesis records acknowledged (aggregates), what an event-source mapping counts. */
    public long kinesisRecords() {
        return kinesisRecords.get();
    }

    /**
     * Sends every event and returns the ledger: one entry per user record (or per corrupted
     * aggregate), in sending order.
     *
     * @param progress told the running count of ledger entries
     */
    public List<LedgerEntry> send(List<GeneratedEvent> events, LongConsumer progress) {
        List<UserRecord> users = new ArrayList<>(events.size());
        for (GeneratedEvent event : events) {
            users.add(new UserRecord(event.partitionKey(), event.data()));
        }
        Map<byte[], GeneratedEvent> corrupted = new IdentityHashMap<>();
        AggregatedPuts puts =
                new AggregatedPuts(shards, maxBytes, aggregate -> shape(aggregate, users, events, corrupted));
        List<LedgerEntry> ledger = new ArrayList<>(events.size());
        for (AggregatedPuts.Placed placed : puts.put(users, this::put)) {
            KplAggregator.Aggregate aggregate = placed.aggregate();
            GeneratedEvent whole = corrupted.get(aggregate.data());
            if (whole != null) {
                ledger.add(new LedgerEntry(
                        whole, placed.landed().shardId(), placed.landed().sequenceNumber(), 0));
            } else {
                for (int sub = 0; sub < aggregate.indexes().size(); sub++) {
                    ledger.add(new LedgerEntry(
                            events.get(aggregate.indexes().get(sub)),
                            placed.landed().shardId(),
                            placed.landed().sequenceNumber(),
                            sub));
                }
            }
            kinesisRecords.incrementAndGet();
        }
        misplaced.addAndGet(puts.misplaced());
        progress.accept(ledger.size());
        return ledger;
    }

    /**
     * What is put for one aggregate: itself, or — every n-th when corrupting — its first user record
     * alone in an aggregate with a corrupt digest (put with the same hash key, so on the same shard),
     * then the others in a valid one.
     */
    private List<KplAggregator.Aggregate> shape(
            KplAggregator.Aggregate aggregate,
            List<UserRecord> users,
            List<GeneratedEvent> events,
            Map<byte[], GeneratedEvent> corrupted) {
        long n = aggregates.incrementAndGet();
        if (corruptEvery == 0 || n % corruptEvery != 0) {
            return List.of(aggregate);
        }
        int first = aggregate.indexes().get(0);
        byte[] corrupt = KplAggregates.encode(List.of(users.get(first)));
        corrupt[corrupt.length - 1] ^= 1;
        corrupted.put(
                corrupt,
                new GeneratedEvent(
                        "corrupt-aggregate-" + events.get(first).eventId(),
                        events.get(first).partitionKey(),
                        corrupt,
                        MALFORMED_AGGREGATE));
        List<KplAggregator.Aggregate> shaped = new ArrayList<>(2);
        shaped.add(new KplAggregator.Aggregate(
                aggregate.shardId(), aggregate.partitionKey(), aggregate.explicitHashKey(), corrupt, List.of(first)));
        List<Integer> rest = aggregate.indexes().subList(1, aggregate.indexes().size());
        if (!rest.isEmpty()) {
            List<UserRecord> restUsers = new ArrayList<>(rest.size());
            rest.forEach(i -> restUsers.add(users.get(i)));
            shaped.add(new KplAggregator.Aggregate(
                    aggregate.shardId(),
                    aggregate.partitionKey(),
                    aggregate.explicitHashKey(),
                    KplAggregates.encode(restUsers),
                    List.copyOf(rest)));
        }
        return shaped;
    }

    /**
     * Puts one wave (at most one aggregate a shard), 500 and 5 MiB a call, until Kinesis accepted
     * each: only the aggregates a partial failure names are sent again, all of them when a put gets
     * no answer.
     */
    private List<AggregatedPuts.Landed> put(List<KplAggregator.Aggregate> wave) {
        List<AggregatedPuts.Landed> landed = new ArrayList<>(wave.size());
        int from = 0;
        while (from < wave.size()) {
            int to = from;
            long bytes = 0;
            while (to < wave.size() && to - from < MAX_ENTRIES) {
                long size =
                        wave.get(to).data().length + wave.get(to).partitionKey().length() * 4L;
                if (to > from && bytes + size > MAX_REQUEST_BYTES) {
                    break;
                }
                bytes += size;
                to++;
            }
            landed.addAll(putChunk(wave.subList(from, to)));
            from = to;
        }
        return landed;
    }

    private List<AggregatedPuts.Landed> putChunk(List<KplAggregator.Aggregate> chunk) {
        AggregatedPuts.Landed[] landed = new AggregatedPuts.Landed[chunk.size()];
        List<Integer> pending = new ArrayList<>();
        for (int i = 0; i < chunk.size(); i++) {
            pending.add(i);
        }
        for (int attempt = 1; !pending.isEmpty(); attempt++) {
            if (attempt > MAX_ATTEMPTS) {
                throw new IllegalStateException(pending.size() + " aggregates could not be put into " + stream);
            }
            List<PutRecordsRequestEntry> entries = new ArrayList<>(pending.size());
            for (int index : pending) {
                KplAggregator.Aggregate aggregate = chunk.get(index);
                entries.add(PutRecordsRequestEntry.builder()
                        .partitionKey(aggregate.partitionKey())
                        .explicitHashKey(aggregate.explicitHashKey())
                        .data(SdkBytes.fromByteArray(aggregate.data()))
                        .build());
            }
            PutRecordsResponse response;
            try {
                response = kinesis.putRecords(b -> b.streamName(stream).records(entries));
            } catch (SdkException e) {
                ambiguous.addAndGet(entries.size());
                LockSupport.parkNanos(Duration.ofMillis(50L * attempt).toNanos());
                continue;
            }
            List<Integer> failed = new ArrayList<>();
            for (int i = 0; i < response.records().size(); i++) {
                PutRecordsResultEntry result = response.records().get(i);
                if (result.errorCode() == null) {
                    landed[pending.get(i)] = new AggregatedPuts.Landed(result.shardId(), result.sequenceNumber());
                } else {
                    failed.add(pending.get(i));
                }
            }
            pending = failed;
            if (!pending.isEmpty()) {
                LockSupport.parkNanos(Duration.ofMillis(50L * attempt).toNanos());
            }
        }
        return List.of(landed);
    }
}
