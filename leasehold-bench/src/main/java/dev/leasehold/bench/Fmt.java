package dev.leasehold.bench;

import java.util.Locale;
import java.util.function.DoubleFunction;

/** Number formats of the report. */
final class Fmt {

    private Fmt() {
    }

    /** Nanoseconds as milliseconds, e.g. {@code 0.182}. */
    static String ms(double nanos) {
        return String.format(Locale.ROOT, "%.3f", nanos / 1e6);
    }

    /** A count or rate with thousands separators, e.g. {@code 14,569}. */
    static String count(double value) {
        return String.format(Locale.ROOT, "%,.0f", value);
    }

    /** One decimal, e.g. {@code 4.2}. */
    static String one(double value) {
        return String.format(Locale.ROOT, "%.1f", value);
    }

    /** Two decimals, e.g. {@code 0.93}. */
    static String two(double value) {
        return String.format(Locale.ROOT, "%.2f", value);
    }

    /** A ratio, e.g. {@code 0.93×}. */
    static String ratio(double value) {
        return String.format(Locale.ROOT, "%.2f×", value);
    }

    /** The median with the lowest and highest round, e.g. {@code 5,467 [5,100–5,702]}. */
    static String spread(Spread spread, DoubleFunction<String> format) {
        return format.apply(spread.median()) + " [" + format.apply(spread.min()) + "–" + format.apply(spread.max()) + "]";
    }
}
