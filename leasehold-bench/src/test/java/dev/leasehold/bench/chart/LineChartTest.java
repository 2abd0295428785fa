package dev.leasehold.bench.chart;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/**
 * A line chart is well-formed SVG on a white background, shows its title, note, axes and every
 * series, places known values where its scales say, and refuses input it cannot draw honestly.
 */
class LineChartTest {

    private static final Titles TITLES = new Titles("Uncontended acquire + release", "revision abc1234, load 1.5");
    private static final Axis THREADS = Axis.log("threads", "");
    private static final Axis OPS = Axis.linear("throughput", "ops/s");

    @Test
    void aChartIsWellFormedSvgWithItsTitleAxesAndEverySeries() throws Exception {
        ParsedSvg svg = ParsedSvg.parse(LineChart.svg(TITLES, THREADS, OPS, List.of(
                new Point("Leasehold", 1, 5_000), new Point("Leasehold", 16, 15_000),
                new Point("Redisson RLock", 1, 3_000), new Point("Redisson RLock", 16, 6_000))));

        assertThat(svg.root().getLocalName()).isEqualTo("svg");
        assertThat(svg.root().getNamespaceURI()).isEqualTo("http://www.w3.org/2000/svg");
        Element background = svg.elements("rect").get(0);
        assertThat(background.getAttribute("fill")).as("explicit white background, for dark themes").isEqualTo("#ffffff");
        assertThat(background.getAttribute("width")).isEqualTo(svg.root().getAttribute("width"));
        assertThat(svg.elements("title").get(0).getTextContent()).isEqualTo(TITLES.title());
        assertThat(svg.texts()).contains(TITLES.title(), "revision abc1234, load 1.5", "threads, log scale",
                "throughput (ops/s)", "Leasehold", "Redisson RLock", "1", "16", "0", "15k");
        assertThat(svg.classed("series")).extracting(series -> series.getAttribute("data-series"))
                .containsExactly("Leasehold", "Redisson RLock");
    }

    @Test
    void knownValuesLandWhereTheScalesPutThem() throws Exception {
        ParsedSvg svg = ParsedSvg.parse(LineChart.svg(TITLES, THREADS, Axis.linear("ops", ""), List.of(
                new Point("one", 16, 50), new Point("one", 1, 100), new Point("one", 4, 0))));
        Element yAxis = (Element) svg.classed("axes").get(0).getElementsByTagName("line").item(0);
        double top = ParsedSvg.number(yAxis, "y1");
        double bottom = ParsedSvg.number(yAxis, "y2");

        List<double[]> line = ParsedSvg.points(svg.elements("polyline").get(0));
        assertThat(line).hasSize(3);
        // Sorted by x; 1, 4 and 16 threads are evenly spaced on a log axis.
        assertThat(line.get(1)[0] - line.get(0)[0]).isPositive().isCloseTo(line.get(2)[0] - line.get(1)[0], within(0.02));
        // The y domain is [0, 100]: 100 at the top, 0 at the bottom, 50 half way.
        assertThat(line.get(0)[1]).isCloseTo(top, within(0.01));
        assertThat(line.get(1)[1]).isCloseTo(bottom, within(0.01));
        assertThat(line.get(2)[1]).isCloseTo((top + bottom) / 2, within(0.01));
    }

    @Test
    void everyCoordinateIsAFiniteNumber() throws Exception {
        String text = LineChart.svg(TITLES, Axis.log("waiters", ""), Axis.log("wake-ups per release", ""), List.of(
                new Point("Leasehold", 1, 1), new Point("Leasehold", 1_000, 1.02),
                new Point("Redisson RLock", 1, 1), new Point("Redisson RLock", 1_000, 1_000)));
        assertThat(text).doesNotContain("NaN", "Infinity");
        assertThat(ParsedSvg.parse(text).numbersInAttributes()).isNotEmpty()
                .allSatisfy(number -> assertThat(Double.parseDouble(number)).isFinite());
    }

    @Test
    void theHerdCallDrawsWakeUpsAgainstWaitersOnALogAxis() throws Exception {
        ParsedSvg svg = ParsedSvg.parse(LineChart.svg(new Titles("Wake-ups per release against waiters", ""),
                Axis.log("waiters", ""), Axis.linear("wake-ups per release", ""), List.of(
                        new Point("Leasehold", 1, 1), new Point("Leasehold", 10, 1), new Point("Leasehold", 100, 1),
                        new Point("Leasehold", 1_000, 1), new Point("Redisson RLock", 1, 1),
                        new Point("Redisson RLock", 10, 10), new Point("Redisson RLock", 100, 100),
                        new Point("Redisson RLock", 1_000, 1_000))));
        assertThat(svg.classed("x-ticks").get(0).getTextContent().split("\\s+")).containsSubsequence("1", "10", "100", "1,000");
        assertThat(svg.texts()).contains("waiters, log scale", "wake-ups per release", "Leasehold", "Redisson RLock");
        assertThat(svg.elements("text")).noneMatch(text -> text.getTextContent().isEmpty());
    }

