package dev.leasehold.bench.chart;

import java.util.ArrayList;
import java.util.List;

/**
 * Draws the parts every chart shares: a white background (so the picture reads the same in
 * GitHub's light and dark themes), the title and its note, both axes with grid, ticks and titles,
 * the series as lines with optional markers and range bars, and a legend to the right. The data
 * area is always {@value #WIDTH} by {@value #HEIGHT}; the margins grow with the labels.
 */
final class Plot {

    static final double WIDTH = 560;
    static final double HEIGHT = 320;

    private static final double MARGIN = 16;
    private static final double TITLE_SIZE = 17;
    private static final double NOTE_SIZE = 12;
    private static final double AXIS_SIZE = 13;
    private static final double TICK_SIZE = 12;
    private static final double LEGEND_SIZE = 13;
    private static final double LEGEND_ROW = 22;
    private static final double LEGEND_SAMPLE = 30;
    private static final double MARKER = 4.5;
    /** Horizontal offset between series at the same x, so their markers and bars do not hide each other. */
    private static final double DODGE = 3;
    private static final String TEXT = "#222222";
    private static final String SOFT_TEXT = "#555555";
    private static final String GRID = "#e4e4e4";
    private static final String FRAME = "#333333";

    /** A named run of points, drawn in the order given. */
    record Series(String label, List<Point> points) {
    }

    /** How the series are drawn. */
    enum Style {
        /** Lines through markers, each series shifted a little sideways, range bars where a point has a range. */
        MARKED,
        /** Lines only (dense series, such as distributions); a one-point series still gets its marker. */
        LINES
    }

    private final Titles titles;
    private final Axis xAxis;
    private final Scale x;
    private final Axis yAxis;
    private final Scale y;
    private final List<Series> series;
    private final Style style;
    private final double left;
    private final double top;
    private final double width;
    private final double height;
    private final List<String> noteLines;

    private Plot(Titles titles, Axis xAxis, Scale x, Axis yAxis, Scale y, List<Series> series, Style style) {
        this.titles = titles;
        this.xAxis = xAxis;
        this.x = x;
        this.yAxis = yAxis;
        this.y = y;
        this.series = series;
        this.style = style;
        double tickWidth = y.ticks().stream().mapToDouble(tick -> textWidth(tick.label(), TICK_SIZE)).max().orElse(0);
        this.left = MARGIN + AXIS_SIZE + 12 + tickWidth + 8;
        double legendWidth = LEGEND_SAMPLE + 10
                + series.stream().mapToDouble(s -> textWidth(s.label(), LEGEND_SIZE)).max().orElse(0);
        this.width = Math.max(left + WIDTH + 24 + legendWidth + MARGIN, MARGIN * 2 + textWidth(titles.title(), TITLE_SIZE));
        this.noteLines = wrap(titles.note(), (int) ((width - 2 * MARGIN) / charWidth(NOTE_SIZE)));
        this.top = MARGIN + TITLE_SIZE + 6 + noteLines.size() * (NOTE_SIZE + 4) + 20;
        this.height = top + Math.max(HEIGHT, series.size() * LEGEND_ROW) + 58;
    }

    /**
     * The chart as an SVG document.
     *
     * @throws IllegalArgumentException if a scale cannot place a value (see {@link Scale#fraction})
     */
    static String draw(Titles titles, Axis xAxis, Scale x, Axis yAxis, Scale y, List<Series> series, Style style) {
        return new Plot(titles, xAxis, x, yAxis, y, series, style).svg();
    }

    private String svg() {
        Svg svg = new Svg(width, height, titles.title());
        svg.empty("rect", "width", width, "height", height, "fill", "#ffffff");
        svg.element("text", titles.title(), "x", MARGIN, "y", MARGIN + TITLE_SIZE, "font-size", TITLE_SIZE,
                "font-weight", "bold", "fill", TEXT);
        for (int i = 0; i < noteLines.size(); i++) {
            svg.element("text", noteLines.get(i), "x", MARGIN, "y", MARGIN + TITLE_SIZE + 6 + (i + 1) * (NOTE_SIZE + 4),
                    "font-size", NOTE_SIZE, "fill", SOFT_TEXT);
        }
        axes(svg);
        for (int i = 0; i < series.size(); i++) {
            series(svg, i);
        }
        legend(svg);
        return svg.finish();
    }

