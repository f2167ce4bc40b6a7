package dev.sluice.cli;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One {@code REPORT} line Lambda writes to a function's log stream at the end of each invocation
 * (text log format), parsed: pure, no AWS type.
 *
 * <p>The line is {@code REPORT } followed by {@code Name: value[ unit]} fields separated by tabs
 * (the CloudWatch console shows them with spaces; both are read), for example (an invocation that
 * restored a SnapStart snapshot, one line in CloudWatch Logs; the test fixtures in {@code
 * src/test/resources/lambda-report} hold such lines):
 *
 * <pre>
 * REPORT RequestId: 3f0c9a12-5b7e-4d21-9c44-8e2a61d0b7f3\tDuration: 1873.41 ms\tBilled Duration: 2043 ms\t
 * Memory Size: 1024 MB\tMax Memory Used: 197 MB\tRestore Duration: 412.30 ms\tBilled Restore Duration: 169 ms\t
 * </pre>
 *
 * <p>AWS's Lambda developer guide, "Monitoring for Lambda SnapStart": "When a new execution
 * environment is created, the {@code REPORT} includes the {@code Restore Duration} and {@code Billed
 * Restore Duration} fields: {@code Restore Duration}: The time it takes for Lambda to restore a
 * snapshot, load the runtime, and run any after-restore runtime hooks. [...] {@code Billed Restore
 * Duration}: The time it takes for Lambda to load the runtime and run any after-restore runtime
 * hooks." and "the {@code REPORT} doesn't include the {@code Init Duration} field" for SnapStart
 * functions (it is in {@code INIT_REPORT}); its Logs Insights query reads the field with {@code
 * parse @message /Restore Duration: (?<restoreDuration>.*?) ms/}. A function without SnapStart
 * reports {@code Init Duration: N ms} on its cold starts instead.
 *
 * <p>Read: {@code RequestId}, {@code Duration} and {@code Billed Duration} (required), {@code Memory
 * Size} and {@code Max Memory Used} (MB), {@code Init Duration}, {@code Restore Duration} and
 * {@code Billed Restore Duration} (each optional; the two restore fields come together). Other
 * fields ({@code XRAY TraceId}, {@code Status}, {@code Error Type}, …) are skipped. Anything else is
 * refused with an {@link IllegalArgumentException} saying what is wrong.
 *
 * @param requestId the invocation's request id
 * @param durationMs {@code Duration}: the handler's run time
 * @param billedDurationMs {@code Billed Duration}
 * @param memorySizeMb {@code Memory Size}, or empty
 * @param maxMemoryUsedMb {@code Max Memory Used}, or empty
 * @param initDurationMs {@code Init Duration} (a cold start without SnapStart), or empty
 * @param restoreDurationMs {@code Restore Duration} (a SnapStart restore), or empty
 * @param billedRestoreDurationMs {@code Billed Restore Duration}, present exactly when {@code
 *     restoreDurationMs} is
 */
