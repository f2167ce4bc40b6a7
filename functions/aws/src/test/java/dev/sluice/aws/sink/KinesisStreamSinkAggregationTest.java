package dev.sluice.aws.sink;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.aws.kpl.KplAggregates;
import dev.sluice.aws.kpl.MalformedAggregateException;
import dev.sluice.aws.kpl.UserRecord;
import dev.sluice.core.event.InboundRecord;
import dev.sluice.core.event.Position;
import dev.sluice.core.event.ProcessedEvent;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.PutRecordsRequest;
import software.amazon.awssdk.services.kinesis.model.PutRecordsRequestEntry;
import software.amazon.awssdk.services.kinesis.model.PutRecordsResponse;
import software.amazon.awssdk.services.kinesis.model.PutRecordsResultEntry;

/** What the re-key sink puts with {@code aggregate: true}: KPL aggregates, one partition key each. */
class KinesisStreamSinkAggregationTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    /** Records the put requests and accepts every entry. */
    private static final class RecordingKinesis implements KinesisClient {
        final List<PutRecordsRequest> requests = new ArrayList<>();

        @Override
        public PutRecordsResponse putRecords(PutRecordsRequest request) {
            requests.add(request);
            List<PutRecordsResultEntry> results = new ArrayList<>();
            for (int i = 0; i < request.records().size(); i++) {
                results.add(PutRecordsResultEntry.builder()
                        .shardId("shardId-000000000000")
                        .sequenceNumber(Integer.toString(i + 1))
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

    private static ProcessedEvent event(int i, String page, long subSequence) {
        ObjectNode json = MAPPER.createObjectNode().put("eventId", "view-" + i).put("page", page);
        InboundRecord source = new InboundRecord(
                "clicks-masked",
                new Position("shardId-000000000003", "4959", subSequence),
                "visitor-" + i,
                json.toString().getBytes(StandardCharsets.UTF_8),
                Instant.EPOCH);
        return new ProcessedEvent(source, "view-" + i, page, Instant.EPOCH, json);
    }

    @Test
    void anAggregatingSinkPutsOneAggregatePerPartitionKeyHoldingItsEventsInOrder() throws Exception {
        RecordingKinesis kinesis = new RecordingKinesis();
        KinesisStreamSink sink = new KinesisStreamSink(kinesis, "clicks-by-page", "page", true);
        List<ProcessedEvent> events = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            events.add(event(i, i % 2 == 0 ? "/home" : "/cart", i));
        }

        assertThat(sink.write(events).applied()).isEqualTo(6);

        List<PutRecordsRequestEntry> entries = kinesis.entries();
        assertThat(entries).extracting(PutRecordsRequestEntry::partitionKey).containsExactly("/home", "/cart");
        List<String> home = eventIds(entries.get(0));
        assertThat(home).containsExactly("view-0", "view-2", "view-4");
        assertThat(eventIds(entries.get(1))).containsExactly("view-1", "view-3", "view-5");
        UserRecord first =
                KplAggregates.decode(entries.get(0).data().asByteArray()).get(0);
        assertThat(MAPPER.readTree(first.data())
                        .path("origin")
                        .path("subSequenceNumber")
                        .isMissingNode())
                .isTrue(); // sub-sequence 0 is not written
        UserRecord third =
                KplAggregates.decode(entries.get(0).data().asByteArray()).get(2);
        assertThat(MAPPER.readTree(third.data())
                        .path("origin")
                        .path("subSequenceNumber")
                        .asLong())
                .isEqualTo(4);
    }

    @Test
    void aSinkThatDoesNotAggregatePutsOneRecordPerEvent() throws Exception {
        RecordingKinesis kinesis = new RecordingKinesis();
        KinesisStreamSink sink = new KinesisStreamSink(kinesis, "clicks-by-page", "page");

        sink.write(List.of(event(0, "/home", 0), event(1, "/home", 1)));

        assertThat(kinesis.entries()).hasSize(2);
    }

    private static List<String> eventIds(PutRecordsRequestEntry entry) throws MalformedAggregateException {
        List<String> ids = new ArrayList<>();
        for (UserRecord user : KplAggregates.decode(entry.data().asByteArray())) {
            assertThat(user.partitionKey()).isEqualTo(entry.partitionKey());
            try {
                ids.add(MAPPER.readTree(user.data()).path("eventId").asText());
            } catch (java.io.IOException e) {
                throw new AssertionError(e);
            }
        }
        return ids;
    }
}
