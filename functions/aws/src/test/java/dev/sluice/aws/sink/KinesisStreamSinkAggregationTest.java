package dev.sluice.aws.sink;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.aws.kpl.KplAggregates;
import dev.sluice.aws.kpl.ShardMap;
import dev.sluice.aws.kpl.UserRecord;
import dev.sluice.core.event.InboundRecord;
import dev.sluice.core.event.Position;
import dev.sluice.core.event.ProcessedEvent;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.ListShardsRequest;
import software.amazon.awssdk.services.kinesis.model.ListShardsResponse;
import software.amazon.awssdk.services.kinesis.model.PutRecordsRequest;
import software.amazon.awssdk.services.kinesis.model.PutRecordsRequestEntry;
import software.amazon.awssdk.services.kinesis.model.PutRecordsResponse;
import software.amazon.awssdk.services.kinesis.model.PutRecordsResultEntry;
import software.amazon.awssdk.services.kinesis.model.Shard;

/** What the re-key sink puts with {@code aggregate: true}: KPL aggregates, one shard's records each. */
class KinesisStreamSinkAggregationTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    /**
     * Records the put requests and accepts every entry, on the shard its hash key falls in ({@code
     * actual}); {@code ListShards} answers {@code listed} (stale until {@link #reshard} is over).
     */
    private static class RecordingKinesis implements KinesisClient {
        final List<PutRecordsRequest> requests = new ArrayList<>();
        final List<String> landedOn = new ArrayList<>();
        ShardMap actual;
        List<Shard> listed;
        List<Shard> afterListing;
        int listings;

        RecordingKinesis(List<Shard> shards) {
            this.listed = shards;
            this.actual = map(shards);
        }

        /** The stream now has {@code now}; the first listing still answers the old shards. */
        void reshard(List<Shard> now) {
            this.actual = map(now);
            this.afterListing = now;
        }

        @Override
        public ListShardsResponse listShards(ListShardsRequest request) {
            listings++;
            List<Shard> answer = listed;
            if (afterListing != null) {
                listed = afterListing;
            }
            return ListShardsResponse.builder().shards(answer).build();
        }

        @Override
        public PutRecordsResponse putRecords(PutRecordsRequest request) {
            requests.add(request);
            List<PutRecordsResultEntry> results = new ArrayList<>();
            for (int i = 0; i < request.records().size(); i++) {
                PutRecordsRequestEntry e = request.records().get(i);
                String shard = actual.shardFor(ShardMap.hashKey(e.partitionKey(), e.explicitHashKey()));
                landedOn.add(shard);
                results.add(PutRecordsResultEntry.builder()
                        .shardId(shard)
                        .sequenceNumber(Integer.toString(landedOn.size()))
                        .build());
            }
            return PutRecordsResponse.builder()
                    .failedRecordCount(0)
                    .records(results)
                    .build();
        }

        @Override
        public String serviceName() {
            return "kinesis";
        }

        @Override
        public void close() {}

        List<PutRecordsRequestEntry> entries() {
            return requests.stream().flatMap(r -> r.records().stream()).toList();
        }
    }

    private static final BigInteger HALF = BigInteger.TWO.pow(127);

    private static Shard shard(String id, BigInteger from, BigInteger to) {
        return Shard.builder()
                .shardId(id)
                .hashKeyRange(h -> h.startingHashKey(from.toString()).endingHashKey(to.toString()))
                .sequenceNumberRange(r -> r.startingSequenceNumber("1"))
                .build();
    }

    private static final List<Shard> ONE_SHARD =
            List.of(shard("shardId-000000000000", BigInteger.ZERO, ShardMap.MAX_HASH_KEY));
    private static final List<Shard> TWO_SHARDS = List.of(
            shard("shardId-000000000001", BigInteger.ZERO, HALF.subtract(BigInteger.ONE)),
            shard("shardId-000000000002", HALF, ShardMap.MAX_HASH_KEY));

    private static ShardMap map(List<Shard> shards) {
        return new ShardMap(shards.stream()
                .map(s -> new ShardMap.Range(
                        s.shardId(),
                        new BigInteger(s.hashKeyRange().startingHashKey()),
                        new BigInteger(s.hashKeyRange().endingHashKey())))
                .toList());
    }

    private static ProcessedEvent event(int i, String page, long subSequence) {
        return event(i, page, subSequence, "");
    }

    private static ProcessedEvent event(int i, String page, long subSequence, String filler) {
        ObjectNode json = MAPPER.createObjectNode().put("eventId", "view-" + i).put("page", page);
        if (!filler.isEmpty()) {
            json.put("filler", filler);
        }
        InboundRecord source = new InboundRecord(
                "clicks-masked",
                new Position("shardId-000000000003", "4959", subSequence),
                "visitor-" + i,
                json.toString().getBytes(StandardCharsets.UTF_8),
                Instant.EPOCH);
        return new ProcessedEvent(source, "view-" + i, page, Instant.EPOCH, json);
    }

    @Test
    void anAggregatingSinkPutsOneAggregatePerShardHoldingItsEventsInOrderAndListsTheShardsOnce() throws Exception {
        RecordingKinesis kinesis = new RecordingKinesis(TWO_SHARDS);
        KinesisStreamSink sink = new KinesisStreamSink(kinesis, "clicks-by-page", "page", true);
        ShardMap shards = map(TWO_SHARDS);
        List<ProcessedEvent> events = new ArrayList<>();
        List<String> pages = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            String page = "/page-" + (i % 8);
            pages.add(page);
            events.add(event(i, page, i));
        }

        assertThat(sink.write(events).applied()).isEqualTo(40);
        sink.write(List.of(event(40, "/page-0", 40)));

        assertThat(kinesis.listings).isEqualTo(1);
        List<PutRecordsRequestEntry> first = kinesis.requests.get(0).records();
        // eight pages over two shards: one aggregate per shard, not one per page
        assertThat(first).hasSize(2);
        List<String> all = new ArrayList<>();
        for (PutRecordsRequestEntry entry : first) {
            String shard = shards.shardFor(ShardMap.hashKey(entry.partitionKey(), entry.explicitHashKey()));
            List<UserRecord> users = KplAggregates.decode(entry.data().asByteArray());
            assertThat(users)
                    .allSatisfy(u -> assertThat(shards.shardFor(ShardMap.hashKey(u.partitionKey(), null)))
                            .isEqualTo(shard));
            List<Integer> order = new ArrayList<>();
            for (UserRecord u : users) {
                String id = MAPPER.readTree(u.data()).path("eventId").asText();
                all.add(id);
                order.add(Integer.parseInt(id.substring("view-".length())));
            }
            assertThat(order).isSorted();
        }
        assertThat(all).hasSize(40).doesNotHaveDuplicates();
        UserRecord firstUser =
                KplAggregates.decode(first.get(0).data().asByteArray()).get(0);
        assertThat(MAPPER.readTree(firstUser.data())
                        .path("origin")
                        .path("subSequenceNumber")
                        .isMissingNode())
                .isTrue(); // sub-sequence 0 is not written
    }

    @Test
    void anAggregateKinesisPutsOnAnotherShardIsPackedAgainWithTheShardsListedAfresh() throws Exception {
        RecordingKinesis kinesis = new RecordingKinesis(ONE_SHARD);
        kinesis.reshard(TWO_SHARDS);
        KinesisStreamSink sink = new KinesisStreamSink(kinesis, "clicks-by-page", "page", true);
        ShardMap now = map(TWO_SHARDS);
        List<ProcessedEvent> events = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            events.add(event(i, "/page-" + (i % 6), i));
        }

        sink.write(events);

        assertThat(kinesis.listings).isEqualTo(2);
        // the stale listing packed everything for shard 0, which no longer takes records
        assertThat(kinesis.requests.get(0).records()).hasSize(1);
        // every event is in an aggregate that landed on the shard all of its records hash to
        List<String> wellPlaced = new ArrayList<>();
        List<PutRecordsRequestEntry> entries = kinesis.entries();
        for (int i = 0; i < entries.size(); i++) {
            List<UserRecord> users = KplAggregates.decode(entries.get(i).data().asByteArray());
            String landed = kinesis.landedOn.get(i);
            if (users.stream()
                    .allMatch(u -> now.shardFor(ShardMap.hashKey(u.partitionKey(), null))
                            .equals(landed))) {
                for (UserRecord u : users) {
                    wellPlaced.add(MAPPER.readTree(u.data()).path("eventId").asText());
                }
            }
        }
        assertThat(wellPlaced)
                .containsAll(events.stream().map(ProcessedEvent::eventId).toList());
    }

    @Test
    void aRefusedAggregateIsInItsShardBeforeAnyLaterAggregateOfThatShardSoPerKeyOrderHolds() throws Exception {
        // one page, so one shard; events big enough for several 50 KB aggregates per write
        RecordingKinesis kinesis = new RecordingKinesis(TWO_SHARDS) {
            boolean refused;

            @Override
            public PutRecordsResponse putRecords(PutRecordsRequest request) {
                if (!refused) {
                    refused = true; // the first entry of the first request: throttled, not stored
                    requests.add(request);
                    List<PutRecordsResultEntry> results = new ArrayList<>();
                    results.add(PutRecordsResultEntry.builder()
                            .errorCode("ProvisionedThroughputExceededException")
                            .errorMessage("Rate exceeded for shard")
                            .build());
                    PutRecordsResponse rest = super.putRecords(PutRecordsRequest.builder()
                            .streamName(request.streamName())
                            .records(request.records()
                                    .subList(1, request.records().size()))
                            .build());
                    requests.remove(requests.size() - 1);
                    results.addAll(rest.records());
                    return PutRecordsResponse.builder()
                            .failedRecordCount(1)
                            .records(results)
                            .build();
                }
                return super.putRecords(request);
            }
        };
        KinesisStreamSink sink = new KinesisStreamSink(kinesis, "clicks-by-page", "page", true);
        List<ProcessedEvent> events = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            events.add(event(i, "/home", i, "x".repeat(2_000)));
        }

        sink.write(events);

        // what the shard holds, in order: every stored aggregate's records (the refused one was not stored)
        List<Integer> stored = new ArrayList<>();
        for (int r = 0; r < kinesis.requests.size(); r++) {
            List<PutRecordsRequestEntry> entries = kinesis.requests.get(r).records();
            for (int i = r == 0 ? 1 : 0; i < entries.size(); i++) {
                for (UserRecord u : KplAggregates.decode(entries.get(i).data().asByteArray())) {
                    String id = MAPPER.readTree(u.data()).path("eventId").asText();
                    stored.add(Integer.parseInt(id.substring("view-".length())));
                }
            }
        }
        assertThat(stored).hasSize(200).isSorted();
        assertThat(kinesis.requests.size()).isGreaterThan(2); // several aggregates, one a request
    }

    @Test
    void aSinkThatDoesNotAggregatePutsOneRecordPerEventWithoutListingShards() throws Exception {
        RecordingKinesis kinesis = new RecordingKinesis(TWO_SHARDS);
        KinesisStreamSink sink = new KinesisStreamSink(kinesis, "clicks-by-page", "page");

        sink.write(List.of(event(0, "/home", 0), event(1, "/home", 1)));

        assertThat(kinesis.entries()).hasSize(2);
        assertThat(kinesis.listings).isZero();
    }
}
