package dev.sluice.core.stage;

import dev.sluice.core.event.DeadLetter;
import dev.sluice.core.event.InboundRecord;
import dev.sluice.core.event.Position;
import dev.sluice.core.event.ProcessedEvent;
import dev.sluice.core.event.ReasonCode;
import dev.sluice.core.window.PartialAggregate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a batch through a stage: reference data refreshed, the chain, then the de-duplicating sink
 * if the stage has one, then every other sink (each with the events routed to it) and the
 * aggregate sink concurrently, and last the dead-letter queue (dead letters and side outputs such
 * as late events). A batch is done only when all of it is durable; otherwise the
 * result names the first position to deliver again, and the idempotent sinks absorb what is
 * delivered twice.
 *
 * <p>When the stage deduplicates and one of its sinks is a {@link ClaimingSink} (the lake), that
 * sink keeps no ledger: it plans the batch's objects first, the de-duplicating sink stores each
 * event's object key on the event's item (and tells which events are already in the lake under an
 * earlier object), and the claiming sink then writes exactly the events assigned to its plan.
 */
public final class BatchProcessor {

    private static final Logger LOG = LoggerFactory.getLogger(BatchProcessor.class);

    private final StageChain chain;
    private final Map<String, EventSink> sinks;
    private final AggregateSink aggregates;
    private final DeadLetterSink deadLetters;
    private final String gate;
    /** The target of the sink whose events the gate claims ({@link ClaimingSink}), or {@code null}. */
    private final String claimed;

    private final Executor executor;

    /**
     * A processor whose sinks write one after the other, without a re-send gate.
     *
     * @param sinks the stage's sinks by logical target name, in declaration order
     * @param aggregates where partial aggregates go; required when the chain aggregates
     */
    public BatchProcessor(
            StageChain chain, Map<String, EventSink> sinks, AggregateSink aggregates, DeadLetterSink deadLetters) {
        this(chain, sinks, aggregates, deadLetters, null, Runnable::run);
    }

