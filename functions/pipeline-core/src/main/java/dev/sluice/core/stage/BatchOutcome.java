package dev.sluice.core.stage;

import dev.sluice.core.event.DeadLetter;
import dev.sluice.core.event.ProcessedEvent;
import java.util.List;

/**
 * What a stage's chain made of a batch: each record is either accepted (possibly changed) or dead
 * lettered, never both and never neither. Both lists keep the batch's order.
 */
public record BatchOutcome(List<ProcessedEvent> accepted, List<DeadLetter> deadLetters) {

    public BatchOutcome {
        accepted = List.copyOf(accepted);
        deadLetters = List.copyOf(deadLetters);
    }
}
