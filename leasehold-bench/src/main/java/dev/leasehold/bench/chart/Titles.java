package dev.leasehold.bench.chart;

/**
 * The text above a chart.
 *
 * @param title what the chart shows, e.g. "Uncontended acquire + release"
 * @param note  where the data came from (revision, date, machine load, rounds), drawn smaller
 *              under the title and wrapped; may be empty
 */
public record Titles(String title, String note) {

    /** @throws IllegalArgumentException if {@code title} is blank or {@code note} is null */
    public Titles {
        if (title == null || title.isBlank()) {
            throw new IllegalArgumentException("a chart needs a title");
        }
        if (note == null) {
            throw new IllegalArgumentException("a chart's note may be empty but not null (chart '" + title + "')");
        }
    }
}
