package dev.leasehold.bench;

import dev.leasehold.bench.chart.Axis;
import dev.leasehold.bench.chart.LineChart;
import dev.leasehold.bench.chart.ParsedSvg;
import dev.leasehold.bench.chart.Point;
import dev.leasehold.bench.chart.Titles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A report's charts land in {@code charts/} beside it, named after the report, and the report links
 * them relative to itself; a chart that cannot be drawn costs only its picture, and leaves no stale
 * one behind.
 */
class ReportChartsTest {

    private static final Chart GOOD = new Chart("uncontended", "Throughput against threads", () -> LineChart.svg(
            new Titles("Throughput", "test"), Axis.log("threads", ""), Axis.linear("ops", ""),
            List.of(new Point("Leasehold", 1, 10), new Point("Leasehold", 16, 100))));

    @Test
    void chartsGoBesideTheReportAndAreLinkedRelativeToIt(@TempDir Path dir) throws Exception {
        Path report = dir.resolve("RESULTS.md");
        Map<String, String> images = ReportCharts.write(report, List.of(GOOD));

        Path file = dir.resolve("charts").resolve("results-uncontended.svg");
        assertThat(file).exists();
        assertThat(ParsedSvg.parse(Files.readString(file)).texts()).contains("Throughput", "Leasehold");
        assertThat(images).containsExactly(Map.entry("uncontended",
                "![Throughput against threads](charts/results-uncontended.svg)"));
        assertThat(ReportCharts.images(images, List.of("uncontended")))
                .isEqualTo("\n![Throughput against threads](charts/results-uncontended.svg)\n\n");
        assertThat(ReportCharts.images(images, List.of("handoff"))).isEmpty();
        assertThat(dir.resolve("charts")).isDirectoryNotContaining("glob:**.tmp");
    }

    @Test
    void aChartThatCannotBeDrawnIsNamedInsteadAndItsOldFileGoes(@TempDir Path dir) throws Exception {
        Path report = dir.resolve("CONSENSUS.md");
        Chart failing = new Chart("zookeeper-handoff", "Handoff", () -> {
            throw new IllegalArgumentException("no latency samples for Leasehold");
        });
        Files.createDirectories(dir.resolve("charts"));
        Files.writeString(dir.resolve("charts").resolve("consensus-zookeeper-handoff.svg"), "<svg/>");

        Map<String, String> images = ReportCharts.write(report, List.of(failing, GOOD));

        assertThat(images).containsEntry("zookeeper-handoff",
                "*Chart zookeeper-handoff not drawn: no latency samples for Leasehold*");
        assertThat(dir.resolve("charts").resolve("consensus-zookeeper-handoff.svg")).doesNotExist();
        assertThat(dir.resolve("charts").resolve("consensus-uncontended.svg")).exists();
    }

    @Test
    void aChartNameMustBeFitForAFileName() {
        assertThatThrownBy(() -> new Chart("Handoff latency", "alt", () -> ""))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lower case letters, digits and hyphens");
    }
}
