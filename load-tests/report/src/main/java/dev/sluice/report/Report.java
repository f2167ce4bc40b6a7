package dev.sluice.report;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One run's report: what ran, its headline figures, its charts and tables, and the full
 * structured result ({@code data}, any Jackson-serialisable object) for machines.
 *
 * @param kind {@code load} or {@code bench}
 * @param title a heading for people
 * @param generatedAt when the run ended, RFC 3339
 * @param machine cores, memory, JVM and OS of the machine that ran it
 * @param summary headline figures, in order (name → value)
 * @param charts the charts, drawn as inline SVG in report.html
 * @param tables the tables
 * @param notes how the figures were measured, one paragraph each
 * @param data the full result
 */
public record Report(
        String kind,
        String title,
        String generatedAt,
        Map<String, String> machine,
        Map<String, Object> summary,
        List<Chart> charts,
        List<Table> tables,
        List<String> notes,
        Object data) {

    public Report {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(title, "title");
        machine = Map.copyOf(machine);
        summary = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(summary));
        charts = List.copyOf(charts);
        tables = List.copyOf(tables);
        notes = List.copyOf(notes);
    }

    /** A table: a heading, column names and rows of cells (already formatted). */
    public record Table(String title, List<String> columns, List<List<String>> rows, String note) {
        public Table {
            columns = List.copyOf(columns);
            rows = rows.stream().map(List::copyOf).toList();
        }
    }

    /** The machine this JVM runs on. */
    public static Map<String, String> thisMachine() {
        Map<String, String> machine = new LinkedHashMap<>();
        machine.put("cores", Integer.toString(Runtime.getRuntime().availableProcessors()));
        machine.put("maxHeapMb", Long.toString(Runtime.getRuntime().maxMemory() >> 20));
        machine.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
        machine.put("os", System.getProperty("os.name") + " " + System.getProperty("os.arch"));
        return machine;
    }
}
