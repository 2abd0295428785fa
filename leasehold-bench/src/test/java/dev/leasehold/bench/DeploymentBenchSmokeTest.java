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
 * Runs the Sentinel and Cluster benchmark for one short round per row on a real Sentinel group and
 * a real Cluster, so it cannot rot. The figures are not checked (a smoke run measures nothing);
 * mutual exclusion is, inside every cell, and so is which peers send {@code WAIT}: the report's
 * claim that only the acknowledging Leasehold peer and Redisson pay for replicas. Its charts are drawn
 * from the smoke run's figures.
 */
class DeploymentBenchSmokeTest {

    @Test
    void everyPeerCompletesEveryRowOnBothDeployments(@TempDir Path dir) throws Exception {
        List<DeploymentBench.Deployment> deployments = DeploymentBench.run(PeerBench.Settings.smoke());
        assertThat(deployments).hasSize(2);
        assertThat(deployments).allSatisfy(deployment -> {
            assertThat(deployment.table().cells()).containsOnlyKeys(PeerBench.Workload.values());
            deployment.table().cells().forEach((workload, cells) -> cells.forEach((peer, cell) -> {
                if (workload == PeerBench.Workload.HANDOFF) {
                    assertThat(cell.p99Micros()).as(workload + " " + peer).isPositive();
                } else {
                    assertThat(cell.opsPerSecond()).as(workload + " " + peer).isPositive();
                }
            }));
            assertThat(deployment.waitsPerPair().get(DeploymentBench.LEASEHOLD)).as("plain Leasehold sends no WAIT").isZero();
            assertThat(deployment.waitsPerPair().get(DeploymentBench.REDISSON)).as("Redisson WAITs for its replicas")
                    .isGreaterThanOrEqualTo(1);
        });
        assertThat(deployments).allSatisfy(deployment -> assertThat(deployment.waitsPerPair()
                .get(DeploymentBench.LEASEHOLD_ACK)).as("one WAIT per acknowledged acquire").isGreaterThanOrEqualTo(1));
        assertThat(DeploymentBench.markdown(deployments, PeerBench.Settings.smoke(), Duration.ofSeconds(1)))
                .contains("Sentinel", "Cluster", DeploymentBench.REDISSON, "uncontended, 16 threads", "WAIT commands");

        Map<String, String> images = ReportCharts.write(dir.resolve("DEPLOYMENTS.md"), PeerCharts.of(
                deployments.stream().map(DeploymentBench.Deployment::table).toList(), PeerBench.Settings.smoke(),
                PeerCharts.provenance()));
        assertThat(DeploymentBench.markdown(deployments, PeerBench.Settings.smoke(), Duration.ofSeconds(1), images))
                .contains("](charts/deployments-sentinel-throughput.svg)", "](charts/deployments-cluster-handoff.svg)");
        for (String chart : List.of("sentinel-throughput", "sentinel-handoff", "cluster-throughput", "cluster-handoff")) {
            assertThat(ParsedSvg.parse(Files.readString(dir.resolve("charts").resolve("deployments-" + chart + ".svg")))
                    .texts()).as(chart).contains(DeploymentBench.LEASEHOLD_ACK, DeploymentBench.REDISSON);
        }
    }
}
