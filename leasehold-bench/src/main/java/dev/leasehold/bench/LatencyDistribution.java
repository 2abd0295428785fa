package dev.leasehold.bench;

import dev.leasehold.bench.chart.Distribution;
import org.HdrHistogram.Histogram;

import java.util.ArrayList;
import java.util.List;

/** A latency histogram as a chart's distribution, in milliseconds. */
final class LatencyDistribution {

    /** Points per distribution, evenly spaced in nines. */
    private static final int STEPS = 60;
    /** The highest percentile drawn is 99.99 %, however many samples. */
    private static final double MAX_NINES = 4;

    private LatencyDistribution() {
    }

    /**
     * {@code nanos}'s values from the 0th percentile up to the highest one its samples support:
     * with n samples, {@code 100 (1 - 1/n)} % (n = 1,000: 99.9 %), so the tail drawn rests on more
     * than the single largest sample; at most 99.99 %. One sample gives one point.
     *
     * @throws IllegalArgumentException if {@code nanos} holds no samples
     */
    static Distribution of(String label, Histogram nanos) {
        long samples = nanos.getTotalCount();
        if (samples == 0) {
            throw new IllegalArgumentException("no latency samples for " + label);
        }
        double nines = Math.min(MAX_NINES, Math.log10(samples));
        int steps = nines == 0 ? 0 : STEPS;
        List<Distribution.Quantile> quantiles = new ArrayList<>();
        for (int i = 0; i <= steps; i++) {
            double percentile = 100 * (1 - Math.pow(10, -nines * i / Math.max(1, steps)));
            quantiles.add(new Distribution.Quantile(percentile, nanos.getValueAtPercentile(percentile) / 1e6));
        }
        return new Distribution(label, quantiles);
    }
}
