package dev.leasehold.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import dev.leasehold.bench.chart.ParsedSvg;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs every workload for one very short iteration against real redis-servers and renders the
 * report, so the benchmarks cannot rot between the (manual) full runs. The figures are not
 * checked: a smoke run on a busy machine measures nothing. What is checked is that every
 * workload ran to the end, its correctness checks included, and that every section and target
 * made it into the report, with its charts beside it.
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
        assertThat(markdown).contains("## Targets of issue 5", "## Targets of the lock family",
                "## 1. Uncontended acquire + release (JMH)", "## 2. Read lock and semaphore",
                "## 3. Contended", "## 4. Contended", "one client per thread", "## 5. Handoff latency",
                "## 6. Watchdog cost", "## 7. Redlock over 5 nodes");
        // A series label the chart must show: handoff charts name each contender's commands per handoff.
        Map<String, String> seriesByChart = Map.of("uncontended", "Redisson RLock", "family", "Leasehold semaphore",
                "handoff-separate-clients", "Leasehold fair lock (", "handoff-same-client", "raw floor (");
        seriesByChart.forEach((chart, series) -> {
            assertThat(markdown).contains("](charts/results-" + chart + ".svg)");
            try {
                assertThat(ParsedSvg.parse(Files.readString(dir.resolve("charts").resolve("results-" + chart + ".svg")))
                        .texts()).as(chart).anyMatch(text -> text.equals(series)
                                || text.startsWith(series) && text.endsWith(" commands)"));
            } catch (Exception e) {
                throw new AssertionError("chart " + chart + " is not well-formed SVG", e);
            }
        });
        assertThat(Targets.evaluate(results)).hasSize(13);
        // 2 kinds x (rate, p99) one client per thread, 2 handoffs, 2 kinds x 2 thread counts uncontended
        assertThat(Targets.family(results)).hasSize(10);
        for (Contender contender : Contender.SINGLE_NODE) {
            assertThat(results.uncontended().cells().get(contender)).containsOnlyKeys(1, 2);
            assertThat(results.contended().cells()).containsKey(contender);
        }
        for (Contender contender : Contender.FAMILY) {
            assertThat(results.family().cells().get(contender)).containsOnlyKeys(1, 2);
            assertThat(results.family().probes().get(contender).operations()).isPositive();
        }
        assertThat(results.contendedPerThread().cells())
                .containsOnlyKeys(Contender.CLIENT_PER_THREAD.toArray(Contender[]::new));
        for (Contender contender : Contender.HANDOFF) {
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
