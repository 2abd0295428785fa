package dev.leasehold.bench;

import dev.leasehold.bench.HandoffWorkload.Pairing;
import dev.leasehold.bench.chart.ParsedSvg;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The main run's charts follow its finished workloads: a partial run with only the handoff done
 * draws one distribution per pairing and nothing else, and labels each contender with the Redis
 * commands one of its handoffs sent, so a spinning waiter's speed shows with its price.
 */
class ResultsChartsTest {

    @Test
    void aRunWithOnlyTheHandoffDrawsOneDistributionPerPairingLabelledWithItsCommands() throws Exception {
        ResultsSoFar run = new ResultsSoFar(BenchSettings.smoke(), Machine.describe("7.0.15"), List.of(), 1.5,
                System.nanoTime());
        Map<Pairing, Map<Contender, HandoffWorkload.Cell>> cells = new EnumMap<>(Pairing.class);
        Map<Pairing, Map<Contender, CommandProbe.Counted>> probes = new EnumMap<>(Pairing.class);
        Map<Pairing, Map<Contender, CellFailure>> failures = new EnumMap<>(Pairing.class);
        for (Pairing pairing : Pairing.values()) {
            cells.put(pairing, Map.of(Contender.LEASEHOLD, cell(900_000), Contender.RAW_FLOOR, cell(250_000)));
            probes.put(pairing, Map.of(Contender.LEASEHOLD, counted(310, 100), Contender.RAW_FLOOR, counted(8_570, 100)));
            failures.put(pairing, Map.of());
        }
        run.handoff = new HandoffWorkload.Result(cells, probes, failures);

        List<Chart> charts = ResultsCharts.of(run.snapshot());

        assertThat(charts).extracting(Chart::name).containsExactly("handoff-separate-clients", "handoff-same-client");
        ParsedSvg svg = ParsedSvg.parse(charts.get(0).svg().get());
        assertThat(svg.texts()).contains("Handoff latency, separate clients", "Leasehold (3.1 commands)",
                "raw floor (85.7 commands)");
        assertThat(String.join(" ", svg.texts()))
                .contains("Leasehold " + Machine.gitRevision(), " UTC, ", "1-minute load 1.50 before");
    }

    private static HandoffWorkload.Cell cell(long nanos) {
        Histogram latency = new Histogram(3);
        for (int i = 0; i < 100; i++) {
            latency.recordValue(nanos + i * 1_000L);
        }
        return new HandoffWorkload.Cell(latency, List.of((double) nanos), List.of((double) nanos), 0);
    }

    private static CommandProbe.Counted counted(long commands, long handoffs) {
        return new CommandProbe.Counted(Map.of("evalsha", commands), handoffs, Map.of());
    }
}