record ReportLine(
        String requestId,
        double durationMs,
        long billedDurationMs,
        OptionalLong memorySizeMb,
        OptionalLong maxMemoryUsedMb,
        OptionalDouble initDurationMs,
        OptionalDouble restoreDurationMs,
        OptionalLong billedRestoreDurationMs) {

    /** The prefix of every REPORT line. */
    static final String PREFIX = "REPORT ";

    /** One field from where the last one ended: {@code Name: value} and an optional unit. */
    private static final Pattern FIELD =
            Pattern.compile("\\G[\\t ]*([A-Z][A-Za-z ]*?): (\\S+)(?: (ms|MB)(?=[\\t ]|$))?[\\t ]*");

    ReportLine {
        if (restoreDurationMs.isPresent() != billedRestoreDurationMs.isPresent()) {
            throw new IllegalArgumentException("Restore Duration and Billed Restore Duration come together");
        }
    }

    /** Whether this invocation restored a SnapStart snapshot (its REPORT carries a Restore Duration). */
    boolean restored() {
        return restoreDurationMs.isPresent();
    }

    /**
     * Parses one REPORT line (a trailing line break and tab are allowed).
     *
     * @throws IllegalArgumentException naming what is wrong and quoting the start of the line
     */
    static ReportLine parse(String message) {
        if (message == null) {
            throw new IllegalArgumentException("not a Lambda REPORT line: no message");
        }
        String line = message.strip();
        if (line.startsWith("{")) {
            throw refused(line, "a JSON log record; only the text log format's REPORT line is read");
        }
        if (!line.startsWith(PREFIX)) {
            throw refused(line, "it does not start with \"REPORT \"");
        }
        Map<String, String> fields = new LinkedHashMap<>();
        Matcher field = FIELD.matcher(line);
        field.region(PREFIX.length(), line.length());
        int end = PREFIX.length();
        while (end < line.length() && field.find()) {
            String name = field.group(1);
            String value = field.group(2);
            String unit = field.group(3);
            if (fields.containsKey(name)) {
                throw refused(line, "the field " + name + " appears twice");
            }
            fields.put(name, unit == null ? value : value + " " + unit);
            end = field.end();
        }
        if (end < line.length()) {
            throw refused(
                    line, "unreadable from column " + (end + 1) + " (\"" + abbreviate(line.substring(end)) + "\")");
        }
        String requestId = fields.get("RequestId");
        if (requestId == null) {
            throw refused(line, "no RequestId");
        }
        return new ReportLine(
                requestId,
                decimal(line, fields, "Duration", "ms", true).orElseThrow(),
                whole(line, fields, "Billed Duration", "ms", true).orElseThrow(),
                whole(line, fields, "Memory Size", "MB", false),
                whole(line, fields, "Max Memory Used", "MB", false),
                decimal(line, fields, "Init Duration", "ms", false),
                decimal(line, fields, "Restore Duration", "ms", false),
                billedRestore(line, fields));
    }

    private static OptionalLong billedRestore(String line, Map<String, String> fields) {
        boolean restore = fields.containsKey("Restore Duration");
        boolean billed = fields.containsKey("Billed Restore Duration");
        if (restore != billed) {
            throw refused(
                    line,
                    (restore
                            ? "Restore Duration without Billed Restore Duration"
                            : "Billed Restore Duration without Restore Duration"));
        }
        return whole(line, fields, "Billed Restore Duration", "ms", false);
    }

    /**
     * The number of field {@code name}, checked to be in {@code unit} and to match {@code number}
     * (described as {@code what} when it does not), or {@code null} when absent and not required.
     */
    private static String number(
            String line,
            Map<String, String> fields,
            String name,
            String unit,
            boolean required,
            String number,
            String what) {
        String raw = fields.get(name);
        if (raw == null) {
            if (required) {
                throw refused(line, "no " + name);
            }
            return null;
        }
        if (!raw.endsWith(" " + unit)) {
            throw refused(line, name + " \"" + raw + "\" is not in " + unit);
        }
        String value = raw.substring(0, raw.length() - unit.length() - 1);
        if (!value.matches(number)) {
            throw refused(line, name + " \"" + value + "\" is not " + what + " of " + unit);
        }
        return value;
    }

    private static OptionalDouble decimal(
            String line, Map<String, String> fields, String name, String unit, boolean required) {
        String value = number(line, fields, name, unit, required, "\\d+(\\.\\d+)?", "a number");
        return value == null ? OptionalDouble.empty() : OptionalDouble.of(Double.parseDouble(value));
    }

    private static OptionalLong whole(
            String line, Map<String, String> fields, String name, String unit, boolean required) {
        String value = number(line, fields, name, unit, required, "\\d{1,15}", "a whole number");
        return value == null ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(value));
    }

    private static IllegalArgumentException refused(String line, String why) {
        return new IllegalArgumentException("not a Lambda REPORT line (" + why + "): " + abbreviate(line));
    }

    private static String abbreviate(String text) {
        String oneLine = text.replace('\t', ' ').replace('\n', ' ');
        return oneLine.length() <= 80 ? oneLine : oneLine.substring(0, 80) + "…";
    }

    /** {@code 412.30 ms} style, as the REPORT line prints it. */
    static String millis(double ms) {
        return String.format(Locale.ROOT, "%.2f", ms);
    }
}
