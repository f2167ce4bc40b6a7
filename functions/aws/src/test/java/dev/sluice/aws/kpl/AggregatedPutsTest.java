package dev.sluice.aws.kpl;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.ListShardsRequest;
import software.amazon.awssdk.services.kinesis.model.ListShardsResponse;
import software.amazon.awssdk.services.kinesis.model.Shard;

/** The aggregating put across a reshard, against an in-memory stream (a pure unit test). */
class AggregatedPutsTest {

    private static final BigInteger HALF = BigInteger.TWO.pow(127);

    /** Lists {@code shards}; {@link #put} routes by hash key to the open shard, as Kinesis does. */
    private static final class Stream implements KinesisClient {
        List<Shard> shards =
                new ArrayList<>(List.of(shard("shardId-0", BigInteger.ZERO, ShardMap.MAX_HASH_KEY, false)));
        /** What consumers keep per shard, as the KCL de-aggregates with the shard's range. */
        final List<String> kept = new ArrayList<>();

        int sequence;

        void split() {
            shards = List.of(
                    shard("shardId-0", BigInteger.ZERO, ShardMap.MAX_HASH_KEY, true),
                    shard("shardId-1", BigInteger.ZERO, HALF.subtract(BigInteger.ONE), false),
                    shard("shardId-2", HALF, ShardMap.MAX_HASH_KEY, false));
        }

        ShardMap map() {
            List<ShardMap.Range> open = new ArrayList<>();
            List<ShardMap.Range> closed = new ArrayList<>();
            for (Shard s : shards) {
                ShardMap.Range r = new ShardMap.Range(
                        s.shardId(),
                        new BigInteger(s.hashKeyRange().startingHashKey()),
                        new BigInteger(s.hashKeyRange().endingHashKey()));
                (s.sequenceNumberRange().endingSequenceNumber() == null ? open : closed).add(r);
            }
            return new ShardMap(open, closed);
        }

        List<AggregatedPuts.Landed> put(List<KplAggregator.Aggregate> wave) {
            ShardMap map = map();
            List<AggregatedPuts.Landed> landed = new ArrayList<>();
            for (KplAggregator.Aggregate a : wave) {
                String shard = map.shardFor(new BigInteger(a.explicitHashKey()));
                ShardMap.Range range = map.range(shard).orElseThrow();
                List<UserRecord> users = KplAggregates.decode(a.data());
                boolean keep =
                        users.stream().allMatch(u -> ShardMap.holds(range, ShardMap.hashKey(u.partitionKey(), null)));
                if (keep) {
                    users.forEach(u -> kept.add(new String(u.data(), StandardCharsets.UTF_8)));
                }
                landed.add(new AggregatedPuts.Landed(shard, Integer.toString(++sequence)));
            }
            return landed;
        }

        int listings;

        @Override
        public ListShardsResponse listShards(ListShardsRequest request) {
            listings++;
            return ListShardsResponse.builder().shards(shards).build();
        }

        @Override
        public String serviceName() {
            return "kinesis";
        }

        @Override
        public void close() {}
    }

    private static Shard shard(String id, BigInteger from, BigInteger to, boolean closed) {
        return Shard.builder()
                .shardId(id)
                .hashKeyRange(h -> h.startingHashKey(from.toString()).endingHashKey(to.toString()))
                .sequenceNumberRange(r -> {
                    r.startingSequenceNumber("1");
                    if (closed) {
                        r.endingSequenceNumber("9");
                    }
                })
                .build();
    }

    private static List<UserRecord> records(int from, int count) {
        List<UserRecord> records = new ArrayList<>();
        for (int i = from; i < from + count; i++) {
            records.add(new UserRecord("key-" + (i % 13), ("event-" + i).getBytes(StandardCharsets.UTF_8)));
        }
        return records;
    }

    @Test
    void theShardsAreListedOncePlusOncePerReshardAndEveryRecordIsKeptByConsumersExactlyOnce() {
        Stream stream = new Stream();
        AggregatedPuts puts = new AggregatedPuts(new ShardMapCache(stream, "s"), 1_024);
        List<String> sent = new ArrayList<>();
        List<Integer> placedRecords = new ArrayList<>();
        for (int send = 0; send < 50; send++) {
            if (send == 20) {
                stream.split();
            }
            List<UserRecord> batch = records(send * 40, 40);
            batch.forEach(u -> sent.add(new String(u.data(), StandardCharsets.UTF_8)));
            for (AggregatedPuts.Placed p : puts.put(batch, stream::put)) {
                placedRecords.addAll(p.aggregate().indexes());
            }
        }

        assertThat(stream.listings).isEqualTo(1 + 1); // 50 sends, one reshard
        assertThat(puts.shards().listings()).isEqualTo(2);
        assertThat(puts.misplaced()).isPositive();
        // what consumers keep is every record once: misplaced aggregates were dropped and put again
        assertThat(stream.kept).containsExactlyInAnyOrderElementsOf(sent);
        assertThat(placedRecords).hasSize(sent.size());
    }

    @Test
    void anAggregateThatLandsOnAnotherShardHoldingAllOfItsRecordsIsKeptAndNotSentAgain() {
        Stream stream = new Stream();
        AggregatedPuts puts = new AggregatedPuts(new ShardMapCache(stream, "s"), 1_024);
        puts.put(records(0, 1), stream::put); // lists one shard
        stream.split();
        // one key: every record of the aggregate hashes to the child it lands on
        List<UserRecord> oneKey = List.of(
                new UserRecord("k", "a".getBytes(StandardCharsets.UTF_8)),
                new UserRecord("k", "b".getBytes(StandardCharsets.UTF_8)));

        List<AggregatedPuts.Placed> placed = puts.put(oneKey, stream::put);

        assertThat(placed).hasSize(1);
        assertThat(placed.get(0).landed().shardId()).isNotEqualTo("shardId-0");
        assertThat(puts.misplaced()).isZero();
        assertThat(stream.sequence).isEqualTo(2); // nothing put twice
        assertThat(stream.listings).isEqualTo(2);
        assertThat(stream.kept).containsExactly("event-0", "a", "b");
    }
}
