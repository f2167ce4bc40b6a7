package dev.sluice.core.stage;

import dev.sluice.core.event.InboundRecord;
import dev.sluice.core.event.Position;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a batch through a stage: the chain, then every sink, then the dead-letter queue. A batch is
 * done only when all of it is durable; otherwise the result names the first position to deliver
 * again, and the idempotent sinks absorb what is delivered twice.
 */
public final class BatchProcessor {

    private static final Logger LOG = LoggerFactory.getLogger(BatchProcessor.class);

    private final StageChain chain;
    private final List<EventSink> sinks;
    private final DeadLetterSink deadLetters;

    public BatchProcessor(StageChain chain, List<EventSink> sinks, DeadLetterSink deadLetters) {
        this.chain = chain;
        this.sinks = List.copyOf(sinks);
        this.deadLetters = deadLetters;
    }

    /** Processes one batch of one shard, in order. */
    public BatchResult process(List<InboundRecord> records) {
        if (records.isEmpty()) {
            return new BatchResult(0, 0, 0, Map.of(), Optional.empty(), Optional.empty());
        }
        BatchOutcome outcome = chain.process(records);
        Map<String, SinkReport> reports = new LinkedHashMap<>();
        for (EventSink sink : sinks) {
            try {
                reports.put(
                        sink.name(), outcome.accepted().isEmpty() ? SinkReport.EMPTY : sink.write(outcome.accepted()));
            } catch (SinkException e) {
                // nothing of this batch is acknowledged: dead letters are sent only once sinks are durable
                Position from = records.get(0).position();
                LOG.warn("sink {} failed; batch is delivered again from {}: {}", sink.name(), from, e.getMessage());
                return failed(records, outcome, reports, from, e);
            }
        }
        if (!outcome.deadLetters().isEmpty()) {
            try {
                deadLetters.send(outcome.deadLetters());
            } catch (SinkException e) {
                Position from = outcome.deadLetters().get(0).source().position();
                LOG.warn("dead-letter queue failed; batch is delivered again from {}: {}", from, e.getMessage());
                return failed(records, outcome, reports, from, e);
            }
        }
        return new BatchResult(
                records.size(),
                outcome.accepted().size(),
                outcome.deadLetters().size(),
                reports,
                Optional.empty(),
                Optional.empty());
    }

    private static BatchResult failed(
            List<InboundRecord> records,
            BatchOutcome outcome,
            Map<String, SinkReport> reports,
            Position from,
            SinkException cause) {
        return new BatchResult(
                records.size(), outcome.accepted().size(), 0, reports, Optional.of(from), Optional.of(cause));
    }
}
