package dev.sluice.core.stage;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.core.event.DeadLetter;
import dev.sluice.core.event.InboundRecord;

/**
 * One step of a stage's chain. Steps work on the parsed event in memory: the chain parses each
 * record once and serialises it once, for the sinks; steps do no I/O.
 */
public interface Step {

    /**
     * Applies the step to one event.
     *
     * @param record the record the event was parsed from
     * @param event the event, which the step may change in place
     * @return {@code null} to pass the event on, or the dead letter that ends its way through the chain
     */
    DeadLetter apply(InboundRecord record, ObjectNode event);
}