    private void axes(Svg svg) {
        double bottom = top + HEIGHT;
        svg.open("g", "class", "grid", "stroke", GRID, "stroke-width", 1);
        for (Scale.Tick tick : y.ticks()) {
            svg.empty("line", "x1", left, "x2", left + WIDTH, "y1", py(tick.value()), "y2", py(tick.value()));
        }
        for (Scale.Tick tick : x.ticks()) {
            svg.empty("line", "x1", px(tick.value()), "x2", px(tick.value()), "y1", top, "y2", bottom);
        }
        svg.close("g");
        svg.open("g", "class", "axes", "stroke", FRAME, "stroke-width", 1);
        svg.empty("line", "x1", left, "x2", left, "y1", top, "y2", bottom);
        svg.empty("line", "x1", left, "x2", left + WIDTH, "y1", bottom, "y2", bottom);
        for (Scale.Tick tick : y.ticks()) {
            svg.empty("line", "x1", left - 5, "x2", left, "y1", py(tick.value()), "y2", py(tick.value()));
        }
        for (Scale.Tick tick : x.ticks()) {
            svg.empty("line", "x1", px(tick.value()), "x2", px(tick.value()), "y1", bottom, "y2", bottom + 5);
        }
        svg.close("g");
        svg.open("g", "class", "y-ticks", "font-size", TICK_SIZE, "fill", TEXT, "text-anchor", "end");
        for (Scale.Tick tick : y.ticks()) {
            svg.element("text", tick.label(), "x", left - 8, "y", py(tick.value()) + TICK_SIZE * 0.35);
        }
        svg.close("g");
        svg.open("g", "class", "x-ticks", "font-size", TICK_SIZE, "fill", TEXT, "text-anchor", "middle");
        for (Scale.Tick tick : x.ticks()) {
            svg.element("text", tick.label(), "x", px(tick.value()), "y", bottom + 8 + TICK_SIZE);
        }
        svg.close("g");
        svg.element("text", xAxis.title() + (xAxis.log() ? ", log scale" : ""), "class", "x-title",
                "x", left + WIDTH / 2, "y", bottom + 44, "font-size", AXIS_SIZE, "fill", TEXT, "text-anchor", "middle");
        double yTitleX = MARGIN + AXIS_SIZE;
        double yTitleY = top + HEIGHT / 2;
        svg.element("text", yAxis.title() + (yAxis.log() ? ", log scale" : ""), "class", "y-title",
                "x", yTitleX, "y", yTitleY, "font-size", AXIS_SIZE, "fill", TEXT, "text-anchor", "middle",
                "transform", "rotate(-90 " + Svg.number(yTitleX) + " " + Svg.number(yTitleY) + ")");
    }

    private void series(Svg svg, int index) {
        Series one = series.get(index);
        String colour = Palette.colour(index);
        double shift = style == Style.MARKED ? (index - (series.size() - 1) / 2.0) * DODGE : 0;
        svg.open("g", "class", "series", "data-series", one.label(), "stroke", colour, "fill", colour);
        if (one.points().size() > 1) {
            StringBuilder points = new StringBuilder();
            for (Point point : one.points()) {
                points.append(points.isEmpty() ? "" : " ")
                        .append(Svg.number(px(point.x()) + shift)).append(',').append(Svg.number(py(point.y())));
            }
            svg.empty("polyline", "points", points, "fill", "none", "stroke-width", 2.2, "stroke-linejoin", "round",
                    "stroke-dasharray", Palette.dash(index));
        }
        for (Point point : one.points()) {
            double at = px(point.x()) + shift;
            if (style == Style.MARKED && point.ranged()) {
                svg.empty("line", "class", "range", "x1", at, "x2", at, "y1", py(point.low()), "y2", py(point.high()),
                        "stroke-width", 1.5);
                svg.empty("line", "class", "range", "x1", at - 4, "x2", at + 4, "y1", py(point.low()), "y2", py(point.low()),
                        "stroke-width", 1.5);
                svg.empty("line", "class", "range", "x1", at - 4, "x2", at + 4, "y1", py(point.high()), "y2", py(point.high()),
                        "stroke-width", 1.5);
            }
            if (style == Style.MARKED || one.points().size() == 1) {
                marker(svg, Palette.marker(index), at, py(point.y()));
            }
        }
        svg.close("g");
    }

