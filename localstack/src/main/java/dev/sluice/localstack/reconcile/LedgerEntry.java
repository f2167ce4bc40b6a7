package dev.sluice.localstack.reconcile;

import dev.sluice.generators.GeneratedEvent;

/**
 * What the producer sent and where the stream put it: one line of the producer-side ledger.
 *
 * @param event the generated event, with the verdict the pipeline must give it
 * @param shardId the shard Kinesis put it in
 * @param sequenceNumber its sequence number there
 */
public record LedgerEntry(GeneratedEvent event, String shardId, String sequenceNumber) {

    /** Shard and sequence number, the identity of a record in the dead-letter queue. */
    public String position() {
        return shardId + "/" + sequenceNumber;
    }
}
