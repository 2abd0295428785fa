package dev.leasehold.bench;

import dev.leasehold.bench.chart.Axis;
import dev.leasehold.bench.chart.Distribution;
import dev.leasehold.bench.chart.DistributionChart;
import dev.leasehold.bench.chart.LineChart;
import dev.leasehold.bench.chart.Point;
import dev.leasehold.bench.chart.Titles;

import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The charts of the main run's report ({@code RESULTS.md}): uncontended throughput against
 * threads for the mutexes and for the read lock and semaphore, and the handoff latency
 * distribution of each pairing. A workload that has not finished (a partial report) has none.
 */
final class ResultsCharts {

    static final String UNCONTENDED = "uncontended";
    static final String FAMILY = "family";

    /** Keeps a figure and its unit on one line of a wrapped note. */
    private static final String NO_BREAK = "\u00a0";

    static final Axis THREADS = Axis.log("threads", "");
    static final Axis THROUGHPUT = Axis.linear("throughput", "acquire + release per second");
    static final Axis HANDOFF = Axis.log("release call to the waiter's grant", "ms");

    private ResultsCharts() {
    }

    /** Every chart {@code results} has the data for, in report order. */
    static List<Chart> of(BenchResults results) {
        String provenance = provenance(results);
        List<Chart> charts = new ArrayList<>();
        if (results.uncontended() != null) {
            charts.add(throughput(UNCONTENDED, "Uncontended acquire + release, one redis-server", provenance,
                    results.settings().uncontended(), results.uncontended()));
        }
        if (results.family() != null) {
            charts.add(throughput(FAMILY, "Read lock and semaphore, uncontended", provenance,
                    results.settings().family(), results.family()));
        }
        if (results.handoff() != null) {
            HandoffWorkload.Settings settings = results.settings().handoff();
            results.handoff().cells().forEach((pairing, cells) -> charts.add(new Chart(handoff(pairing),
                    "Handoff latency distribution, " + pairing.label, () -> DistributionChart.svg(
                    new Titles("Handoff latency, " + pairing.label, provenance + "; from the holder's release call to "
                            + "the blocked waiter's return, " + settings.rounds() * settings.handoffsPerRound()
                            + " handoffs per contender (" + settings.rounds() + " rounds pooled); in brackets, the "
                            + "Redis commands a handoff sent (a spinning waiter is fast, and costly)"),
                    HANDOFF, distributions(cells, results.handoff().probes().get(pairing))))));
        }
        return charts;
    }

    /** The chart name of a handoff pairing, e.g. "handoff-separate-clients". */
    static String handoff(HandoffWorkload.Pairing pairing) {
        return "handoff-" + pairing.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** Revision, date and load: what a reader needs to know which figures a picture shows. */
    static String provenance(BenchResults results) {
        Machine machine = results.machine();
        BenchResults.Conditions conditions = results.conditions();
        String date = ZonedDateTime.parse(machine.date()).withZoneSameInstant(ZoneOffset.UTC).format(PeerCharts.MINUTE);
        return "Leasehold " + machine.revision() + ", " + date + ", " + machine.cpus() + " CPUs, 1-minute load "
                + Fmt.two(conditions.loadBefore()) + " before and " + Fmt.two(conditions.loadAfter())
                + " after (the run adds about 2), other processes " + Fmt.one(conditions.otherCpuPercent())
                + NO_BREAK + "% of the CPU";
    }

    /** Each contender's throughput against threads, medians with the lowest and highest round. */
    private static Chart throughput(String name, String title, String provenance, UncontendedWorkload.Settings settings,
                                    UncontendedWorkload.Result result) {
        return new Chart(name, title + ", against threads", () -> LineChart.svg(new Titles(title, provenance
                        + "; JMH, each thread its own lock name; medians of " + settings.rounds()
                        + " rounds, bars from the lowest to the highest round"), THREADS, THROUGHPUT, points(result)));
    }

    private static List<Point> points(UncontendedWorkload.Result result) {
        List<Point> points = new ArrayList<>();
        result.cells().forEach((contender, byThreads) -> byThreads.forEach((threads, cell) -> {
            Spread spread = cell.throughput();
            points.add(new Point(contender.label(), threads, spread.median(), spread.min(), spread.max()));
        }));
        return points;
    }

    /** Each contender's distribution, labelled with the commands one of its handoffs sent when it was probed. */
    private static List<Distribution> distributions(Map<Contender, HandoffWorkload.Cell> cells,
                                                    Map<Contender, CommandProbe.Counted> probes) {
        List<Distribution> distributions = new ArrayList<>();
        cells.forEach((contender, cell) -> {
            CommandProbe.Counted probe = probes == null ? null : probes.get(contender);
            String label = probe == null ? contender.label()
                    : contender.label() + " (" + Fmt.one(probe.perOperation()) + " commands)";
            distributions.add(LatencyDistribution.of(label, cell.latencyNanos()));
        });
        return distributions;
    }
}
