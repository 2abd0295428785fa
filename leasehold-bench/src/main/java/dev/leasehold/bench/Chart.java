package dev.leasehold.bench;

import java.util.function.Supplier;

/**
 * A chart a report shows: drawn when the report is written, so one that cannot be drawn costs
 * the report a picture, never its tables.
 *
 * @param name the file name's last part, e.g. "uncontended" (lower case, digits and hyphens)
 * @param alt  the image's alternative text in the report
 * @param svg  draws the chart as an SVG document
 */
record Chart(String name, String alt, Supplier<String> svg) {

    /** @throws IllegalArgumentException if {@code name} is not lower case letters, digits and hyphens */
    Chart {
        if (!name.matches("[a-z0-9]+(-[a-z0-9]+)*")) {
            throw new IllegalArgumentException("chart name '" + name + "' must be lower case letters, digits and hyphens");
        }
    }
}
