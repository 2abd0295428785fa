package dev.leasehold.bench.chart;

import java.util.List;

/**
 * One contender's latency distribution: values at percentiles.
 *
 * @param label     the contender
 * @param quantiles the values at rising percentiles, at least one
 */
public record Distribution(String label, List<Quantile> quantiles) {

    /** The value below which {@code percentile} % of the samples fall. */
    public record Quantile(double percentile, double value) {

        /**
         * @throws IllegalArgumentException if {@code percentile} is outside [0, 100) (100 is the
         *                                  maximum, which a percentile plot cannot place) or
         *                                  {@code value} is NaN or infinite
         */
        public Quantile {
            if (!(percentile >= 0 && percentile < 100)) {
                throw new IllegalArgumentException("percentile " + percentile + " is outside [0, 100)");
            }
            if (!Double.isFinite(value)) {
                throw new IllegalArgumentException("the value at percentile " + percentile + " is " + value
                        + "; it must be a finite number");
            }
        }
    }

    /** @throws IllegalArgumentException if the label is blank, or the quantiles are empty or not in rising percentile order */
    public Distribution {
        if (label == null || label.isBlank()) {
            throw new IllegalArgumentException("a distribution needs a label (the contender)");
        }
        if (quantiles == null || quantiles.isEmpty()) {
            throw new IllegalArgumentException("distribution '" + label + "' has no quantiles: it needs at least one sample");
        }
        quantiles = List.copyOf(quantiles);
        for (int i = 1; i < quantiles.size(); i++) {
            if (quantiles.get(i).percentile() < quantiles.get(i - 1).percentile()) {
                throw new IllegalArgumentException("distribution '" + label + "': percentiles must rise, but "
                        + quantiles.get(i).percentile() + " follows " + quantiles.get(i - 1).percentile());
            }
        }
    }

    /** The highest percentile given. */
    double topPercentile() {
        return quantiles.get(quantiles.size() - 1).percentile();
    }
}
