package dev.leasehold.bench;

import dev.leasehold.bench.PeerBench.Cell;
import dev.leasehold.bench.PeerBench.Table;
import dev.leasehold.bench.PeerBench.Workload;
import dev.leasehold.bench.chart.Axis;
import dev.leasehold.bench.chart.Distribution;
import dev.leasehold.bench.chart.DistributionChart;
import dev.leasehold.bench.chart.LineChart;
import dev.leasehold.bench.chart.Point;
import dev.leasehold.bench.chart.Titles;

import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The charts of a {@link PeerBench} table ({@link ConsensusBench}, {@link DeploymentBench}): each
 * peer's uncontended throughput against threads, and each peer's handoff latency distribution.
 */
final class PeerCharts {

    /** The uncontended rows and their thread counts. */
    private static final Map<Workload, Integer> THREADS = Map.of(Workload.UNCONTENDED_1, 1, Workload.UNCONTENDED_16, 16);
    private static final Axis THROUGHPUT = Axis.linear("throughput", "lock + release per second");
    /** How a chart's note gives the time, to the minute, in UTC. */
    static final DateTimeFormatter MINUTE = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'");

    private PeerCharts() {
    }

    /** The charts of every table, in table order. */
    static List<Chart> of(List<Table> tables, PeerBench.Settings settings, String provenance) {
        List<Chart> charts = new ArrayList<>();
        tables.forEach(table -> charts.addAll(of(table, settings, provenance)));
        return charts;
    }

    /** The names of {@code table}'s charts, as {@link #of} gives them. */
    static List<String> names(Table table) {
        return List.of(table.slug() + "-throughput", table.slug() + "-handoff");
    }

    /**
     * Revision, date (UTC) and load now, for a chart's note: taken when the run has ended, as the
     * report's own load figure.
     */
    static String provenance() {
        return "Leasehold " + Machine.gitRevision() + ", "
                + ZonedDateTime.now(ZoneOffset.UTC).format(MINUTE) + ", "
                + MachineLoad.now() + " at the end";
    }

    private static List<Chart> of(Table table, PeerBench.Settings settings, String provenance) {
        List<String> names = names(table);
        return List.of(
                new Chart(names.get(0), table.store() + ": uncontended lock + release against threads", () -> LineChart.svg(
                        new Titles(table.store() + " — uncontended lock + release", provenance + "; one client, each thread "
                                + "its own name; medians of " + settings.rounds() + " rounds, bars from the lowest to the "
                                + "highest round"),
                        ResultsCharts.THREADS, THROUGHPUT, throughput(table))),
                new Chart(names.get(1), table.store() + ": handoff latency distribution", () -> DistributionChart.svg(
                        new Titles(table.store() + " — handoff latency", provenance + "; two clients, from the holder's "
                                + "release call to the waiter's grant, " + settings.rounds() * settings.handoffs()
                                + " handoffs per peer (" + settings.rounds() + " rounds pooled)"),
                        ResultsCharts.HANDOFF, handoffs(table))));
    }

    private static List<Point> throughput(Table table) {
        List<Point> points = new ArrayList<>();
        for (String peer : table.peers()) {
            THREADS.entrySet().stream().sorted(Map.Entry.comparingByValue()).forEach(entry -> {
                List<Cell> rounds = table.rounds().get(entry.getKey()).get(peer);
                double[] ops = rounds.stream().mapToDouble(Cell::opsPerSecond).toArray();
                points.add(new Point(peer, entry.getValue(), table.cells().get(entry.getKey()).get(peer).opsPerSecond(),
                        Arrays.stream(ops).min().orElseThrow(), Arrays.stream(ops).max().orElseThrow()));
            });
        }
        return points;
    }

    private static List<Distribution> handoffs(Table table) {
        return table.peers().stream()
                .map(peer -> LatencyDistribution.of(peer, table.cells().get(Workload.HANDOFF).get(peer).latencyNanos()))
                .toList();
    }
}
