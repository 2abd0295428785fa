package dev.leasehold.bench;

import dev.leasehold.bench.chart.Axis;
import dev.leasehold.bench.chart.LineChart;
import dev.leasehold.bench.chart.Point;
import dev.leasehold.bench.chart.Titles;

import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * The herd row's charts ({@link HerdBench}): what one release costs against the number of waiters,
 * one line per contender through the medians of its rounds. A flat line is a release whose cost
 * does not grow with the herd.
 */
final class HerdCharts {

    /** The chart names, in report order. */
    static final List<String> NAMES = List.of("commands", "wakeups", "handoff");

    private static final Axis WAITERS = Axis.log("waiters on one name, over 10 clients", "");

    private HerdCharts() {
    }

    /** The charts of {@code result}; {@code provenance} is the revision, date and load for each note. */
    static List<Chart> of(HerdBench.Result result, String provenance) {
        List<HerdBench.Point> points = HerdBench.points(result);
        String note = provenance + "; medians of " + result.settings().rounds() + " rounds";
        return List.of(
                chart(NAMES.get(0), "Client commands per release against waiters", note,
                        Axis.linear("client commands per grant", ""), points, HerdBench.Point::clientCommandsPerGrant),
                chart(NAMES.get(1), "Thread wake-ups for nothing per release against waiters", note
                                + "; waits of the waiter threads per grant beyond an uncontended lock + release's",
                        Axis.linear("extra thread wake-ups per grant", ""), points, HerdBench.Point::extraWaitsPerGrant),
                chart(NAMES.get(2), "Handoff latency (p50) against waiters", note
                                + "; from the holder's release call to the next grant",
                        Axis.log("handoff p50", "ms"), points, HerdBench.Point::handoffP50Millis));
    }

    private static Chart chart(String name, String title, String note, Axis y, List<HerdBench.Point> points,
                               ToDoubleFunction<HerdBench.Point> figure) {
        return new Chart(name, title, () -> LineChart.svg(new Titles(title, note), WAITERS, y,
                points.stream().map(point -> new Point(point.contender(), point.waiters(), figure.applyAsDouble(point)))
                        .toList()));
    }
}
