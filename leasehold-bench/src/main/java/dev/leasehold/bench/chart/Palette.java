package dev.leasehold.bench.chart;

/**
 * How the n-th series looks: the Okabe-Ito colours (told apart with the common colour-vision
 * deficiencies, and dark enough on white), with a marker shape and a dash pattern of its own,
 * so series stay apart in grey print too.
 */
final class Palette {

    private static final String[] COLOURS = {"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9",
            "#000000", "#8C6D31"};
    private static final String[] DASHES = {"none", "7 4", "2 3", "9 3 2 3", "4 2", "12 4", "1 2", "6 2 1 2"};

    /** The marker shapes, in series order. */
    enum Marker { CIRCLE, SQUARE, TRIANGLE, DIAMOND }

    private Palette() {
    }

    static String colour(int series) {
        return COLOURS[series % COLOURS.length];
    }

    /** The {@code stroke-dasharray} of the series' line. */
    static String dash(int series) {
        return DASHES[series % DASHES.length];
    }

    static Marker marker(int series) {
        return Marker.values()[series % Marker.values().length];
    }
}
