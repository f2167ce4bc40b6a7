package dev.sluice.cli;

import java.io.PrintStream;
import java.util.Locale;

/**
 * A progress bar on the terminal ({@code \r}-redrawn), or a line every tenth of the way when the
 * output is not a terminal (CI logs).
 */
final class Progress {

    private static final int WIDTH = 30;

    private final PrintStream out;
    private final String label;
    private final long total;
    private final boolean terminal;
    private final long started = System.nanoTime();
    private int lastDecile = -1;

    Progress(PrintStream out, String label, long total) {
        this.out = out;
        this.label = label;
        this.total = Math.max(1, total);
        this.terminal = System.console() != null;
    }

    synchronized void update(long done) {
        double fraction = Math.min(1.0, (double) done / total);
        double seconds = Math.max(1e-3, (System.nanoTime() - started) / 1e9);
        String line = String.format(
                Locale.ROOT,
                "%-10s [%s%s] %,d/%,d %3d%% %,.0f/s",
                label,
                "#".repeat((int) (fraction * WIDTH)),
                ".".repeat(WIDTH - (int) (fraction * WIDTH)),
                done,
                total,
                (int) (fraction * 100),
                done / seconds);
        if (terminal) {
            out.print("\r" + line);
            out.flush();
        } else {
            int decile = (int) (fraction * 10);
            if (decile != lastDecile) {
                lastDecile = decile;
                out.println(line);
            }
        }
    }

    synchronized void finish(long done) {
        update(done);
        if (terminal) {
            out.println();
        }
    }
}
