package dev.sluice.core.stage;

import dev.sluice.core.event.DeadLetter;
import java.util.List;

/** Where records that cannot be processed go, with their reason, payload and position. */
public interface DeadLetterSink {

    /**
     * Sends dead letters and returns only when they are durable.
     *
     * @throws SinkException if they may not all be durable
     */
    void send(List<DeadLetter> deadLetters) throws SinkException;
}
