package dev.leasehold.bench.chart;

import java.util.ArrayList;
import java.util.List;

/**
 * Percentiles spaced by their nines: 0 %, 90 %, 99 % and 99.9 % are equally far apart, so a
 * distribution's tail gets as much room as its body (HdrHistogram's percentile plot). A percentile
 * {@code p} lies at {@code -log10(1 - p/100)} nines.
 */
final class NinesScale implements Scale {

    /** The ticks the scale can show, by nines: 0, 0.3, 1, 2, ... */
    private static final double[] TICKS = {0, 50, 90, 99, 99.9, 99.99, 99.999};

    private final double nines;
    private final List<Tick> ticks;

    /**
     * Percentiles from 0 up to {@code topPercentile}, but at least up to 90 %.
     *
     * @throws IllegalArgumentException if {@code topPercentile} is 100 or more (the maximum has
     *                                  infinitely many nines) or negative
     */
    NinesScale(double topPercentile) {
        this.nines = Math.max(1, nines(topPercentile));
        List<Tick> ticks = new ArrayList<>();
        for (double tick : TICKS) {
            if (nines(tick) <= nines + 1e-9) {
                ticks.add(new Tick(tick, TickLabels.percent(tick)));
            }
        }
        this.ticks = List.copyOf(ticks);
    }

    @Override
    public double fraction(double percentile) {
        return nines(percentile) / nines;
    }

    @Override
    public List<Tick> ticks() {
        return ticks;
    }

    private static double nines(double percentile) {
        if (!(percentile >= 0 && percentile < 100)) {
            throw new IllegalArgumentException("percentile " + percentile + " is outside [0, 100): a percentile plot "
                    + "cannot place the maximum");
        }
        return -Math.log10(1 - percentile / 100);
    }
}