    @Test
    void aPointsRangeIsABarFromItsLowToItsHighValue() throws Exception {
        ParsedSvg svg = ParsedSvg.parse(LineChart.svg(TITLES, THREADS, Axis.linear("ops", ""), List.of(
                new Point("one", 1, 50, 0, 100), new Point("one", 16, 60))));
        Element yAxis = (Element) svg.classed("axes").get(0).getElementsByTagName("line").item(0);
        List<Element> bars = svg.classed("range");
        assertThat(bars).as("one bar with its two caps, none for the point without a range").hasSize(3);
        assertThat(ParsedSvg.number(bars.get(0), "y1")).isCloseTo(ParsedSvg.number(yAxis, "y2"), within(0.01));
        assertThat(ParsedSvg.number(bars.get(0), "y2")).isCloseTo(ParsedSvg.number(yAxis, "y1"), within(0.01));
    }

    @Test
    void aSinglePointIsAMarkerOnASensibleChart() throws Exception {
        String text = LineChart.svg(TITLES, THREADS, OPS, List.of(new Point("Leasehold", 1, 4_200)));
        ParsedSvg svg = ParsedSvg.parse(text);
        assertThat(svg.elements("polyline")).isEmpty();
        assertThat(svg.classed("series").get(0).getElementsByTagName("circle").getLength()).isEqualTo(1);
        assertThat(svg.texts()).contains("1", "Leasehold");
        assertThat(text).doesNotContain("NaN", "Infinity");
    }

    @Test
    void labelsAreEscaped() throws Exception {
        ParsedSvg svg = ParsedSvg.parse(LineChart.svg(new Titles("a < b & \"c\"", "it's"), THREADS, OPS,
                List.of(new Point("<Leasehold & co>", 1, 1))));
        assertThat(svg.texts()).contains("a < b & \"c\"", "it's", "<Leasehold & co>");
    }

    @Test
    void nothingToDrawIsRefused() {
        assertThatThrownBy(() -> LineChart.svg(TITLES, THREADS, OPS, List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("chart 'Uncontended acquire + release' has no points to draw: pass at least one Point");
    }

    @Test
    void aLogAxisRefusesZeroNamingThePoint() {
        assertThatThrownBy(() -> LineChart.svg(TITLES, THREADS, Axis.log("wake-ups", ""),
                List.of(new Point("Leasehold", 10, 0))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("log axis 'wake-ups'").hasMessageContaining("series 'Leasehold' has 0.0 at x=10.0")
                .hasMessageContaining("use Axis.linear");
        assertThatThrownBy(() -> LineChart.svg(TITLES, THREADS, OPS, List.of(new Point("Leasehold", 0, 1))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("log axis 'threads'");
    }

    @Test
    void aPointMustBeFiniteAndInsideItsRange() {
        assertThatThrownBy(() -> new Point("Leasehold", 1, Double.NaN)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("point of series 'Leasehold' at x=1.0: y is NaN; every value of a chart must be a finite number");
        assertThatThrownBy(() -> new Point("Leasehold", Double.POSITIVE_INFINITY, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("x is Infinity");
        assertThatThrownBy(() -> new Point("Leasehold", 1, 5, 6, 7)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("low 6.0 <= y 5.0 <= high 7.0 does not hold");
        assertThatThrownBy(() -> new Point(" ", 1, 5)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("series name");
    }

    @Test
    void aLongNoteWrapsInsideTheChart() throws Exception {
        String note = "word ".repeat(80).trim();
        ParsedSvg svg = ParsedSvg.parse(LineChart.svg(new Titles("t", note), THREADS, OPS, List.of(new Point("a", 1, 1))));
        double width = ParsedSvg.number(svg.root(), "width");
        List<String> lines = svg.texts().stream().filter(text -> text.startsWith("word")).toList();
        assertThat(lines).hasSizeGreaterThan(1);
        assertThat(String.join(" ", lines)).isEqualTo(note);
        assertThat(lines).allSatisfy(line -> assertThat(line.length() * 12 * 0.6).isLessThanOrEqualTo(width - 32));
    }
}
