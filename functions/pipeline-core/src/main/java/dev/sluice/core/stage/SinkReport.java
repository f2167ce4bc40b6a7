package dev.sluice.core.stage;

/**
 * What a sink did with a batch.
 *
 * @param applied events that took effect now
 * @param absorbedDuplicates events that had already taken effect (replays), counted, not applied
 */
public record SinkReport(int applied, int absorbedDuplicates) {

    public static final SinkReport EMPTY = new SinkReport(0, 0);
}
