package dev.leasehold.bench.chart;

import java.util.ArrayList;
import java.util.List;
import java.util.SortedSet;

/**
 * A linear scale over a domain {@code [low, high]}, {@code low < high}.
 *
 * @param ticks the ticks, rising, inside the domain
 */
record LinearScale(double low, double high, List<Tick> ticks) implements Scale {

    /** About this many intervals between ticks on a "nice" axis. */
    private static final int INTERVALS = 5;

    LinearScale {
        ticks = List.copyOf(ticks);
    }

    /**
     * A domain holding {@code min} to {@code max} and zero, widened to round tick steps (1, 2, 2.5
     * or 5 times a power of ten), with a tick at every step. All values equal and zero give [0, 1].
     */
    static LinearScale nice(double min, double max) {
        double low = Math.min(0, min);
        double high = Math.max(0, max);
        if (low == high) {
            high = 1;
        }
        double step = step((high - low) / INTERVALS);
        long first = (long) Math.floor(low / step + 1e-9);
        long last = (long) Math.ceil(high / step - 1e-9);
        List<Double> values = new ArrayList<>();
        for (long i = first; i <= last; i++) {
            values.add(i * step);
        }
        return new LinearScale(first * step, last * step, TickLabels.linear(values));
    }

    /**
     * Ticks at exactly {@code values} (few distinct x values, such as thread counts), the domain
     * padded so no point sits on the frame; one value gets a domain of its size either side.
     */
    static LinearScale atValues(SortedSet<Double> values) {
        double min = values.first();
        double max = values.last();
        double pad = min == max ? Math.max(Math.abs(min), 1) : (max - min) * 0.06;
        return new LinearScale(min - pad, max + pad, TickLabels.linear(List.copyOf(values)));
    }

    /** The smallest of 1, 2, 2.5, 5 times a power of ten that is at least {@code raw}. */
    static double step(double raw) {
        double power = Math.pow(10, Math.floor(Math.log10(raw)));
        for (double multiple : new double[] {1, 2, 2.5, 5, 10}) {
            if (multiple * power >= raw * (1 - 1e-9)) {
                return multiple * power;
            }
        }
        throw new AssertionError("10 times the power of ten below " + raw + " is above it");
    }

    @Override
    public double fraction(double value) {
        return (value - low) / (high - low);
    }
}