    /**
     * @param sinks the stage's sinks by logical target name, in declaration order
     * @param aggregates where partial aggregates go; required when the chain aggregates
     * @param gate the target whose sink (a {@link DeduplicatingSink}) is written first and keeps
     *     producer re-sends out of the others, or {@code null}
     * @param executor runs the writes of the other sinks (and the aggregate sink) concurrently
     */
    public BatchProcessor(
            StageChain chain,
            Map<String, EventSink> sinks,
            AggregateSink aggregates,
            DeadLetterSink deadLetters,
            String gate,
            Executor executor) {
        if (chain.aggregates() && aggregates == null) {
            throw new IllegalArgumentException(
                    "stage '" + chain.stageName() + "' aggregates but has no aggregate sink");
        }
        if (gate != null && !(sinks.get(gate) instanceof DeduplicatingSink)) {
            throw new IllegalArgumentException("stage '" + chain.stageName() + "': the de-duplicating target '" + gate
                    + "' has no sink that recognises re-sends");
        }
        this.chain = chain;
        this.sinks = new LinkedHashMap<>(sinks);
        this.aggregates = aggregates;
        this.deadLetters = deadLetters;
        this.gate = gate;
        List<String> claiming = gate == null
                ? List.of()
                : sinks.entrySet().stream()
                        .filter(sink -> sink.getValue() instanceof ClaimingSink)
                        .map(Map.Entry::getKey)
                        .toList();
        if (claiming.size() > 1) {
            throw new IllegalArgumentException("stage '" + chain.stageName() + "' deduplicates and writes " + claiming
                    + ": an event's deduplicate item names one lake object, so one lake sink at most");
        }
        this.claimed = claiming.isEmpty() ? null : claiming.get(0);
        this.executor = executor;
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

    /**
     * Processes one batch of one shard: the chain, then the gate sink (if any), then every other
     * sink and the aggregate sink concurrently, then the dead-letter queue. Nothing is acknowledged
     * unless all of it is durable.
     */
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
        Map<String, SinkReport> reports = new ConcurrentHashMap<>();
        List<ProcessedEvent> accepted = outcome.accepted();
        List<PartialAggregate> partials = outcome.aggregates();
        ClaimingSink claimSink = claimed == null ? null : (ClaimingSink) sinks.get(claimed);
        ClaimingSink.Plan plan = null;
        List<ProcessedEvent> claimedEvents = List.of();
        Set<Position> inLake = Set.of();
        if (claimSink != null) {
            claimedEvents = routed(accepted, claimed);
            for (ProcessedEvent event : claimedEvents) {
                if (!event.routedTo(gate)) {
                    return failed(
                            records,
                            outcome,
                            reports,
                            first,
                            new SinkException(
                                    "event at " + event.position() + " is routed to " + claimed + " but not to " + gate
                                            + ", whose item must record its lake object",
                                    false,
                                    null));
                }
            }
            plan = claimedEvents.isEmpty() ? null : claimSink.plan(claimedEvents);
        }
        if (gate != null) {
            DeduplicatingSink gateSink = (DeduplicatingSink) sinks.get(gate);
            List<ProcessedEvent> routed = routed(accepted, gate);
            try {
                DeduplicatingSink.Gated gated = routed.isEmpty()
                        ? new DeduplicatingSink.Gated(SinkReport.EMPTY, Set.of())
                        : plan == null ? gateSink.writeAndGate(routed) : gateSink.writeAndGate(routed, claimSink, plan);
                inLake = gated.inLake();
                reports.put(gateSink.name(), gated.report());
                if (!gated.resent().isEmpty()) {
                    LOG.info(
                            "{} producer re-sends kept out of the other sinks",
                            gated.resent().size());
                    accepted = without(accepted, gated.resent());
                    if (!partials.isEmpty()) {
                        // aggregate again without the re-sends: the chain is a pure function of its records
                        partials = chain.process(records.stream()
                                        .filter(r -> !gated.resent().contains(r.position()))
                                        .toList())
                                .aggregates();
                    }
                }
            } catch (SinkException e) {
                LOG.warn(
                        "sink {} failed; batch is delivered again from {}: {}", gateSink.name(), first, e.getMessage());
                return failed(records, outcome, reports, first, e);
            }
        }
        List<CompletableFuture<Void>> writes = new ArrayList<>();
        for (Map.Entry<String, EventSink> sink : sinks.entrySet()) {
            if (sink.getKey().equals(gate)) {
                continue;
            }
            if (sink.getKey().equals(claimed) && plan != null) {
                Set<Position> present = inLake;
                // re-sends are kept out as from every sink; events already in the lake are absorbed
                List<ProcessedEvent> kept = without(claimedEvents, resentOf(claimedEvents, accepted));
                List<ProcessedEvent> assigned = without(kept, present);
                ClaimingSink.Plan batchPlan = plan;
                int absorbed = kept.size() - assigned.size();
                if (assigned.isEmpty()) {
                    reports.put(claimSink.name(), new SinkReport(0, absorbed));
                } else {
                    writes.add(write(claimSink.name(), () -> claimSink.write(batchPlan, assigned, absorbed), reports));
                }
                continue;
            }
            List<ProcessedEvent> routed = routed(accepted, sink.getKey());
            if (routed.isEmpty()) {
                reports.put(sink.getValue().name(), SinkReport.EMPTY);
                continue;
            }
            EventSink target = sink.getValue();
            writes.add(write(target.name(), () -> target.write(routed), reports));
        }
        if (!partials.isEmpty()) {
            List<PartialAggregate> applied = partials;
            writes.add(write(aggregates.name(), () -> aggregates.write(applied), reports));
        }
        SinkException failure = await(writes);
        if (failure != null) {
            // nothing of this batch is acknowledged: dead letters are sent only once sinks are durable
            LOG.warn("a sink failed; batch is delivered again from {}: {}", first, failure.getMessage());
            return failed(records, outcome, orderedLike(reports), first, failure);
        }
        List<DeadLetter> letters = new ArrayList<>(outcome.deadLetters());
        letters.addAll(outcome.sideOutputs());
        List<DeadLetter> rejected = rejected(reports, accepted, records);
        letters.addAll(rejected);
        if (!letters.isEmpty()) {
            try {
                deadLetters.send(letters);
            } catch (SinkException e) {
                Position from = letters.stream()
                        .map(d -> d.source().position())
                        .min(Position::compareTo)
                        .orElse(first);
                LOG.warn("dead-letter queue failed; batch is delivered again from {}: {}", from, e.getMessage());
                return failed(records, outcome, orderedLike(reports), from, e);
            }
        }
        return new BatchResult(
                records.size(),
                outcome.accepted().size(),
                outcome.deadLetters().size() + rejected.size(),
                orderedLike(reports),
                Optional.empty(),
                Optional.empty());
    }

    /** A write that returns only when durable. */
    @FunctionalInterface
    private interface Write {
        SinkReport run() throws SinkException;
    }

