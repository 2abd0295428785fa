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
 * Runs the consensus benchmark for one short round per row against a real ZooKeeper ensemble and a
 * real etcd cluster, so it cannot rot. The figures are not checked (a smoke run measures nothing);
 * mutual exclusion is, inside every cell (a cell that loses a counter update throws), and every
 * peer must have completed operations in every row. Its charts are drawn from the smoke run's figures.
 */
class ConsensusBenchSmokeTest {

    @Test
    void everyPeerCompletesEveryRowOnBothStores(@TempDir Path dir) throws Exception {
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

        Map<String, String> images = ReportCharts.write(dir.resolve("CONSENSUS.md"),
                PeerCharts.of(tables, PeerBench.Settings.smoke(), PeerCharts.provenance()));
        assertThat(ConsensusBench.markdown(tables, PeerBench.Settings.smoke(), Duration.ofSeconds(1), images))
                .contains("](charts/consensus-zookeeper-throughput.svg)", "](charts/consensus-zookeeper-handoff.svg)",
                        "](charts/consensus-etcd-throughput.svg)", "](charts/consensus-etcd-handoff.svg)");
        for (String chart : List.of("zookeeper-throughput", "zookeeper-handoff", "etcd-throughput", "etcd-handoff")) {
            assertThat(ParsedSvg.parse(Files.readString(dir.resolve("charts").resolve("consensus-" + chart + ".svg")))
                    .texts()).as(chart).contains("Leasehold");
        }
    }
}
