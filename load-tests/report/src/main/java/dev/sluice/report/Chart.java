package dev.sluice.report;

import java.util.List;
import java.util.Objects;

/**
 * A chart of a report. {@code LINE}: each series is a list of (x, y) points on shared axes.
 * {@code BARS}: {@code categories} along the vertical axis, one horizontal bar per series per
 * category, the series' values in category order.
 *
 * @param id a short identifier (the SVG element's id)
 * @param title the chart's heading
 * @param type line or bars
 * @param xLabel the horizontal axis
 * @param yLabel the vertical axis (LINE only)
 * @param categories the bar groups (BARS only)
 * @param series the data
 */
public record Chart(
        String id,
        String title,
        Type type,
        String xLabel,
        String yLabel,
        List<String> categories,
        List<Series> series) {

    public Chart {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(type, "type");
        categories = List.copyOf(categories);
        series = List.copyOf(series);
    }

    public static Chart line(String id, String title, String xLabel, String yLabel, List<Series> series) {
        return new Chart(id, title, Type.LINE, xLabel, yLabel, List.of(), series);
    }

    public static Chart bars(String id, String title, String valueLabel, List<String> categories, List<Series> series) {
        return new Chart(id, title, Type.BARS, valueLabel, "", categories, series);
    }

    /** How a chart is drawn. */
    public enum Type {
        LINE,
        BARS
    }

    /**
     * One series: LINE charts read {@code x} and {@code y} pairwise; BARS charts read {@code y} in
     * category order and ignore {@code x}.
     */
    public record Series(String name, List<Double> x, List<Double> y) {
        public Series {
            x = List.copyOf(x);
            y = List.copyOf(y);
            if (!x.isEmpty() && x.size() != y.size()) {
                throw new IllegalArgumentException(
                        "series " + name + ": " + x.size() + " x values, " + y.size() + " y values");
            }
        }

        public static Series bars(String name, List<Double> values) {
            return new Series(name, List.of(), values);
        }
    }
}
