package dev.sluice.localstack.reconcile;

import java.util.List;

/**
 * The producer's ledger checked against every target.
 *
 * @param produced events the producer sent and Kinesis acknowledged
 * @param lake records found in the lake (every line of every object)
 * @param table items found in the serving table
 * @param deadLettered records found in the dead-letter queue (a record dead lettered twice counts once)
 * @param lost ledger events missing from a target they belong in
 * @param duplicates effects found more than once (lake lines, table items)
 * @param unexpected records in a target that the ledger does not put there, or dead lettered for
 *     another reason than expected
 * @param problems the first few problems, for people
 */
public record Reconciliation(
        long produced,
        long lake,
        long table,
        long deadLettered,
        long lost,
        long duplicates,
        long unexpected,
        List<String> problems) {

    /** Whether every invariant holds: nothing lost, nothing twice, nothing unexplained. */
    public boolean reconciled() {
        return lost == 0
                && duplicates == 0
                && unexpected == 0
                && produced == lake + deadLettered
                && produced == table + deadLettered;
    }
}
