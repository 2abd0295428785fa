package dev.leasehold.bench.chart;

/**
 * What one axis shows and how it is scaled.
 *
 * @param label what the axis measures, e.g. "threads"
 * @param unit  its unit, e.g. "ms", or empty for counts
 * @param log   whether the axis is logarithmic (then every value on it must be positive)
 */
public record Axis(String label, String unit, boolean log) {

    /** @throws IllegalArgumentException if {@code label} is blank or {@code unit} is null */
    public Axis {
        if (label == null || label.isBlank()) {
            throw new IllegalArgumentException("an axis needs a label, e.g. \"threads\"");
        }
        if (unit == null) {
            throw new IllegalArgumentException("an axis unit may be empty but not null (axis '" + label + "')");
        }
    }

    /** A linear axis; a linear y axis always shows zero, so heights compare honestly. */
    public static Axis linear(String label, String unit) {
        return new Axis(label, unit, false);
    }

    /** A base-10 logarithmic axis, for values spanning decades (waiters 1 to 1,000, latencies). */
    public static Axis log(String label, String unit) {
        return new Axis(label, unit, true);
    }

    /** The axis title as drawn: the label, with the unit in parentheses when there is one. */
    String title() {
        return unit.isEmpty() ? label : label + " (" + unit + ")";
    }
}
