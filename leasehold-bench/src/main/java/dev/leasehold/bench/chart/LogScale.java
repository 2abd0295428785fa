package dev.leasehold.bench.chart;

import java.util.ArrayList;
import java.util.List;
import java.util.SortedSet;

/**
 * A base-10 logarithmic scale over a positive domain {@code [low, high]}, {@code low < high}.
 *
 * @param ticks the ticks, rising, inside the domain
 */
record LogScale(double low, double high, List<Tick> ticks) implements Scale {

    /** The steps within a decade that ticks use when the domain spans two decades or less. */
    private static final double[] STEPS = {1, 2, 5};

    LogScale {
        ticks = List.copyOf(ticks);
    }

    /**
     * A domain from the 1-2-5 step at or below {@code min} to the one at or above {@code max}
     * (one value alone gets the steps either side of it), ticked at every such step when it spans
     * two decades or less, else at the powers of ten inside it.
     *
     * @throws IllegalArgumentException if {@code min} is not positive
     */
    static LogScale nice(double min, double max) {
        positive(min);
        int lowIndex = floorIndex(min);
        int highIndex = ceilIndex(max);
        if (lowIndex == highIndex) {
            lowIndex--;
            highIndex++;
        }
        boolean decadesOnly = highIndex - lowIndex > 2 * STEPS.length;
        List<Tick> ticks = new ArrayList<>();
        for (int i = lowIndex; i <= highIndex; i++) {
            if (!decadesOnly || Math.floorMod(i, STEPS.length) == 0) {
                ticks.add(new Tick(value(i), TickLabels.number(value(i))));
            }
        }
        return new LogScale(value(lowIndex), value(highIndex), ticks);
    }

    /**
     * Ticks at exactly {@code values} (thread counts, waiters), the domain padded so no point
     * sits on the frame; one value gets a factor of two either side.
     *
     * @throws IllegalArgumentException if a value is not positive
     */
    static LogScale atValues(SortedSet<Double> values) {
        double min = values.first();
        double max = values.last();
        positive(min);
        double pad = min == max ? 2 : Math.pow(max / min, 0.06);
        List<Tick> ticks = values.stream().map(value -> new Tick(value, TickLabels.number(value))).toList();
        return new LogScale(min / pad, max * pad, ticks);
    }

    @Override
    public double fraction(double value) {
        positive(value);
        return (Math.log10(value) - Math.log10(low)) / (Math.log10(high) - Math.log10(low));
    }

    /** The {@code index}-th 1-2-5 step: index 0 is 1, 1 is 2, 2 is 5, 3 is 10, -1 is 0.5. */
    private static double value(int index) {
        int decade = Math.floorDiv(index, STEPS.length);
        double multiple = STEPS[Math.floorMod(index, STEPS.length)];
        // Dividing by a power of ten, rather than multiplying by its inverse, keeps 0.2 exactly 0.2.
        return decade >= 0 ? multiple * Math.pow(10, decade) : multiple / Math.pow(10, -decade);
    }

    private static int floorIndex(double value) {
        int index = (int) Math.floor(Math.log10(value)) * STEPS.length + STEPS.length;
        while (value(index) > value * (1 + 1e-9)) {
            index--;
        }
        return index;
    }

    private static int ceilIndex(double value) {
        int index = (int) Math.floor(Math.log10(value)) * STEPS.length - STEPS.length;
        while (value(index) < value * (1 - 1e-9)) {
            index++;
        }
        return index;
    }

    private static void positive(double value) {
        if (!(value > 0)) {
            throw new IllegalArgumentException("a log scale needs positive values, got " + value
                    + "; use a linear axis for values at or below zero");
        }
    }
}
