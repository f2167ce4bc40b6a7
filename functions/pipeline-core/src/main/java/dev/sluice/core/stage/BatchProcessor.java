package dev.sluice.core.stage;

import dev.sluice.core.event.DeadLetter;
import dev.sluice.core.event.InboundRecord;
import dev.sluice.core.event.Position;
import dev.sluice.core.event.ProcessedEvent;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a batch through a stage: reference data refreshed, the chain, then every sink (each with
 * the events routed to it), the aggregate sink, and the dead-letter queue (dead letters and side
 * outputs such as late events). A batch is done only when all of it is durable; otherwise the
 * result names the first position to deliver again, and the idempotent sinks absorb what is
 * delivered twice.
 */
public final class BatchProcessor {

    private static final Logger LOG = LoggerFactory.getLogger(BatchProcessor.class);

    private final StageChain chain;
    private final Map<String, EventSink> sinks;
    private final AggregateSink aggregates;
    private final DeadLetterSink deadLetters;

    /**
     * @param sinks the stage's sinks by logical target name, in declaration order
     * @param aggregates where partial aggregates go; required when the chain aggregates
     */
    public BatchProcessor(
            StageChain chain, Map<String, EventSink> sinks, AggregateSink aggregates, DeadLetterSink deadLetters) {
        if (chain.aggregates() && aggregates == null) {
            throw new IllegalArgumentException(
                    "stage '" + chain.stageName() + "' aggregates but has no aggregate sink");
        }
        this.chain = chain;
        this.sinks = new LinkedHashMap<>(sinks);
        this.aggregates = aggregates;
        this.deadLetters = deadLetters;
    }

    /** A processor whose sinks take every event (no route step), for tests and simple stages. */
    public BatchProcessor(StageChain chain, List<EventSink> sinks, DeadLetterSink deadLetters) {
        this(chain, byName(sinks), null, deadLetters);
    }

    private static Map<String, EventSink> byName(List<EventSink> sinks) {
        Map<String, EventSink> byName = new LinkedHashMap<>();
        sinks.forEach(sink -> byName.put(sink.name(), sink));
        return byName;
    }

    /** Processes one batch of one shard, in order. */
    public BatchResult process(List<InboundRecord> records) {
        if (records.isEmpty()) {
            return new BatchResult(0, 0, 0, Map.of(), Optional.empty(), Optional.empty());
        }
        Position first = records.get(0).position();
        try {
            chain.refreshReferences();
        } catch (RuntimeException e) {
            return failed(
                    records, null, Map.of(), first, new SinkException("reference data: " + e.getMessage(), true, e));
        }
        BatchOutcome outcome = chain.process(records);
        Map<String, SinkReport> reports = new LinkedHashMap<>();
        for (Map.Entry<String, EventSink> sink : sinks.entrySet()) {
            List<ProcessedEvent> routed = routed(outcome.accepted(), sink.getKey());
            try {
                reports.put(
                        sink.getValue().name(),
                        routed.isEmpty() ? SinkReport.EMPTY : sink.getValue().write(routed));
            } catch (SinkException e) {
                // nothing of this batch is acknowledged: dead letters are sent only once sinks are durable
                LOG.warn(
                        "sink {} failed; batch is delivered again from {}: {}",
                        sink.getValue().name(),
                        first,
                        e.getMessage());
                return failed(records, outcome, reports, first, e);
            }
        }
        if (!outcome.aggregates().isEmpty()) {
            try {
                reports.put(aggregates.name(), aggregates.write(outcome.aggregates()));
            } catch (SinkException e) {
                LOG.warn(
                        "aggregate sink {} failed; batch is delivered again from {}: {}",
                        aggregates.name(),
                        first,
                        e.getMessage());
                return failed(records, outcome, reports, first, e);
            }
        }
        List<DeadLetter> letters = new ArrayList<>(outcome.deadLetters());
        letters.addAll(outcome.sideOutputs());
        if (!letters.isEmpty()) {
            try {
                deadLetters.send(letters);
            } catch (SinkException e) {
                Position from = letters.stream()
                        .map(d -> d.source().position())
                        .min(Position::compareTo)
                        .orElse(first);
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

    private static List<ProcessedEvent> routed(List<ProcessedEvent> events, String target) {
        boolean all = true;
        for (ProcessedEvent event : events) {
            if (!event.routedTo(target)) {
                all = false;
                break;
            }
        }
        if (all) {
            return events;
        }
        List<ProcessedEvent> routed = new ArrayList<>(events.size());
        for (ProcessedEvent event : events) {
            if (event.routedTo(target)) {
                routed.add(event);
            }
        }
        return routed;
    }

    private static BatchResult failed(
            List<InboundRecord> records,
            BatchOutcome outcome,
            Map<String, SinkReport> reports,
            Position from,
            SinkException cause) {
        return new BatchResult(
                records.size(),
                outcome == null ? 0 : outcome.accepted().size(),
                0,
                reports,
                Optional.of(from),
                Optional.of(cause));
    }
}
