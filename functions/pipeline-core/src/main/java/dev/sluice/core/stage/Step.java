package dev.sluice.core.stage;

import dev.sluice.core.event.DeadLetter;
import java.util.List;

/**
 * One step of a stage's chain. Steps work on the parsed event in memory: the chain parses each
 * record once and serialises it once, for the sinks; steps do no I/O. A step is compiled once per
 * stage and shared by every batch and thread; a step that keeps state over a batch (aggregation)
 * gives each batch its own instance through {@link #forBatch()}.
 */
public interface Step {

    /**
     * Applies the step to one event.
     *
     * @return {@code null} to pass the event on (possibly changed, dropped or routed through the
     *     context), or the dead letter that ends its way through the chain
     */
    DeadLetter apply(EventContext context);

    /**
     * Whether the step leaves the event's tree as it was, or records each change it makes in the
     * context's {@link EventContext#edits() edits}: then the chain can hand the sinks the record's
     * own bytes with those edits spliced in, instead of serialising the tree again. A step that says
     * {@code false} (the default, always safe) makes the chain serialise the tree.
     */
    default boolean keepsBytes() {
        return false;
    }

    /**
     * The fields the step reads or changes, as paths of member names from the event's root ({@code
     * ["payload", "amount"]}); {@code null} (the default, always safe) when it may need any part of
     * the event. When every step of a chain names its fields, the chain reads each record in one pass
     * over its tokens and hands the steps a sparse event holding only those fields (and the
     * envelope's), instead of the event's whole tree.
     */
    default List<List<String>> reads() {
        return null;
    }

    /** The instance that handles one batch: this one, unless the step keeps per-batch state. */
    default Step forBatch() {
        return this;
    }

    /** Called once after the batch's last event: a batch-scoped step adds what it gathered. */
    default void finish(BatchOutcome.Builder outcome) {}
}
