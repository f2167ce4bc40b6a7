package dev.sluice.verify.reconcile;

import java.util.List;

/**
 * The producer's ledger checked against every target.
 *
 * @param produced events the producer sent and Kinesis acknowledged
 * @param lake records found in the lake (every line of every object)
 * @param table items found in the serving table
 * @param aggregated events counted in the aggregate table's items (0 when no aggregate is checked)
 * @param deadLettered records found in the dead-letter queue (a record dead lettered twice counts
 *     once), not counting {@code late}
 * @param late valid events reported {@code LATE} (a side output on the dead-letter queue; they are
 *     left out of the aggregate but still in the lake and the table)
 * @param lost ledger events missing from a target they belong in (for the aggregate: events the
 *     items count fewer than the ledger holds)
 * @param duplicates effects found more than once (lake lines, table items, and events
 *     an aggregate item counts beyond the ledger: a duplicate effect)
 * @param unexpected records in a target that the ledger does not put there, or dead lettered for
 *     another reason than expected
 * @param givenUp events the event-source mapping gave up on (retries or record age exhausted) and
 *     reported to its on-failure destination: each may be in the lake and the table at most once
 *     (its invocation's writes may have landed, or its late object been adopted), not more
 * @param givenUpInLake given-up events found in the lake
 * @param givenUpInTable given-up events found in the table
 * @param problems the first few problems, for people
 */
public record Reconciliation(
        long produced,
        long lake,
        long table,
        long aggregated,
        long deadLettered,
        long late,
        long lost,
        long duplicates,
        long unexpected,
        long givenUp,
        long givenUpInLake,
        long givenUpInTable,
        List<String> problems) {

    /** A reconciliation of a run in which no batch was given up. */
    public Reconciliation(
            long produced,
            long lake,
            long table,
            long aggregated,
            long deadLettered,
            long late,
            long lost,
            long duplicates,
            long unexpected,
            List<String> problems) {
        this(produced, lake, table, aggregated, deadLettered, late, lost, duplicates, unexpected, 0, 0, 0, problems);
    }

    /** Whether every invariant holds: nothing lost, nothing twice, nothing unexplained. */
    public boolean reconciled() {
        return lost == 0
                && duplicates == 0
                && unexpected == 0
                && produced == lake - givenUpInLake + givenUp + deadLettered
                && produced == table - givenUpInTable + givenUp + deadLettered;
    }

    /**
     * Records that took effect once each: lake lines of events not given up, given-up events (their
     * on-failure report is their effect, whether or not the lake also holds them) and dead letters.
     */
    public long effects() {
        return lake - duplicates - givenUpInLake + givenUp + deadLettered;
    }
}
