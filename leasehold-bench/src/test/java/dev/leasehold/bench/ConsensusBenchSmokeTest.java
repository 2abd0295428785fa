package dev.leasehold.bench;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs the consensus benchmark for one short round per row against a real ZooKeeper ensemble and a
 * real etcd cluster, so it cannot rot. The figures are not checked (a smoke run measures nothing);
 * mutual exclusion is, inside every cell (a cell that loses a counter update throws), and every
 * peer must have completed operations in every row.
 */
class ConsensusBenchSmokeTest {

    @Test
    void everyPeerCompletesEveryRowOnBothStores() throws Exception {
        List<PeerBench.Table> tables = ConsensusBench.run(PeerBench.Settings.smoke());
        assertThat(tables).extracting(PeerBench.Table::store).containsExactly("ZooKeeper", "etcd");
        assertThat(tables).allSatisfy(table -> {
            assertThat(table.cells()).containsOnlyKeys(PeerBench.Workload.values());
            table.cells().forEach((workload, cells) -> cells.forEach((peer, cell) -> {
                if (workload == PeerBench.Workload.HANDOFF) {
                    assertThat(cell.p99Micros()).as(workload + " " + peer).isPositive();
                } else {
                    assertThat(cell.opsPerSecond()).as(workload + " " + peer).isPositive();
                }
            }));
        });
        assertThat(ConsensusBench.markdown(tables, PeerBench.Settings.smoke(), Duration.ofSeconds(1)))
                .contains("Curator InterProcessMutex", "jetcd Lock", "uncontended, 16 threads");
    }
}
