package dev.sluice.core.stage;

import static dev.sluice.core.stage.StageChainTest.RAW;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.event.DeadLetter;
import dev.sluice.core.event.InboundRecord;
import dev.sluice.core.event.Position;
import dev.sluice.core.event.ProcessedEvent;
import dev.sluice.core.testing.Events;
import dev.sluice.core.testing.MemoryAggregates;
import dev.sluice.core.testing.MemoryDeadLetters;
import dev.sluice.core.testing.MemorySink;
import java.io.IOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class BatchProcessorTest {

    /** An in-memory sink that can be told to fail its next write. */
    private final MemorySink sink = new MemorySink();

    private final MemoryDeadLetters dlq = new MemoryDeadLetters();
    private final MemoryAggregates aggregates = new MemoryAggregates();
    // the payments stage aggregates spend per currency per hour
    private final BatchProcessor processor =
            new BatchProcessor(StageChainTest.paymentsChain(), Map.of(sink.name(), sink), aggregates, dlq);

    private List<InboundRecord> batch() throws IOException {
        return List.of(
                RAW.at("1", Events.fixture("payment-valid.json")),
                RAW.at("2", Events.fixture("payment-malformed.json")),
                RAW.at("3", Events.fixture("payment-valid.json")));
    }

    @Test
    void completeBatchWritesSinksAndDeadLetters() throws IOException {
        BatchResult result = processor.process(batch());

        assertThat(result.complete()).isTrue();
        assertThat(result.received()).isEqualTo(3);
        assertThat(result.accepted()).isEqualTo(2);
        assertThat(result.deadLettered()).isEqualTo(1);
        assertThat(sink.written()).hasSize(2);
        assertThat(dlq.sent())
                .extracting(d -> d.source().position().sequenceNumber())
                .containsExactly("2");
        assertThat(aggregates.written()).singleElement().satisfies(partial -> {
            assertThat(partial.key()).isEqualTo("EUR");
            assertThat(partial.count()).isEqualTo(2);
            assertThat(partial.sum()).isEqualByComparingTo(new BigDecimal("85.90"));
        });
        assertThat(result.sinks()).containsEntry("memory-aggregates", new SinkReport(2, 0));
    }

    @Test
    void aggregatingStageNeedsAnAggregateSink() {
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> new BatchProcessor(StageChainTest.paymentsChain(), List.of(sink), dlq))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("aggregates but has no aggregate sink");
    }

    @Test
    void failedAggregateSinkRedeliversWholeBatchAndSendsNoDeadLetters() throws IOException {
        aggregates.failNext(1);

        assertWholeBatchRedeliveredWithoutDeadLetters(processor.process(batch()));
    }

    @Test
    void failedSinkRedeliversWholeBatchAndSendsNoDeadLetters() throws IOException {
        sink.failNext(1);

        assertWholeBatchRedeliveredWithoutDeadLetters(processor.process(batch()));
    }

    private void assertWholeBatchRedeliveredWithoutDeadLetters(BatchResult result) {
        assertThat(result.complete()).isFalse();
        assertThat(result.failedFrom())
                .hasValueSatisfying(p -> assertThat(p.sequenceNumber()).isEqualTo("1"));
        assertThat(result.failure())
                .hasValueSatisfying(e -> assertThat(e.retryable()).isTrue());
        assertThat(dlq.sent()).isEmpty();
    }

    @Test
    void failedDeadLetterQueueRedeliversFromTheFirstDeadLetter() throws IOException {
        dlq.failNext(1);

        BatchResult result = processor.process(batch());

        assertThat(result.failedFrom())
                .hasValueSatisfying(p -> assertThat(p.sequenceNumber()).isEqualTo("2"));
        assertThat(sink.written()).hasSize(2);
    }

    /** A de-duplicating sink that has already seen the events at the given sequence numbers elsewhere. */
    static final class MemoryGate implements DeduplicatingSink {
        final List<ProcessedEvent> written = new ArrayList<>();
        final Set<String> resentSequences;

        MemoryGate(Set<String> resentSequences) {
            this.resentSequences = resentSequences;
        }

        @Override
        public String name() {
            return "gate";
        }

        @Override
        public Gated writeAndGate(List<ProcessedEvent> events) {
            Set<Position> resent = new HashSet<>();
            for (ProcessedEvent event : events) {
                if (resentSequences.contains(event.position().sequenceNumber())) {
                    resent.add(event.position());
                } else {
                    written.add(event);
                }
            }
            return new Gated(new SinkReport(written.size(), resent.size()), resent);
        }
    }

    /** A sink that waits for another to start: it completes only if the two run at the same time. */
    static final class MeetingSink implements EventSink {
        final String name;
        final CountDownLatch started;
        final CountDownLatch other;

        MeetingSink(String name, CountDownLatch started, CountDownLatch other) {
            this.name = name;
            this.started = started;
            this.other = other;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public SinkReport write(List<ProcessedEvent> events) throws SinkException {
            started.countDown();
            try {
                if (!other.await(30, TimeUnit.SECONDS)) {
                    throw new SinkException(
                            name + " never met the other sink: sinks ran one after the other", false, null);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SinkException("interrupted", true, e);
            }
            return new SinkReport(events.size(), 0);
        }
    }

    @Test
    void producerResendsFoundByTheGateAreKeptOutOfTheOtherSinks() throws IOException {
        MemoryGate gate = new MemoryGate(Set.of("3"));
        Map<String, EventSink> sinks = new LinkedHashMap<>();
        sinks.put("lake", sink);
        sinks.put("by-id", gate);
        BatchProcessor gated =
                new BatchProcessor(StageChainTest.paymentsChain(), sinks, aggregates, dlq, "by-id", Runnable::run);

        BatchResult result = gated.process(batch());

        assertThat(result.complete()).isTrue();
        assertThat(gate.written).extracting(e -> e.position().sequenceNumber()).containsExactly("1");
        assertThat(sink.written())
                .extracting(e -> e.position().sequenceNumber())
                .containsExactly("1");
        assertThat(result.sinks().get("gate").absorbedDuplicates()).isEqualTo(1);
        assertThat(aggregates.written())
                .as("the re-send is not counted")
                .singleElement()
                .satisfies(partial -> assertThat(partial.count()).isEqualTo(1));
        assertThat(dlq.sent()).hasSize(1);
    }

    @Test
    void gateMustRecogniseResends() {
        Map<String, EventSink> sinks = Map.of("lake", sink);

        assertThatThrownBy(() -> new BatchProcessor(
                        StageChainTest.paymentsChain(), sinks, aggregates, dlq, "lake", Runnable::run))
                .hasMessage("stage 'validate': the de-duplicating target 'lake' has no sink that recognises re-sends");
    }

    @Test
    void sinksWriteConcurrently() throws IOException {
        CountDownLatch lakeStarted = new CountDownLatch(1);
        CountDownLatch tableStarted = new CountDownLatch(1);
        Map<String, EventSink> sinks = new LinkedHashMap<>();
        sinks.put("lake", new MeetingSink("lake", lakeStarted, tableStarted));
        sinks.put("table", new MeetingSink("table", tableStarted, lakeStarted));
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            BatchResult result = new BatchProcessor(
                            StageChainTest.paymentsChain(), sinks, aggregates, dlq, null, threads)
                    .process(batch());

            assertThat(result.complete()).as("%s", result.failure()).isTrue();
            assertThat(result.sinks()).containsOnlyKeys("lake", "table", "memory-aggregates");
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void anyConcurrentSinkFailingRedeliversTheWholeBatch() throws IOException {
        MemorySink table = new MemorySink();
        table.failNext(1);
        Map<String, EventSink> sinks = new LinkedHashMap<>();
        sinks.put("lake", sink);
        sinks.put("table", table);
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            BatchResult result = new BatchProcessor(
                            StageChainTest.paymentsChain(), sinks, aggregates, dlq, null, threads)
                    .process(batch());

            assertThat(result.failedFrom())
                    .hasValueSatisfying(p -> assertThat(p.sequenceNumber()).isEqualTo("1"));
            assertThat(sink.written())
                    .as("the other sink's write stands; it absorbs the redelivery")
                    .hasSize(2);
            assertThat(dlq.sent()).isEmpty();
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void recordRefusedByATargetIsDeadLetteredAndTheBatchCompletes() throws IOException {
        EventSink refusing = new EventSink() {
            @Override
            public String name() {
                return "table:orders";
            }

            @Override
            public SinkReport write(List<ProcessedEvent> events) {
                return new SinkReport(
                        events.size() - 1,
                        0,
                        List.of(new SinkReport.Rejected(
                                events.get(events.size() - 1), "Item size has exceeded the maximum allowed size")));
            }
        };
        Map<String, EventSink> sinks = new LinkedHashMap<>();
        sinks.put("lake", sink);
        sinks.put("table", refusing);
        BatchProcessor processor = new BatchProcessor(StageChainTest.paymentsChain(), sinks, aggregates, dlq);

        BatchResult result = processor.process(batch());

        assertThat(result.complete()).isTrue();
        assertThat(result.deadLettered()).isEqualTo(2);
        assertThat(dlq.sent())
                .extracting(d -> d.source().position().sequenceNumber(), DeadLetter::code)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("2", dev.sluice.core.event.ReasonCode.MALFORMED_JSON),
                        org.assertj.core.groups.Tuple.tuple("3", dev.sluice.core.event.ReasonCode.SINK_REJECTED));
        assertThat(dlq.sent().get(1).detail())
                .isEqualTo("table:orders: Item size has exceeded the maximum allowed size");
    }

    @Test
    void emptyBatchIsComplete() {
        assertThat(processor.process(List.of()).complete()).isTrue();
    }
}