    private void legend(Svg svg) {
        double x0 = left + WIDTH + 24;
        svg.open("g", "class", "legend", "font-size", LEGEND_SIZE, "fill", TEXT);
        for (int i = 0; i < series.size(); i++) {
            double rowY = top + 8 + i * LEGEND_ROW;
            String colour = Palette.colour(i);
            svg.empty("line", "x1", x0, "x2", x0 + LEGEND_SAMPLE, "y1", rowY, "y2", rowY, "stroke", colour,
                    "stroke-width", 2.2, "stroke-dasharray", Palette.dash(i));
            if (style == Style.MARKED) {
                svg.open("g", "stroke", colour, "fill", colour);
                marker(svg, Palette.marker(i), x0 + LEGEND_SAMPLE / 2, rowY);
                svg.close("g");
            }
            svg.element("text", series.get(i).label(), "x", x0 + LEGEND_SAMPLE + 8, "y", rowY + LEGEND_SIZE * 0.35);
        }
        svg.close("g");
    }

    private static void marker(Svg svg, Palette.Marker shape, double cx, double cy) {
        double r = MARKER;
        switch (shape) {
            case CIRCLE -> svg.empty("circle", "class", "marker", "cx", cx, "cy", cy, "r", r, "stroke", "#ffffff",
                    "stroke-width", 1);
            case SQUARE -> svg.empty("rect", "class", "marker", "x", cx - r, "y", cy - r, "width", 2 * r, "height", 2 * r,
                    "stroke", "#ffffff", "stroke-width", 1);
            case TRIANGLE -> svg.empty("polygon", "class", "marker", "points", polygon(cx, cy - r * 1.2, cx + r * 1.1,
                    cy + r * 0.8, cx - r * 1.1, cy + r * 0.8), "stroke", "#ffffff", "stroke-width", 1);
            case DIAMOND -> svg.empty("polygon", "class", "marker", "points", polygon(cx, cy - r * 1.3, cx + r * 1.1, cy,
                    cx, cy + r * 1.3, cx - r * 1.1, cy), "stroke", "#ffffff", "stroke-width", 1);
        }
    }

    private static String polygon(double... coordinates) {
        StringBuilder points = new StringBuilder();
        for (int i = 0; i < coordinates.length; i += 2) {
            points.append(i == 0 ? "" : " ").append(Svg.number(coordinates[i])).append(',')
                    .append(Svg.number(coordinates[i + 1]));
        }
        return points.toString();
    }

    private double px(double value) {
        return left + x.fraction(value) * WIDTH;
    }

    private double py(double value) {
        return top + (1 - y.fraction(value)) * HEIGHT;
    }

    /** About how wide {@code text} is in a sans-serif font of {@code size}: no font metrics without a renderer. */
    private static double textWidth(String text, double size) {
        return text.length() * charWidth(size);
    }

    private static double charWidth(double size) {
        return size * 0.6;
    }

    /** {@code text} in lines of at most {@code columns} characters, broken at spaces (a longer word gets a line of its own). */
    static List<String> wrap(String text, int columns) {
        List<String> lines = new ArrayList<>();
        StringBuilder line = new StringBuilder();
        for (String word : text.trim().split("\\s+")) {
            if (word.isEmpty()) {
                continue;
            }
            if (!line.isEmpty() && line.length() + 1 + word.length() > columns) {
                lines.add(line.toString());
                line.setLength(0);
            }
            line.append(line.isEmpty() ? "" : " ").append(word);
        }
        if (!line.isEmpty()) {
            lines.add(line.toString());
        }
        return lines;
    }
}
