package dev.leasehold.bench.chart;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.List;
import java.util.Locale;

/** How tick values read: short, without float noise (0.2, not 0.20000000000000004). */
final class TickLabels {

    private TickLabels() {
    }

    /**
     * {@code value} to at most 6 significant digits, trailing zeros dropped, thousands separated
     * from 1,000 up; whole millions from 1,000,000 up read "1M", whole thousands from 10,000 up "10k".
     */
    static String number(double value) {
        double abs = Math.abs(value);
        if (abs >= 1_000_000 && value % 1_000_000 == 0) {
            return String.format(Locale.ROOT, "%,.0fM", value / 1_000_000);
        }
        if (abs >= 10_000 && value % 1_000 == 0) {
            return String.format(Locale.ROOT, "%,.0fk", value / 1_000);
        }
        if (abs >= 1_000) {
            return String.format(Locale.ROOT, "%,.0f", value);
        }
        return plain(value);
    }

    /** To at most 6 significant digits, trailing zeros dropped. */
    private static String plain(double value) {
        if (value == 0) {
            return "0";
        }
        return new BigDecimal(value).round(new MathContext(6)).stripTrailingZeros().toPlainString();
    }

    /**
     * Ticks at {@code values} of a linear axis, all in one unit so they read as a sequence: in
     * millions ("2.5M") when the largest is a million or more, in thousands ("2.5k", "12.5k")
     * from 10,000, else as {@link #number} writes them.
     */
    static List<Scale.Tick> linear(List<Double> values) {
        double largest = values.stream().mapToDouble(Math::abs).max().orElse(0);
        double unit = largest >= 1_000_000 ? 1_000_000 : largest >= 10_000 ? 1_000 : 1;
        String suffix = unit == 1_000_000 ? "M" : unit == 1_000 ? "k" : "";
        return values.stream().map(value -> new Scale.Tick(value, unit == 1 || value == 0 ? number(value)
                : plain(value / unit) + suffix)).toList();
    }

    /** A percentile, e.g. "99.9%". */
    static String percent(double percentile) {
        return number(percentile) + "%";
    }
}
