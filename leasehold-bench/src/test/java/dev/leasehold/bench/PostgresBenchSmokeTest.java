package dev.leasehold.bench;

import dev.leasehold.bench.chart.ParsedSvg;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs the PostgreSQL benchmark for one short round per row on a real PostgreSQL, so it cannot rot.
 * The figures are not checked (a smoke run measures nothing); mutual exclusion is, inside every
 * cell (a cell that loses a counter update throws), every peer must have completed operations in
 * every row, and the statement census must have counted statements for every peer. Its charts are
 * drawn from the smoke run's figures.
 */
class PostgresBenchSmokeTest {

    @Test
    void everyPeerCompletesEveryRowAndHasItsStatementsCounted(@TempDir Path dir) throws Exception {
        PostgresBench.Result result = PostgresBench.run(PeerBench.Settings.smoke());
        assertThat(result.table().cells()).containsOnlyKeys(PeerBench.Workload.values());
        result.table().cells().forEach((workload, cells) -> {
            assertThat(cells).hasSize(3);
            cells.forEach((peer, cell) -> {
                if (workload == PeerBench.Workload.HANDOFF) {
                    assertThat(cell.p99Micros()).as(workload + " " + peer).isPositive();
                } else {
                    assertThat(cell.opsPerSecond()).as(workload + " " + peer).isPositive();
                }
            });
        });
        assertThat(result.uncontended()).hasSize(3).allSatisfy((peer, tally) ->
                assertThat(tally.perOperation()).as(peer).isGreaterThanOrEqualTo(1));
        assertThat(result.contended()).hasSize(3).allSatisfy((peer, tally) ->
                assertThat(tally.perOperation()).as(peer).isGreaterThanOrEqualTo(1));
        assertThat(PostgresBench.markdown(result, PeerBench.Settings.smoke(), Duration.ofSeconds(1)))
                .contains(SpringJdbcLockAdapter.LABEL, ShedLockJdbcAdapter.LABEL, "uncontended, 16 threads",
                        "per lock+release");

        Map<String, String> images = ReportCharts.write(dir.resolve("POSTGRES.md"),
                PeerCharts.of(List.of(result.table()), PeerBench.Settings.smoke(), PeerCharts.provenance()));
        assertThat(PostgresBench.markdown(result, PeerBench.Settings.smoke(), Duration.ofSeconds(1), images))
                .contains("](charts/postgres-postgresql-throughput.svg)", "](charts/postgres-postgresql-handoff.svg)");
        for (String chart : List.of("throughput", "handoff")) {
            assertThat(ParsedSvg.parse(Files.readString(dir.resolve("charts").resolve("postgres-postgresql-" + chart
                    + ".svg"))).texts()).as(chart).contains("Leasehold", SpringJdbcLockAdapter.LABEL);
        }
    }
}
