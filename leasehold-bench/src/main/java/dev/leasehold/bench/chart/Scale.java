package dev.leasehold.bench.chart;

import java.util.List;

/** Maps data values onto an axis and says where its ticks go. */
sealed interface Scale permits LinearScale, LogScale, NinesScale {

    /**
     * Where {@code value} lies along the axis: 0 at the low end of the domain, 1 at the high end.
     *
     * @throws IllegalArgumentException if the scale cannot place {@code value} (a non-positive
     *                                  value on a log scale, the 100th percentile)
     */
    double fraction(double value);

    /** The ticks, in rising order, each inside the domain. */
    List<Tick> ticks();

    /** A tick: where it goes and what it reads. */
    record Tick(double value, String label) {
    }
}
