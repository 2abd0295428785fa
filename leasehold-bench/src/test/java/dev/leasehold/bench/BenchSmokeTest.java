package dev.leasehold.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs every workload for one very short iteration against real redis-servers and renders the
 * report, so the benchmarks cannot rot between the (manual) full runs. The figures are not
 * checked: a smoke run on a busy machine measures nothing. What is checked is that every
 * workload ran to the end, its correctness checks included, and that every section and target
 * made it into the report.
 */
class BenchSmokeTest {

    @Test
    void everyWorkloadRunsAndTheReportHasEverySection(@TempDir Path dir) throws Exception {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        BenchResults results = BenchRun.execute(BenchSettings.smoke(),
                new Progress(new PrintStream(log, true, StandardCharsets.UTF_8)));
        Path report = dir.resolve("RESULTS.md");
        ResultsWriter.write(results, report);

        String markdown = Files.readString(report);
        assertThat(markdown).contains("## Targets of issue 5", "## 1. Uncontended acquire + release (JMH)",
                "## 2. Contended", "## 3. Handoff latency", "## 4. Watchdog cost", "## 5. Redlock over 5 nodes");
        assertThat(Targets.evaluate(results)).hasSize(13);
        for (Contender contender : Contender.SINGLE_NODE) {
            assertThat(results.uncontended().cells().get(contender)).containsOnlyKeys(1, 2);
            assertThat(results.contended().cells()).containsKey(contender);
            for (HandoffWorkload.Pairing pairing : HandoffWorkload.Pairing.values()) {
                assertThat(results.handoff().cells().get(pairing).get(contender).latencyNanos().getTotalCount()
                        + results.handoff().cells().get(pairing).get(contender).notBlocked()).isEqualTo(10);
            }
        }
        assertThat(results.redlock().cells()).containsOnlyKeys(Contender.REDLOCK_ROW.toArray(Contender[]::new));
        for (WatchdogWorkload.Cell cell : results.watchdog().cells().values()) {
            // The smoke window is twice the ttl: only renewal keeps the leases alive.
            assertThat(cell.leasesAliveAtEnd()).isEqualTo(BenchSettings.smoke().watchdog().leases());
        }
    }
}
