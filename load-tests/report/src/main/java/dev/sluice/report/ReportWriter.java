package dev.sluice.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Map;

/**
 * Writes a {@link Report} as {@code report.json} (Jackson) and {@code report.html} (one
 * self-contained page: inline CSS and SVG, no script, nothing fetched) into a directory.
 */
public final class ReportWriter {

    /** File names inside a report directory. */
    public static final String JSON = "report.json";

    public static final String HTML = "report.html";

    private static final DateTimeFormatter DIRECTORY =
            DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'", Locale.ROOT).withZone(ZoneOffset.UTC);

    private final ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    /** {@code <reports>/<UTC timestamp>}, e.g. {@code load-tests/reports/20261201T012233Z}. */
    public static Path directoryFor(Path reports, Instant at) {
        return reports.resolve(DIRECTORY.format(at));
    }

    /** Writes both files into {@code directory} (created if needed). */
    public void write(Path directory, Report report) {
        try {
            Files.createDirectories(directory);
            Files.writeString(
                    directory.resolve(JSON), mapper.writeValueAsString(report) + "\n", StandardCharsets.UTF_8);
            Files.writeString(directory.resolve(HTML), html(report), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the report into " + directory + ": " + e.getMessage(), e);
        }
    }

    /** A cell that holds a figure (right-aligned): it starts with a digit, a sign or ±. */
    static boolean numeric(String cell) {
        return cell != null && cell.matches("^[-+±]? ?[0-9].*");
    }

    /** The HTML page. */
    public String html(Report report) {
        StringBuilder h = new StringBuilder();
        h.append("<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>");
        h.append("<title>").append(Svg.escape(report.title())).append("</title>\n<style>");
        h.append(
                "body{font-family:-apple-system,'Segoe UI',Helvetica,Arial,sans-serif;margin:24px auto;max-width:820px;color:#222}");
        h.append("h1{font-size:22px;margin-bottom:4px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #ddd}");
        h.append(".meta{color:#666;font-size:13px}table{border-collapse:collapse;font-size:13px;margin:8px 0}");
        h.append("td,th{border:1px solid #ddd;padding:3px 8px;text-align:left}th{background:#f4f4f4}");
        h.append("td.n{text-align:right}.summary td:first-child{font-weight:600}");
        h.append("svg{display:block;margin:10px 0;background:#fff;border:1px solid #eee}");
        h.append("svg .grid{stroke:#e6e6e6}svg .axis{stroke:#555}svg .tick{font-size:11px;fill:#444}");
        h.append("svg .label{font-size:12px;fill:#222}svg .title{font-size:14px;font-weight:600;fill:#222}");
        h.append("p.note{font-size:13px;color:#444;line-height:1.4}</style></head><body>\n");
        h.append("<h1>").append(Svg.escape(report.title())).append("</h1>\n");
        h.append("<div class='meta'>").append(Svg.escape(report.kind())).append(" run, ended ");
        h.append(Svg.escape(report.generatedAt())).append(" · ");
        StringBuilder machine = new StringBuilder();
        for (Map.Entry<String, String> e : report.machine().entrySet()) {
            machine.append(machine.isEmpty() ? "" : ", ")
                    .append(e.getKey())
                    .append(' ')
                    .append(e.getValue());
        }
        h.append(Svg.escape(machine.toString())).append("</div>\n");
        h.append("<h2>Summary</h2>\n<table class='summary'>");
        report.summary()
                .forEach((k, v) -> h.append("<tr><td>")
                        .append(Svg.escape(k))
                        .append("</td><td>")
                        .append(Svg.escape(String.valueOf(v)))
                        .append("</td></tr>"));
        h.append("</table>\n");
        if (!report.charts().isEmpty()) {
            h.append("<h2>Charts</h2>\n"); // each chart carries its own title
        }
        for (Chart chart : report.charts()) {
            h.append(Svg.render(chart)).append('\n');
        }
        for (Report.Table table : report.tables()) {
            h.append("<h2>").append(Svg.escape(table.title())).append("</h2>\n<table><tr>");
            table.columns().forEach(c -> h.append("<th>").append(Svg.escape(c)).append("</th>"));
            h.append("</tr>");
            for (var row : table.rows()) {
                h.append("<tr>");
                row.forEach(c -> h.append(numeric(c) ? "<td class='n'>" : "<td>")
                        .append(Svg.escape(c))
                        .append("</td>"));
                h.append("</tr>");
            }
            h.append("</table>\n");
            if (table.note() != null && !table.note().isBlank()) {
                h.append("<p class='note'>").append(Svg.escape(table.note())).append("</p>\n");
            }
        }
        if (!report.notes().isEmpty()) {
            h.append("<h2>How this was measured</h2>\n");
            report.notes()
                    .forEach(n ->
                            h.append("<p class='note'>").append(Svg.escape(n)).append("</p>\n"));
        }
        h.append("<p class='meta'>report.json next to this page holds every figure.</p>\n</body></html>\n");
        return h.toString();
    }
}
