package dev.leasehold.bench.chart;

/**
 * One measured point of a series, with the range it spread over (e.g. the lowest and highest
 * round), drawn as a bar when it is wider than the point.
 *
 * @param series the series (contender) the point belongs to; points of one series are joined
 * @param x      the x value, e.g. threads or waiters
 * @param y      the value shown, e.g. the median over rounds
 * @param low    the lowest value seen, at most {@code y}
 * @param high   the highest value seen, at least {@code y}
 */
public record Point(String series, double x, double y, double low, double high) {

    /**
     * @throws IllegalArgumentException if {@code series} is blank, a value is NaN or infinite, or
     *                                  {@code low <= y <= high} does not hold
     */
    public Point {
        if (series == null || series.isBlank()) {
            throw new IllegalArgumentException("a point needs a series name; got " + (series == null ? "null" : "a blank one"));
        }
        check(series, x, "x", x);
        check(series, x, "y", y);
        check(series, x, "low", low);
        check(series, x, "high", high);
        if (low > y || y > high) {
            throw new IllegalArgumentException("point of series '" + series + "' at x=" + x + ": low " + low + " <= y " + y
                    + " <= high " + high + " does not hold; pass the range the value spread over, or use Point(series, x, y)");
        }
    }

    /** A point without a range. */
    public Point(String series, double x, double y) {
        this(series, x, y, y, y);
    }

    /** Whether the point has a range wider than itself, to be drawn as a bar. */
    boolean ranged() {
        return low < high;
    }

    private static void check(String series, double x, String name, double value) {
        if (!Double.isFinite(value)) {
            throw new IllegalArgumentException("point of series '" + series + "' at x=" + x + ": " + name + " is " + value
                    + "; every value of a chart must be a finite number");
        }
    }
}
