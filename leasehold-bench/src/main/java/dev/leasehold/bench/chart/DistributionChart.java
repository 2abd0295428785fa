package dev.leasehold.bench.chart;

import java.util.ArrayList;
import java.util.List;

/**
 * Latency distributions, one line per contender: the latency (y) at each percentile (x), the
 * percentiles spaced by their nines so 90 %, 99 % and 99.9 % get equal room (the tail is where
 * locks differ). Lower is better everywhere; a line that rises late has a short tail.
 */
public final class DistributionChart {

    private static final Axis PERCENTILE = Axis.linear("percentile", "");

    private DistributionChart() {
    }

    /**
     * Draws {@code distributions} in the order given. The x axis runs from 0 % to the highest
     * percentile any distribution reaches (at least 90 %); the y axis is {@code latency}'s,
     * from zero when linear.
     *
     * @return a standalone SVG document with a white background
     * @throws IllegalArgumentException if {@code distributions} is empty, or {@code latency} is
     *                                  logarithmic and a value is at or below zero
     */
    public static String svg(Titles titles, Axis latency, List<Distribution> distributions) {
        if (distributions == null || distributions.isEmpty()) {
            throw new IllegalArgumentException("chart '" + titles.title() + "' has no distributions to draw: pass at least one");
        }
        List<Plot.Series> series = new ArrayList<>();
        double top = 0;
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        for (Distribution distribution : distributions) {
            List<Point> points = new ArrayList<>();
            for (Distribution.Quantile quantile : distribution.quantiles()) {
                if (latency.log() && !(quantile.value() > 0)) {
                    throw new IllegalArgumentException("chart '" + titles.title() + "': the log axis '" + latency.label()
                            + "' needs positive values, but '" + distribution.label() + "' has " + quantile.value()
                            + " at percentile " + quantile.percentile() + "; use Axis.linear");
                }
                points.add(new Point(distribution.label(), quantile.percentile(), quantile.value()));
                min = Math.min(min, quantile.value());
                max = Math.max(max, quantile.value());
            }
            top = Math.max(top, distribution.topPercentile());
            series.add(new Plot.Series(distribution.label(), points));
        }
        Scale y = latency.log() ? LogScale.nice(min, max) : LinearScale.nice(min, max);
        return Plot.draw(titles, PERCENTILE, new NinesScale(top), latency, y, series, Plot.Style.LINES);
    }
}
