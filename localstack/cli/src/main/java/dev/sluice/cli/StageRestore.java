package dev.sluice.cli;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * What {@code ./sluice smoke} found of a Lambda stage's SnapStart restore: the first REPORT line with
 * a {@code Restore Duration} in the stage function's log group since the latest deploy, or why there
 * is none (no restore logged yet, the figure is AWS-only, the logs could not be read).
 *
 * @param stage the stage's name in the pipeline definition
 * @param report the REPORT line, or empty
 * @param at when it was logged (with {@code report})
 * @param logStream the log stream it is in (with {@code report}; Lambda names it {@code
 *     yyyy/mm/dd/[version]id})
 * @param since the start of the search (the latest deploy), or {@code null} locally
 * @param note why there is no figure (without {@code report})
 */
record StageRestore(
        String stage, Optional<ReportLine> report, Instant at, String logStream, Instant since, String note) {

    /** The local stack: no snapshots, so no Restore Duration. */
    static StageRestore awsOnly(String stage) {
        return new StageRestore(
                stage,
                Optional.empty(),
                null,
                null,
                null,
                "n/a: Restore Duration is AWS-only (the local stack takes no snapshots); run ./sluice smoke --aws"
                        + " after a deploy");
    }

    static StageRestore seen(String stage, ReportLine report, Instant at, String logStream, Instant since) {
        return new StageRestore(stage, Optional.of(report), at, logStream, since, null);
    }

    static StageRestore none(String stage, Instant since, String note) {
        return new StageRestore(stage, Optional.empty(), null, null, since, note);
    }

    /** The Restore Duration, or empty. */
    OptionalDouble restoreMs() {
        return report.map(ReportLine::restoreDurationMs).orElse(OptionalDouble.empty());
    }

    /** The function version of the log stream ({@code 2026/12/01/[12]…} is version 12), or empty. */
    Optional<String> version() {
        if (logStream == null) {
            return Optional.empty();
        }
        int open = logStream.indexOf('[');
        int close = logStream.indexOf(']', open + 1);
        return open < 0 || close < 0 ? Optional.empty() : Optional.of(logStream.substring(open + 1, close));
    }

    /** One line for people. */
    String line() {
        if (report.isEmpty()) {
            return "restore: " + stage + " " + note;
        }
        ReportLine r = report.get();
        return String.format(
                Locale.ROOT,
                "restore: %s %s ms (billed %d ms), first invocation after the deploy at %s: logged %s%s, request %s,"
                        + " handler %s ms",
                stage,
                ReportLine.millis(r.restoreDurationMs().orElseThrow()),
                r.billedRestoreDurationMs().orElseThrow(),
                since.truncatedTo(ChronoUnit.SECONDS),
                at.truncatedTo(ChronoUnit.MILLIS),
                version().map(v -> " by version " + v).orElse(""),
                r.requestId(),
                ReportLine.millis(r.durationMs()));
    }

    /**
     * The RESULT fields: {@code restore_ms=<the largest over the stages seen, or n/a>} and {@code
     * restore_ms_<stage>=<ms or n/a>} per stage (hyphens in the stage name become underscores).
     */
    static String resultFields(List<StageRestore> restores) {
        OptionalDouble max = restores.stream()
                .map(StageRestore::restoreMs)
                .filter(OptionalDouble::isPresent)
                .mapToDouble(OptionalDouble::getAsDouble)
                .max();
        StringBuilder fields = new StringBuilder("restore_ms=").append(figure(max));
        for (StageRestore restore : restores) {
            fields.append(" restore_ms_")
                    .append(restore.stage().replace('-', '_'))
                    .append('=')
                    .append(figure(restore.restoreMs()));
        }
        return fields.toString();
    }

    private static String figure(OptionalDouble ms) {
        return ms.isPresent() ? ReportLine.millis(ms.getAsDouble()) : "n/a";
    }
}
