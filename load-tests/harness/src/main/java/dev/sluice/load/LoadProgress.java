package dev.sluice.load;

import java.io.PrintStream;
import java.util.Locale;

/**
 * The live line on standard error: time through the run, events sent and done, the rate and the
 * consumer lag ({@code \r}-redrawn on a terminal, a line every ten seconds otherwise). With an
 * aggregating producer the consumer acknowledges Kinesis records, each carrying many events: done and
 * lag are then counted in Kinesis records, against the records sent.
 */
final class LoadProgress {

    private static final int WIDTH = 24;

    private final PrintStream err;
    private final boolean terminal = System.console() != null;
    private long lastLine = -1;

    LoadProgress(PrintStream err) {
        this.err = err;
    }

    synchronized void update(String phase, double seconds, double total, long sent, long done) {
        update(phase, seconds, total, sent, sent, done);
    }

    /**
     * @param sentRecords the Kinesis records that carried the {@code sent} events (as many when
     *     nothing is aggregated)
     * @param done Kinesis records the consumer acknowledged
     */
    synchronized void update(String phase, double seconds, double total, long sent, long sentRecords, long done) {
        err.print(line(phase, seconds, total, sent, sentRecords, done, terminal, lastLine));
        err.flush();
        if (!terminal && (long) seconds / 10 != lastLine) {
            lastLine = (long) seconds / 10;
        }
    }

    /** What one update prints: the redrawn line on a terminal, a line every ten seconds otherwise (else nothing). */
    static String line(
            String phase,
            double seconds,
            double total,
            long sent,
            long sentRecords,
            long done,
            boolean terminal,
            long lastLine) {
        double fraction = Math.min(1, seconds / Math.max(1e-9, total));
        int filled = (int) (fraction * WIDTH);
        String line = String.format(
                Locale.ROOT,
                "%-9s [%s%s] %4.0f/%.0f s  sent %,d (%,.0f/s)  %s",
                phase,
                "#".repeat(filled),
                ".".repeat(WIDTH - filled),
                seconds,
                total,
                sent,
                sent / Math.max(1e-3, Math.min(seconds, total)),
                sentRecords == sent
                        ? String.format(Locale.ROOT, "done %,d  lag %,d", done, Math.max(0, sent - done))
                        : String.format(
                                Locale.ROOT,
                                "in %,d Kinesis records: done %,d  lag %,d records",
                                sentRecords,
                                done,
                                Math.max(0, sentRecords - done)));
        if (terminal) {
            return "\r" + line + "   ";
        }
        return (long) seconds / 10 != lastLine ? line + System.lineSeparator() : "";
    }

    synchronized void finish() {
        if (terminal) {
            err.println();
        }
    }
}
