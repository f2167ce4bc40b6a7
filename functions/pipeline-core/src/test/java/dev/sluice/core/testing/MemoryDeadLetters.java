package dev.sluice.core.testing;

import dev.sluice.core.event.DeadLetter;
import dev.sluice.core.stage.DeadLetterSink;
import dev.sluice.core.stage.SinkException;
import java.util.ArrayList;
import java.util.List;

/** A dead-letter queue in memory that can be told to be unreachable for its next sends. */
public final class MemoryDeadLetters implements DeadLetterSink {

    private final List<DeadLetter> sent = new ArrayList<>();
    private int failures;

    @Override
    public synchronized void send(List<DeadLetter> deadLetters) throws SinkException {
        if (failures > 0) {
            failures--;
            throw new SinkException("queue unavailable", true, null);
        }
        sent.addAll(deadLetters);
    }

    /** The next {@code times} sends fail (retryably). */
    public synchronized MemoryDeadLetters failNext(int times) {
        failures = times;
        return this;
    }

    /** Every dead letter sent so far, in order. */
    public synchronized List<DeadLetter> sent() {
        return List.copyOf(sent);
    }
}
