package dev.sluice.core.stage;

import static dev.sluice.core.stage.StageChainTest.RAW;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.event.DeadLetter;
import dev.sluice.core.event.InboundRecord;
import dev.sluice.core.event.ReasonCode;
import dev.sluice.core.testing.Events;
import dev.sluice.core.testing.MemoryDeadLetters;
import dev.sluice.core.testing.MemorySink;
import dev.sluice.core.window.PartialAggregate;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A record the aggregate sink refuses for good (it names it by position) goes to the dead-letter
 * queue as {@code SINK_REJECTED} with its payload and the sink's message, and the rest of the batch
 * completes: the other sinks hold every accepted event, the aggregate counts the others.
 */
class AggregateRefusalTest {

    /** Refuses the records at the given sequence numbers, counting the rest of each partial. */
    static final class RefusingAggregates implements AggregateSink {
        final Set<String> refuse;
        final List<PartialAggregate> written = new ArrayList<>();

        RefusingAggregates(Set<String> refuse) {
            this.refuse = refuse;
        }

        @Override
        public String name() {
            return "aggregates:spend";
        }

        @Override
        public SinkReport write(List<PartialAggregate> partials) {
            List<SinkReport.Refused> refused = new ArrayList<>();
            int applied = 0;
            for (PartialAggregate partial : partials) {
                written.add(partial);
                for (int i = 0; i < partial.contributions().size(); i++) {
                    String sequence = partial.contributions().sequenceNumber(i);
                    if (refuse.contains(sequence)) {
                        refused.add(new SinkReport.Refused(
                                partial.shardId(),
                                sequence,
                                "ValidationException: Number overflow. Attempting to store a number with"
                                        + " magnitude larger than supported range"));
                    } else {
                        applied++;
                    }
                }
            }
            return new SinkReport(applied, 0, List.of(), refused);
        }
    }

    @Test
    void aRecordTheAggregateSinkRefusesIsDeadLetteredWithItsPayloadAndTheBatchCompletes() throws IOException {
        MemorySink lake = new MemorySink();
        MemoryDeadLetters dlq = new MemoryDeadLetters();
        RefusingAggregates aggregates = new RefusingAggregates(Set.of("2"));
        BatchProcessor processor =
                new BatchProcessor(StageChainTest.paymentsChain(), Map.of(lake.name(), lake), aggregates, dlq);
        List<InboundRecord> batch = List.of(
                RAW.at("1", Events.fixture("payment-valid.json")),
                RAW.at("2", Events.fixture("payment-valid.json")),
                RAW.at("3", Events.fixture("payment-malformed.json")),
                RAW.at("4", Events.fixture("payment-valid.json")));

        BatchResult result = processor.process(batch);

        assertThat(result.complete()).isTrue();
        assertThat(result.deadLettered()).isEqualTo(2);
        assertThat(lake.written()).hasSize(3);
        assertThat(result.sinks().get("aggregates:spend").applied()).isEqualTo(2);
        assertThat(dlq.sent())
                .extracting(d -> d.source().position().sequenceNumber(), DeadLetter::code)
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple("3", ReasonCode.MALFORMED_JSON),
                        org.assertj.core.groups.Tuple.tuple("2", ReasonCode.SINK_REJECTED));
        DeadLetter refused = dlq.sent().stream()
                .filter(d -> d.code() == ReasonCode.SINK_REJECTED)
                .findFirst()
                .orElseThrow();
        assertThat(refused.source().data()).isEqualTo(batch.get(1).data());
        assertThat(refused.detail())
                .isEqualTo("aggregates:spend: ValidationException: Number overflow. Attempting"
                        + " to store a number with magnitude larger than supported range");
    }

    @Test
    void aRefusedUserRecordOfAnAggregateIsDeadLetteredAloneNotItsSiblings() throws IOException {
        MemorySink lake = new MemorySink();
        MemoryDeadLetters dlq = new MemoryDeadLetters();
        // the second user record of the aggregate at sequence number 7
        RefusingAggregates aggregates = new RefusingAggregates(Set.of("7.1"));
        BatchProcessor processor =
                new BatchProcessor(StageChainTest.paymentsChain(), Map.of(lake.name(), lake), aggregates, dlq);
        List<InboundRecord> batch = new ArrayList<>();
        for (int sub = 0; sub < 3; sub++) {
            InboundRecord plain = RAW.at("7", Events.fixture("payment-valid.json"));
            batch.add(new InboundRecord(
                    plain.stream(),
                    new dev.sluice.core.event.Position(plain.position().shardId(), "7", sub),
                    plain.partitionKey(),
                    plain.data(),
                    plain.arrivedAt()));
        }

        BatchResult result = processor.process(batch);

        assertThat(result.complete()).isTrue();
        assertThat(result.sinks().get("aggregates:spend").applied()).isEqualTo(2);
        assertThat(dlq.sent())
                .extracting(d -> d.source().position().subSequence(), DeadLetter::code)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(1L, ReasonCode.SINK_REJECTED));
    }
}
