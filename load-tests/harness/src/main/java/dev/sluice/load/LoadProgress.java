package dev.sluice.load;

import java.io.PrintStream;
import java.util.Locale;

/**
 * The live line on standard error: time through the run, events sent and done, the rate and the
 * consumer lag ({@code \r}-redrawn on a terminal, a line every ten seconds otherwise).
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
        double fraction = Math.min(1, seconds / Math.max(1e-9, total));
        int filled = (int) (fraction * WIDTH);
        String line = String.format(
                Locale.ROOT,
                "%-9s [%s%s] %4.0f/%.0f s  sent %,d (%,.0f/s)  done %,d  lag %,d",
                phase,
                "#".repeat(filled),
                ".".repeat(WIDTH - filled),
                seconds,
                total,
                sent,
                sent / Math.max(1e-3, Math.min(seconds, total)),
                done,
                Math.max(0, sent - done));
        if (terminal) {
            err.print("\r" + line + "   ");
            err.flush();
        } else if ((long) seconds / 10 != lastLine) {
            lastLine = (long) seconds / 10;
            err.println(line);
        }
    }

    synchronized void finish() {
        if (terminal) {
            err.println();
        }
    }
}
