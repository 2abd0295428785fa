package dev.leasehold.bench;

import java.util.Arrays;
import java.util.List;

/**
 * A figure measured over several rounds: the median and the lowest and highest round. With 2
 * cores shared by Redis, the clients and the load, rounds drift by 10 to 25 %, so the spread is
 * shown next to every median.
 */
record Spread(double median, double min, double max) {

    static Spread of(List<Double> values) {
        if (values.isEmpty()) {
            throw new IllegalArgumentException("no values");
        }
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        int n = sorted.length;
        double median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
        return new Spread(median, sorted[0], sorted[n - 1]);
    }

    /** The spread of {@code this / other}, paired round by round (both lists in round order). */
    static Spread ratios(List<Double> numerators, List<Double> denominators) {
        if (numerators.size() != denominators.size()) {
            throw new IllegalArgumentException("rounds differ: " + numerators.size() + " vs " + denominators.size());
        }
        Double[] ratios = new Double[numerators.size()];
        for (int i = 0; i < ratios.length; i++) {
            ratios[i] = numerators.get(i) / denominators.get(i);
        }
        return of(Arrays.asList(ratios));
    }
}
