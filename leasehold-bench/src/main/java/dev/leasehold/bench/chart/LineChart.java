package dev.leasehold.bench.chart;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Series of points over x, one line per series: throughput against threads, wake-ups against
 * waiters. One call draws a chart:
 *
 * <pre>{@code
 * String svg = LineChart.svg(new Titles("Wake-ups per release against waiters", "revision abc1234, load 1.2"),
 *         Axis.log("waiters", ""), Axis.linear("wake-ups per release", ""),
 *         List.of(new Point("Leasehold", 1, 1.0), new Point("Leasehold", 10, 1.0),
 *                 new Point("Redisson RLock", 1, 1.0), new Point("Redisson RLock", 10, 10.0)));
 * }</pre>
 */
public final class LineChart {

    /** Up to this many distinct x values get a tick each (thread counts); more get round ticks. */
    static final int MAX_TICKED_VALUES = 10;

    private LineChart() {
    }

    /**
     * Draws {@code points} as one line per series, the series in the order they first appear, each
     * series' points in rising x. An x axis with at most {@value #MAX_TICKED_VALUES} distinct values
     * is ticked at exactly those values; a linear y axis starts at zero. A point with a range gets a
     * bar from its low to its high value; a series of one point is a marker.
     *
     * @return a standalone SVG document with a white background
     * @throws IllegalArgumentException if {@code points} is empty, or a log axis gets a value at or
     *                                  below zero (the message names the series and the point)
     */
    public static String svg(Titles titles, Axis x, Axis y, List<Point> points) {
        if (points == null || points.isEmpty()) {
            throw new IllegalArgumentException("chart '" + titles.title() + "' has no points to draw: pass at least one Point");
        }
        Map<String, List<Point>> bySeries = new LinkedHashMap<>();
        for (Point point : points) {
            bySeries.computeIfAbsent(point.series(), s -> new ArrayList<>()).add(point);
        }
        List<Plot.Series> series = new ArrayList<>();
        bySeries.forEach((label, list) -> series.add(new Plot.Series(label,
                list.stream().sorted(Comparator.comparingDouble(Point::x)).toList())));
        if (x.log()) {
            points.forEach(point -> positive(titles, x, point, point.x()));
        }
        if (y.log()) {
            points.forEach(point -> positive(titles, y, point, point.low()));
        }
        return Plot.draw(titles, x, xScale(x, points), y, yScale(y, points), series, Plot.Style.MARKED);
    }

    private static Scale xScale(Axis axis, List<Point> points) {
        SortedSet<Double> values = new TreeSet<>();
        points.forEach(point -> values.add(point.x()));
        if (values.size() <= MAX_TICKED_VALUES) {
            return axis.log() ? LogScale.atValues(values) : LinearScale.atValues(values);
        }
        return axis.log() ? LogScale.nice(values.first(), values.last()) : LinearScale.nice(values.first(), values.last());
    }

    private static Scale yScale(Axis axis, List<Point> points) {
        double min = points.stream().mapToDouble(Point::low).min().orElseThrow();
        double max = points.stream().mapToDouble(Point::high).max().orElseThrow();
        return axis.log() ? LogScale.nice(min, max) : LinearScale.nice(min, max);
    }

    private static void positive(Titles titles, Axis axis, Point point, double value) {
        if (!(value > 0)) {
            throw new IllegalArgumentException("chart '" + titles.title() + "': the log axis '" + axis.label()
                    + "' needs positive values, but series '" + point.series() + "' has " + value + " at x=" + point.x()
                    + "; use Axis.linear for values at or below zero");
        }
    }
}