    private CompletableFuture<Void> write(String name, Write write, Map<String, SinkReport> reports) {
        return CompletableFuture.runAsync(
                () -> {
                    try {
                        reports.put(name, write.run());
                    } catch (SinkException e) {
                        throw new CompletionException(e);
                    }
                },
                executor);
    }

    /** Waits for every write; the first failure (in sink order), or {@code null} if all are durable. */
    private static SinkException await(List<CompletableFuture<Void>> writes) {
        SinkException failure = null;
        for (CompletableFuture<Void> write : writes) {
            try {
                write.join();
            } catch (CompletionException e) {
                if (failure == null) {
                    failure = e.getCause() instanceof SinkException sink
                            ? sink
                            : new SinkException("sink failed: " + e.getCause(), false, e.getCause());
                }
            }
        }
        return failure;
    }

    private Map<String, SinkReport> orderedLike(Map<String, SinkReport> reports) {
        Map<String, SinkReport> ordered = new LinkedHashMap<>();
        sinks.values().forEach(sink -> {
            SinkReport report = reports.get(sink.name());
            if (report != null) {
                ordered.put(sink.name(), report);
            }
        });
        if (aggregates != null && reports.containsKey(aggregates.name())) {
            ordered.put(aggregates.name(), reports.get(aggregates.name()));
        }
        return ordered;
    }

    /**
     * The events a target refused for good, as dead letters (one per record, naming every refusal).
     * A record refused by position (the aggregate sink) is found among the accepted events; the
     * other sinks still hold it, as they hold any record one sink rejects.
     */
    private static List<DeadLetter> rejected(
            Map<String, SinkReport> reports, List<ProcessedEvent> accepted, List<InboundRecord> records) {
        Map<Position, DeadLetter> letters = new java.util.TreeMap<>();
        Map<String, List<ProcessedEvent>> bySequence = null;
        for (Map.Entry<String, SinkReport> report : reports.entrySet()) {
            for (SinkReport.Rejected rejection : report.getValue().rejected()) {
                ProcessedEvent event = rejection.event();
                reject(letters, event.position(), event.source(), report.getKey() + ": " + rejection.reason());
            }
            if (!report.getValue().refused().isEmpty() && bySequence == null) {
                bySequence = new java.util.HashMap<>();
                for (ProcessedEvent event : accepted) {
                    bySequence
                            .computeIfAbsent(
                                    event.position().shardId() + "/"
                                            + event.position().sequence(),
                                    k -> new ArrayList<>(1))
                            .add(event);
                }
            }
            for (SinkReport.Refused refusal : report.getValue().refused()) {
                String detail = report.getKey() + ": " + refusal.reason();
                List<ProcessedEvent> events = bySequence.get(refusal.shardId() + "/" + refusal.sequenceNumber());
                if (events != null) {
                    events.forEach(event -> reject(letters, event.position(), event.source(), detail));
                    continue;
                }
                // not an accepted event (a step after the aggregate dropped it): the record itself
                for (InboundRecord record : records) {
                    if (record.position().shardId().equals(refusal.shardId())
                            && record.position().sequence().equals(refusal.sequenceNumber())) {
                        reject(letters, record.position(), record, detail);
                    }
                }
            }
        }
        return new ArrayList<>(letters.values());
    }

    private static void reject(
            Map<Position, DeadLetter> letters, Position position, InboundRecord source, String detail) {
        DeadLetter earlier = letters.get(position);
        letters.put(
                position,
                new DeadLetter(
                        source, ReasonCode.SINK_REJECTED, earlier == null ? detail : earlier.detail() + "; " + detail));
    }

    private static List<ProcessedEvent> without(List<ProcessedEvent> events, Set<Position> resent) {
        List<ProcessedEvent> kept = new ArrayList<>(events.size());
        for (ProcessedEvent event : events) {
            if (!resent.contains(event.position())) {
                kept.add(event);
            }
        }
        return kept;
    }

    /** The positions of {@code planned} events no longer among the {@code accepted} ones (re-sends). */
    private static Set<Position> resentOf(List<ProcessedEvent> planned, List<ProcessedEvent> accepted) {
        if (planned == accepted) {
            return Set.of();
        }
        Set<Position> kept = new java.util.HashSet<>();
        accepted.forEach(event -> kept.add(event.position()));
        Set<Position> gone = new java.util.HashSet<>();
        planned.stream().filter(event -> !kept.contains(event.position())).forEach(event -> gone.add(event.position()));
        return gone;
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
