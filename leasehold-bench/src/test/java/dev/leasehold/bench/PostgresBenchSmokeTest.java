package dev.leasehold.bench;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs the PostgreSQL benchmark for one short round per row on a real PostgreSQL, so it cannot rot.
 * The figures are not checked (a smoke run measures nothing); mutual exclusion is, inside every
 * cell (a cell that loses a counter update throws), every peer must have completed operations in
 * every row, and the statement census must have counted statements for every peer.
 */
class PostgresBenchSmokeTest {

    @Test
    void everyPeerCompletesEveryRowAndHasItsStatementsCounted() throws Exception {
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
    }
}
