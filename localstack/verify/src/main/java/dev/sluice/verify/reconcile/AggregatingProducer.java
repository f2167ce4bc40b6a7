package dev.sluice.verify.reconcile;

import dev.sluice.aws.kpl.KplAggregates;
import dev.sluice.aws.kpl.KplAggregator;
import dev.sluice.aws.kpl.ShardMap;
import dev.sluice.aws.kpl.UserRecord;
import dev.sluice.generators.GeneratedEvent;
import java.math.BigInteger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongConsumer;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.PutRecordsRequestEntry;
import software.amazon.awssdk.services.kinesis.model.PutRecordsResponse;
import software.amazon.awssdk.services.kinesis.model.PutRecordsResultEntry;
import software.amazon.awssdk.services.kinesis.model.Shard;

/**
 * Puts events as the Kinesis Producer Library does with aggregation on: user records packed into
 * KPL aggregates per shard ({@link KplAggregator}, from the stream's open shards), the aggregates put
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
    }

    public AggregatingProducer(KinesisClient kinesis, String stream) {
        this(kinesis, stream, KplAggregator.DEFAULT_MAX_BYTES, 0);
    }

    /** Aggregates put again because a put got no answer. */
    public long ambiguous() {
        return ambiguous.get();
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
        List<KplAggregator.Aggregate> packed = new KplAggregator(shards(), maxBytes).aggregate(users);
        List<Put> puts = new ArrayList<>(packed.size());
        for (KplAggregator.Aggregate aggregate : packed) {
            long n = aggregates.incrementAndGet();
            if (corruptEvery > 0 && n % corruptEvery == 0) {
                // the aggregate's first user record alone, in an aggregate with a corrupt digest (put
                // with the same hash key, so on the same shard); the others in a valid one after it
                int first = aggregate.indexes().get(0);
                byte[] corrupt = KplAggregates.encode(List.of(users.get(first)));
                corrupt[corrupt.length - 1] ^= 1;
                GeneratedEvent whole = new GeneratedEvent(
                        "corrupt-aggregate-" + events.get(first).eventId(),
                        events.get(first).partitionKey(),
                        corrupt,
                        MALFORMED_AGGREGATE);
                puts.add(new Put(
                        new KplAggregator.Aggregate(
                                aggregate.shardId(),
                                aggregate.partitionKey(),
                                aggregate.explicitHashKey(),
                                corrupt,
                                List.of(first)),
                        corrupt,
                        List.of(whole)));
                List<Integer> rest =
                        aggregate.indexes().subList(1, aggregate.indexes().size());
                if (!rest.isEmpty()) {
                    List<UserRecord> restUsers = new ArrayList<>(rest.size());
                    List<GeneratedEvent> carried = new ArrayList<>(rest.size());
                    rest.forEach(i -> {
                        restUsers.add(users.get(i));
                        carried.add(events.get(i));
                    });
                    byte[] data = KplAggregates.encode(restUsers);
                    puts.add(new Put(
                            new KplAggregator.Aggregate(
                                    aggregate.shardId(),
                                    aggregate.partitionKey(),
                                    aggregate.explicitHashKey(),
                                    data,
                                    List.copyOf(rest)),
                            data,
                            carried));
                }
            } else {
                List<GeneratedEvent> carried =
                        new ArrayList<>(aggregate.indexes().size());
                aggregate.indexes().forEach(i -> carried.add(events.get(i)));
                puts.add(new Put(aggregate, aggregate.data(), carried));
            }
        }
        List<LedgerEntry> ledger = new ArrayList<>(events.size());
        int from = 0;
        while (from < puts.size()) {
            int to = from;
            long bytes = 0;
            while (to < puts.size() && to - from < MAX_ENTRIES) {
                long size = puts.get(to).data.length
                        + puts.get(to).aggregate.partitionKey().length() * 4L;
                if (to > from && bytes + size > MAX_REQUEST_BYTES) {
                    break;
                }
                bytes += size;
                to++;
            }
            ledger.addAll(put(puts.subList(from, to)));
            progress.accept(ledger.size());
            from = to;
        }
        return ledger;
    }

    private record Put(KplAggregator.Aggregate aggregate, byte[] data, List<GeneratedEvent> carried) {}

    private List<LedgerEntry> put(List<Put> chunk) {
        List<List<LedgerEntry>> placed = new ArrayList<>(chunk.size());
        List<Integer> pending = new ArrayList<>();
        for (int i = 0; i < chunk.size(); i++) {
            placed.add(null);
            pending.add(i);
        }
        for (int attempt = 1; !pending.isEmpty(); attempt++) {
            if (attempt > MAX_ATTEMPTS) {
                throw new IllegalStateException(pending.size() + " aggregates could not be put into " + stream);
            }
            List<PutRecordsRequestEntry> entries = new ArrayList<>(pending.size());
            for (int index : pending) {
                Put put = chunk.get(index);
                entries.add(PutRecordsRequestEntry.builder()
                        .partitionKey(put.aggregate.partitionKey())
                        .explicitHashKey(put.aggregate.explicitHashKey())
                        .data(SdkBytes.fromByteArray(put.data))
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
                int index = pending.get(i);
                if (result.errorCode() == null) {
                    Put put = chunk.get(index);
                    List<LedgerEntry> entriesOf = new ArrayList<>(put.carried.size());
                    for (int sub = 0; sub < put.carried.size(); sub++) {
                        entriesOf.add(
                                new LedgerEntry(put.carried.get(sub), result.shardId(), result.sequenceNumber(), sub));
                    }
                    placed.set(index, entriesOf);
                    kinesisRecords.incrementAndGet();
                } else {
                    failed.add(index);
                }
            }
            pending = failed;
            if (!pending.isEmpty()) {
                LockSupport.parkNanos(Duration.ofMillis(50L * attempt).toNanos());
            }
        }
        List<LedgerEntry> ledger = new ArrayList<>();
        placed.forEach(ledger::addAll);
        return ledger;
    }

    /** The stream's open shards by hash-key range. */
    private ShardMap shards() {
        List<ShardMap.Range> ranges = new ArrayList<>();
        String token = null;
        do {
            String next = token;
            var response = kinesis.listShards(b -> {
                if (next == null) {
                    b.streamName(stream);
                } else {
                    b.nextToken(next);
                }
            });
            for (Shard shard : response.shards()) {
                if (shard.sequenceNumberRange().endingSequenceNumber() == null) {
                    ranges.add(new ShardMap.Range(
                            shard.shardId(),
                            new BigInteger(shard.hashKeyRange().startingHashKey()),
                            new BigInteger(shard.hashKeyRange().endingHashKey())));
                }
            }
            token = response.nextToken();
        } while (token != null);
        return new ShardMap(ranges);
    }
}
