package dev.leasehold.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * Writes a report's charts beside it, as {@code charts/<report>-<chart>.svg} (the report's file
 * name in lower case without {@code .md}: {@code RESULTS.md} gets {@code charts/results-uncontended.svg}),
 * and gives the Markdown that shows each one, linked relative to the report.
 */
final class ReportCharts {

    /** The directory beside the report that holds its charts. */
    static final String DIRECTORY = "charts";

    private ReportCharts() {
    }

    /**
     * Draws and writes every chart, each replacing its file in one atomic rename. A chart whose
     * drawing throws gets, instead of an image, a line saying it was not drawn and why, and its
     * old file (from an earlier, partial report) is deleted, so no picture outlives its data.
     *
     * @return chart name to the Markdown that shows it, in the order given
     * @throws IOException if a file cannot be written
     */
    static Map<String, String> write(Path report, List<Chart> charts) throws IOException {
        Map<String, String> markdown = new LinkedHashMap<>();
        for (Chart chart : charts) {
            Path file = file(report, chart.name());
            String svg;
            try {
                svg = chart.svg().get();
            } catch (RuntimeException e) {
                Files.deleteIfExists(file);
                markdown.put(chart.name(), "*Chart " + chart.name() + " not drawn: " + e.getMessage() + "*");
                continue;
            }
            Files.createDirectories(file.getParent());
            Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
            Files.writeString(temporary, svg);
            Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            markdown.put(chart.name(), "![" + chart.alt() + "](" + DIRECTORY + "/" + file.getFileName() + ")");
        }
        return markdown;
    }

    /** Where chart {@code name} of {@code report} goes. */
    static Path file(Path report, String name) {
        Path absolute = report.toAbsolutePath();
        String stem = absolute.getFileName().toString().replaceFirst("(?i)\\.md$", "").toLowerCase(Locale.ROOT);
        return absolute.resolveSibling(DIRECTORY).resolve(stem + "-" + name + ".svg");
    }

    /**
     * The Markdown of the charts {@code names} that {@code images} holds, as paragraphs set apart
     * by blank lines from what comes before and after, or nothing when it holds none of them (a
     * report rendered without charts).
     */
    static String images(Map<String, String> images, List<String> names) {
        String shown = names.stream().map(images::get).filter(Objects::nonNull).collect(Collectors.joining("\n\n"));
        return shown.isEmpty() ? "" : "\n" + shown + "\n\n";
    }
}
