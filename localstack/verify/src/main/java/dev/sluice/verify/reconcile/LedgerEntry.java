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
 * @param sequenceNumber its sequence number there (a KPL aggregate's, for one of its user records)
 * @param subSequence its index in the KPL aggregate that carried it, 0 when not aggregated
 */
public record LedgerEntry(GeneratedEvent event, String shardId, String sequenceNumber, long subSequence) {

    /** An event put as a record of its own. */
    public LedgerEntry(GeneratedEvent event, String shardId, String sequenceNumber) {
        this(event, shardId, sequenceNumber, 0);
    }

    /**
     * Shard, sequence number and (for a user record of an aggregate) sub-sequence, the identity of a
     * record in the dead-letter queue: {@code shardId-000000000001/4959...} or {@code .../4959....3}.
     */
    public String position() {
        return position(shardId, sequenceNumber, subSequence);
    }

    /** The {@link #position()} of a record. */
    public static String position(String shardId, String sequenceNumber, long subSequence) {
        return shardId + "/" + sequenceNumber + (subSequence == 0 ? "" : "." + subSequence);
    }

    /** Orders entries of one shard by sequence number, then sub-sequence. */
    public static int compareInShard(LedgerEntry a, LedgerEntry b) {
        int bySequence = new BigInteger(a.sequenceNumber()).compareTo(new BigInteger(b.sequenceNumber()));
        return bySequence != 0 ? bySequence : Long.compare(a.subSequence(), b.subSequence());
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
