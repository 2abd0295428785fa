package dev.leasehold.bench.chart;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/**
 * A distribution chart spaces percentiles by their nines, puts latencies on its y scale, draws
 * every contender, and refuses what it cannot draw.
 */
class DistributionChartTest {

    private static final Titles TITLES = new Titles("Handoff latency", "revision abc1234");
    private static final Axis MS = Axis.log("latency", "ms");

    @Test
    void percentilesAreSpacedByTheirNinesAndLatenciesByTheYScale() throws Exception {
        Distribution known = new Distribution("Leasehold", List.of(new Distribution.Quantile(0, 1),
                new Distribution.Quantile(90, 2), new Distribution.Quantile(99, 5), new Distribution.Quantile(99.9, 10)));
        String text = DistributionChart.svg(TITLES, MS, List.of(known));
        ParsedSvg svg = ParsedSvg.parse(text);
        Element yAxis = (Element) svg.classed("axes").get(0).getElementsByTagName("line").item(0);
        Element xAxis = (Element) svg.classed("axes").get(0).getElementsByTagName("line").item(1);
        double left = ParsedSvg.number(xAxis, "x1");
        double right = ParsedSvg.number(xAxis, "x2");
        double top = ParsedSvg.number(yAxis, "y1");
        double bottom = ParsedSvg.number(yAxis, "y2");

        List<double[]> line = ParsedSvg.points(svg.elements("polyline").get(0));
        double[] expected = {left, left + (right - left) / 3, left + 2 * (right - left) / 3, right};
        for (int i = 0; i < expected.length; i++) {
            assertThat(line.get(i)[0]).as("x of quantile " + i).isCloseTo(expected[i], within(0.01));
        }
        // The y domain is [1, 10] on a log scale: 1 at the bottom, 10 at the top, 2 at log10(2) of the way.
        assertThat(line.get(0)[1]).isCloseTo(bottom, within(0.01));
        assertThat(line.get(3)[1]).isCloseTo(top, within(0.01));
        assertThat(line.get(1)[1]).isCloseTo(bottom - Math.log10(2) * (bottom - top), within(0.01));
        assertThat(svg.classed("x-ticks").get(0).getTextContent().split("\\s+"))
                .containsSubsequence("0%", "50%", "90%", "99%", "99.9%");
        assertThat(svg.texts()).contains("latency (ms), log scale", "percentile", "Leasehold");
        assertThat(text).doesNotContain("NaN", "Infinity");
    }

    @Test
    void everyContenderIsALineInTheLegend() throws Exception {
        ParsedSvg svg = ParsedSvg.parse(DistributionChart.svg(TITLES, Axis.linear("latency", "ms"), List.of(
                distribution("Leasehold", 0.5), distribution("Redisson RLock", 0.9), distribution("raw floor", 0.3))));
        assertThat(svg.classed("series")).extracting(series -> series.getAttribute("data-series"))
                .containsExactly("Leasehold", "Redisson RLock", "raw floor");
        assertThat(svg.elements("polyline")).hasSize(3);
        assertThat(svg.classed("marker")).as("dense lines carry no markers").isEmpty();
        assertThat(svg.classed("y-ticks").get(0).getTextContent()).contains("0");
    }

    @Test
    void aOneSampleDistributionIsAMarker() throws Exception {
        String text = DistributionChart.svg(TITLES, MS, List.of(new Distribution("Leasehold",
                List.of(new Distribution.Quantile(0, 0.8)))));
        ParsedSvg svg = ParsedSvg.parse(text);
        assertThat(svg.classed("marker")).hasSize(1);
        assertThat(text).doesNotContain("NaN", "Infinity");
    }

    @Test
    void nothingToDrawIsRefused() {
        assertThatThrownBy(() -> DistributionChart.svg(TITLES, MS, List.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no distributions to draw");
        assertThatThrownBy(() -> new Distribution("Leasehold", List.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("needs at least one sample");
    }

    @Test
    void whatAPercentilePlotCannotPlaceIsRefused() {
        assertThatThrownBy(() -> new Distribution.Quantile(100, 5)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("outside [0, 100)");
        assertThatThrownBy(() -> new Distribution.Quantile(50, Double.NaN)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("finite");
        assertThatThrownBy(() -> new Distribution("Leasehold", List.of(new Distribution.Quantile(90, 1),
                new Distribution.Quantile(50, 1)))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("percentiles must rise");
        assertThatThrownBy(() -> DistributionChart.svg(TITLES, MS, List.of(new Distribution("Leasehold",
                List.of(new Distribution.Quantile(0, 0), new Distribution.Quantile(50, 1))))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'Leasehold' has 0.0 at percentile 0.0");
    }

    private static Distribution distribution(String label, double median) {
        return new Distribution(label, List.of(new Distribution.Quantile(0, median / 2), new Distribution.Quantile(50, median),
                new Distribution.Quantile(99, median * 4)));
    }
}
