package dev.sluice.core.stage;

import dev.sluice.core.event.DeadLetter;
import dev.sluice.core.event.ProcessedEvent;
import dev.sluice.core.window.PartialAggregate;
import java.util.ArrayList;
import java.util.List;

/**
 * What a stage's chain made of a batch. Each record is accepted (possibly changed, possibly for
 * some sinks only), filtered out, or dead lettered — exactly one of the three. Side outputs (late
 * events) and per-batch partial aggregates come on top. Lists keep the batch's order.
 *
 * @param accepted events for the sinks
 * @param deadLetters records that cannot be processed
 * @param filtered how many records a filter dropped
 * @param sideOutputs reports on events that still carried on, e.g. {@code LATE} for a window
 * @param aggregates partial aggregates per (aggregate, key, window) of this batch
 */
public record BatchOutcome(
        List<ProcessedEvent> accepted,
        List<DeadLetter> deadLetters,
        int filtered,
        List<DeadLetter> sideOutputs,
        List<PartialAggregate> aggregates) {

    public BatchOutcome {
        accepted = List.copyOf(accepted);
        deadLetters = List.copyOf(deadLetters);
        sideOutputs = List.copyOf(sideOutputs);
        aggregates = List.copyOf(aggregates);
    }

    public BatchOutcome(List<ProcessedEvent> accepted, List<DeadLetter> deadLetters) {
        this(accepted, deadLetters, 0, List.of(), List.of());
    }

    /** Gathers a batch's outcome while the chain runs. */
    public static final class Builder {
        private final List<ProcessedEvent> accepted;
        private final List<DeadLetter> deadLetters = new ArrayList<>();
        private final List<DeadLetter> sideOutputs = new ArrayList<>();
        private final List<PartialAggregate> aggregates = new ArrayList<>();
        private int filtered;

        Builder(int size) {
            accepted = new ArrayList<>(size);
        }

        void accept(ProcessedEvent event) {
            accepted.add(event);
        }

        void deadLetter(DeadLetter letter) {
            deadLetters.add(letter);
        }

        void filtered() {
            filtered++;
        }

        void sideOutputs(List<DeadLetter> reports) {
            if (!reports.isEmpty()) { // most events report nothing: no copy of an empty list
                sideOutputs.addAll(reports);
            }
        }

        /** Adds partial aggregates (aggregate steps, at the end of the batch). */
        public void aggregates(List<PartialAggregate> partials) {
            aggregates.addAll(partials);
        }

        BatchOutcome build() {
            return new BatchOutcome(accepted, deadLetters, filtered, sideOutputs, aggregates);
        }
    }
}
