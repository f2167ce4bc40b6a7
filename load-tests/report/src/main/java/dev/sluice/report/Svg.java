package dev.sluice.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Draws a {@link Chart} as a standalone inline SVG element: axes, ticks, gridlines, legend. */
public final class Svg {

    static final String[] COLOURS = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#17becf"};
    private static final int WIDTH = 760;
    private static final int LEFT = 70;
    private static final int RIGHT = 20;
    private static final int TOP = 34;

    private Svg() {}

    public static String render(Chart chart) {
        return chart.type() == Chart.Type.LINE ? line(chart) : bars(chart);
    }

    private static String line(Chart chart) {
        int height = 320;
        int bottom = 50;
        double minX = Double.MAX_VALUE;
        double maxX = -Double.MAX_VALUE;
        double maxY = 0;
        for (Chart.Series s : chart.series()) {
            for (int i = 0; i < s.y().size(); i++) {
                minX = Math.min(minX, s.x().get(i));
                maxX = Math.max(maxX, s.x().get(i));
                maxY = Math.max(maxY, s.y().get(i));
            }
        }
        if (minX > maxX) {
            minX = 0;
            maxX = 1;
        }
        if (maxX == minX) {
            maxX = minX + 1;
        }
        double[] yTicks = ticks(0, maxY <= 0 ? 1 : maxY);
        double yTop = yTicks[yTicks.length - 1];
        double[] xTicks = ticks(minX, maxX);
        double x0 = Math.min(minX, xTicks[0]);
        double x1 = Math.max(maxX, xTicks[xTicks.length - 1]);
        int plotW = WIDTH - LEFT - RIGHT;
        int plotH = height - TOP - bottom;
        StringBuilder svg = open(chart, height);
        for (double t : yTicks) {
            double y = TOP + plotH - t / yTop * plotH;
            svg.append(fmt("<line x1='%d' y1='%.1f' x2='%d' y2='%.1f' class='grid'/>", LEFT, y, LEFT + plotW, y));
            svg.append(
                    fmt("<text x='%d' y='%.1f' class='tick' text-anchor='end'>%s</text>", LEFT - 6, y + 4, label(t)));
        }
        for (double t : xTicks) {
            if (t < x0 || t > x1) {
                continue;
            }
            double x = LEFT + (t - x0) / (x1 - x0) * plotW;
            svg.append(fmt(
                    "<line x1='%.1f' y1='%d' x2='%.1f' y2='%d' class='axis'/>", x, TOP + plotH, x, TOP + plotH + 4));
            svg.append(fmt(
                    "<text x='%.1f' y='%d' class='tick' text-anchor='middle'>%s</text>",
                    x, TOP + plotH + 17, label(t)));
        }
        svg.append(fmt(
                "<line x1='%d' y1='%d' x2='%d' y2='%d' class='axis'/>", LEFT, TOP + plotH, LEFT + plotW, TOP + plotH));
        svg.append(fmt("<line x1='%d' y1='%d' x2='%d' y2='%d' class='axis'/>", LEFT, TOP, LEFT, TOP + plotH));
        for (int s = 0; s < chart.series().size(); s++) {
            Chart.Series series = chart.series().get(s);
            List<String> points = new ArrayList<>();
            for (int i = 0; i < series.y().size(); i++) {
                double x = LEFT + (series.x().get(i) - x0) / (x1 - x0) * plotW;
                double y = TOP + plotH - series.y().get(i) / yTop * plotH;
                points.add(fmt("%.1f,%.1f", x, y));
            }
            String colour = COLOURS[s % COLOURS.length];
            svg.append(fmt(
                    "<polyline class='series' data-series='%s' fill='none' stroke='%s' stroke-width='1.8' points='%s'/>",
                    escape(series.name()), colour, String.join(" ", points)));
            if (series.y().size() == 1) {
                svg.append(fmt(
                        "<circle cx='%s' cy='%s' r='3' fill='%s'/>",
                        points.get(0).split(",")[0], points.get(0).split(",")[1], colour));
            }
        }
        svg.append(fmt(
                "<text x='%d' y='%d' class='label' text-anchor='middle'>%s</text>",
                LEFT + plotW / 2, height - 12, escape(chart.xLabel())));
        svg.append(fmt(
                "<text transform='translate(16,%d) rotate(-90)' class='label' text-anchor='middle'>%s</text>",
                TOP + plotH / 2, escape(chart.yLabel())));
        legend(svg, chart);
        return svg.append("</svg>").toString();
    }

