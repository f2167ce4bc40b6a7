package dev.sluice.core.definition;

/**
 * An SQS queue, used as a dead-letter queue.
 *
 * @param retentionDays message retention, 1 to 14 days
 */
public record QueueDefinition(Integer retentionDays) {

    public QueueDefinition {
        retentionDays = retentionDays == null ? 14 : retentionDays;
    }
}
