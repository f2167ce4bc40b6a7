package dev.sluice.core.stage;

import static dev.sluice.core.stage.StageChainTest.fixture;
import static dev.sluice.core.stage.StageChainTest.record;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.event.DeadLetter;
import dev.sluice.core.event.InboundRecord;
import dev.sluice.core.event.ProcessedEvent;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BatchProcessorTest {

    /** An in-memory sink that can be told to fail its next write. */
    static final class MemorySink implements EventSink {
        final List<ProcessedEvent> written = new ArrayList<>();
        boolean failNext;

        @Override
        public String name() {
            return "memory";
        }

        @Override
        public SinkReport write(List<ProcessedEvent> events) throws SinkException {
            if (failNext) {
                failNext = false;
                throw new SinkException("throttled", true, null);
            }
            written.addAll(events);
            return new SinkReport(events.size(), 0);
        }
    }

    static final class MemoryDeadLetters implements DeadLetterSink {
        final List<DeadLetter> sent = new ArrayList<>();
        boolean failNext;

        @Override
        public void send(List<DeadLetter> deadLetters) throws SinkException {
            if (failNext) {
                failNext = false;
                throw new SinkException("queue unavailable", true, null);
            }
            sent.addAll(deadLetters);
        }
    }

    private final MemorySink sink = new MemorySink();
    private final MemoryDeadLetters dlq = new MemoryDeadLetters();
    private final BatchProcessor processor = new BatchProcessor(StageChainTest.paymentsChain(), List.of(sink), dlq);

    private List<InboundRecord> batch() throws IOException {
        return List.of(
                record("1", fixture("payment-valid.json")),
                record("2", fixture("payment-malformed.json")),
                record("3", fixture("payment-valid.json")));
    }

    @Test
    void completeBatchWritesSinksAndDeadLetters() throws IOException {
        BatchResult result = processor.process(batch());

        assertThat(result.complete()).isTrue();
        assertThat(result.received()).isEqualTo(3);
        assertThat(result.accepted()).isEqualTo(2);
        assertThat(result.deadLettered()).isEqualTo(1);
        assertThat(sink.written).hasSize(2);
        assertThat(dlq.sent)
                .extracting(d -> d.source().position().sequenceNumber())
                .containsExactly("2");
    }

    @Test
    void failedSinkRedeliversWholeBatchAndSendsNoDeadLetters() throws IOException {
        sink.failNext = true;

        BatchResult result = processor.process(batch());

        assertThat(result.complete()).isFalse();
        assertThat(result.failedFrom())
                .hasValueSatisfying(p -> assertThat(p.sequenceNumber()).isEqualTo("1"));
        assertThat(result.failure())
                .hasValueSatisfying(e -> assertThat(e.retryable()).isTrue());
        assertThat(dlq.sent).isEmpty();
    }

    @Test
    void failedDeadLetterQueueRedeliversFromTheFirstDeadLetter() throws IOException {
        dlq.failNext = true;

        BatchResult result = processor.process(batch());

        assertThat(result.failedFrom())
                .hasValueSatisfying(p -> assertThat(p.sequenceNumber()).isEqualTo("2"));
        assertThat(sink.written).hasSize(2);
    }

    @Test
    void emptyBatchIsComplete() {
        assertThat(processor.process(List.of()).complete()).isTrue();
    }
}
