package dev.sluice.verify.reconcile;

import dev.sluice.generators.GeneratedEvent;
import java.math.BigInteger;
import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;

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

    /** For each shard of a ledger, the last (highest) sequence number put there. */
    public static Map<String, String> lastSequenceByShard(Collection<LedgerEntry> ledger) {
        Map<String, String> last = new TreeMap<>();
        for (LedgerEntry entry : ledger) {
            last.merge(
                    entry.shardId(),
                    entry.sequenceNumber(),
                    (a, b) -> new BigInteger(a).compareTo(new BigInteger(b)) >= 0 ? a : b);
        }
        return last;
    }
}