    private static String bars(Chart chart) {
        int groups = chart.categories().size();
        int perGroup = Math.max(1, chart.series().size());
        int barH = 14;
        int groupH = perGroup * barH + 10;
        int left = 230;
        int bottom = 46;
        int height = TOP + groups * groupH + bottom;
        double max = 0;
        for (Chart.Series s : chart.series()) {
            for (double v : s.y()) {
                max = Math.max(max, v);
            }
        }
        double[] ticks = ticks(0, max <= 0 ? 1 : max);
        double top = ticks[ticks.length - 1];
        int plotW = WIDTH - left - RIGHT - 50;
        int plotH = groups * groupH;
        StringBuilder svg = open(chart, height);
        for (double t : ticks) {
            double x = left + t / top * plotW;
            svg.append(fmt("<line x1='%.1f' y1='%d' x2='%.1f' y2='%d' class='grid'/>", x, TOP, x, TOP + plotH));
            svg.append(fmt(
                    "<text x='%.1f' y='%d' class='tick' text-anchor='middle'>%s</text>",
                    x, TOP + plotH + 15, label(t)));
        }
        for (int g = 0; g < groups; g++) {
            int y = TOP + g * groupH + 5;
            svg.append(fmt(
                    "<text x='%d' y='%d' class='tick' text-anchor='end'>%s</text>",
                    left - 6,
                    y + perGroup * barH / 2 + 4,
                    escape(chart.categories().get(g))));
            for (int s = 0; s < chart.series().size(); s++) {
                List<Double> values = chart.series().get(s).y();
                double v = g < values.size() ? values.get(g) : 0;
                double w = v / top * plotW;
                svg.append(fmt(
                        "<rect class='bar' x='%d' y='%d' width='%.1f' height='%d' fill='%s'><title>%s: %s</title></rect>",
                        left,
                        y + s * barH,
                        w,
                        barH - 2,
                        COLOURS[s % COLOURS.length],
                        escape(chart.series().get(s).name()),
                        label(v)));
                svg.append(fmt(
                        "<text x='%.1f' y='%d' class='tick'>%s</text>",
                        left + w + 4, y + s * barH + barH - 4, label(v)));
            }
        }
        svg.append(fmt("<line x1='%d' y1='%d' x2='%d' y2='%d' class='axis'/>", left, TOP, left, TOP + plotH));
        svg.append(fmt(
                "<text x='%d' y='%d' class='label' text-anchor='middle'>%s</text>",
                left + plotW / 2, height - 10, escape(chart.xLabel())));
        legend(svg, chart);
        return svg.append("</svg>").toString();
    }

    private static StringBuilder open(Chart chart, int height) {
        StringBuilder svg = new StringBuilder();
        svg.append(fmt(
                "<svg id='%s' xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' viewBox='0 0 %d %d' role='img'>",
                escape(chart.id()), WIDTH, height, WIDTH, height));
        svg.append(fmt("<title>%s</title>", escape(chart.title())));
        svg.append(fmt("<text x='%d' y='18' class='title'>%s</text>", LEFT - 50, escape(chart.title())));
        return svg;
    }

    private static void legend(StringBuilder svg, Chart chart) {
        int x = WIDTH - RIGHT;
        for (int s = chart.series().size() - 1; s >= 0; s--) {
            String name = chart.series().get(s).name();
            int w = 16 + name.length() * 7;
            x -= w + 10;
            svg.append(fmt("<rect x='%d' y='8' width='10' height='10' fill='%s'/>", x, COLOURS[s % COLOURS.length]));
            svg.append(fmt("<text x='%d' y='17' class='tick'>%s</text>", x + 14, escape(name)));
        }
    }

    /** About five round tick values covering [min, max]. */
    static double[] ticks(double min, double max) {
        double span = max - min;
        if (span <= 0) {
            span = Math.abs(max) > 0 ? Math.abs(max) : 1;
        }
        double raw = span / 5;
        double magnitude = Math.pow(10, Math.floor(Math.log10(raw)));
        double step = magnitude;
        for (double m : new double[] {1, 2, 2.5, 5, 10}) {
            if (m * magnitude >= raw) {
                step = m * magnitude;
                break;
            }
        }
        double first = Math.floor(min / step) * step;
        double last = Math.ceil(max / step) * step;
        if (last <= first) {
            last = first + step;
        }
        int n = (int) Math.round((last - first) / step) + 1;
        double[] ticks = new double[n];
        for (int i = 0; i < n; i++) {
            ticks[i] = first + i * step;
        }
        return ticks;
    }

    static String label(double v) {
        double a = Math.abs(v);
        if (a >= 1e6) {
            return trim(fmt("%.2f", v / 1e6)) + "M";
        }
        if (a >= 1e4) {
            return trim(fmt("%.1f", v / 1e3)) + "k";
        }
        if (a >= 100 || v == Math.rint(v)) {
            return fmt("%.0f", v);
        }
        return trim(fmt(a >= 1 ? "%.2f" : "%.4f", v));
    }

    private static String trim(String s) {
        return s.contains(".") ? s.replaceAll("0+$", "").replaceAll("\\.$", "") : s;
    }

    static String escape(String s) {
        if (s == null) {
            return "";
        }
        return s.replace("&", "&amp;")
                .replace("<", "&lt;")
                .replace(">", "&gt;")
                .replace("'", "&#39;")
                .replace("\"", "&quot;");
    }

    private static String fmt(String format, Object... args) {
        return String.format(Locale.ROOT, format, args);
    }
}
