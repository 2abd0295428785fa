package dev.leasehold.bench;

import dev.leasehold.bench.chart.ParsedSvg;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs the herd benchmark for one short round per herd size and contender against a real
 * redis-server, so it cannot rot. The figures are not checked (a smoke run measures nothing);
 * mutual exclusion is, inside every cell (a cell that loses a counter update or sees a token go
 * backwards throws), and every contender must have granted and been probed in every cell. Its
 * charts are drawn from the smoke run's figures.
 */
class HerdBenchSmokeTest {

    @Test
    void everyContenderHandsTheLockOverInEveryHerd(@TempDir Path dir) throws Exception {
        HerdWorkload.Settings settings = HerdWorkload.Settings.smoke();
        HerdBench.Result result = HerdBench.run(settings, HerdBench.CONTENDERS,
                new Progress(new PrintStream(OutputStream.nullOutputStream())));
        assertThat(result.failures()).isEmpty();
        assertThat(result.cells()).containsOnlyKeys(HerdBench.CONTENDERS);
        result.cells().forEach((contender, byHerd) -> {
            assertThat(byHerd).as(contender.label()).containsOnlyKeys(settings.herds());
            byHerd.forEach((waiters, cells) -> assertThat(cells).allSatisfy(cell -> {
                assertThat(cell.grants()).as(contender + " " + waiters).isPositive();
                assertThat(cell.probeGrants()).as(contender + " " + waiters).isPositive();
                assertThat(cell.probe().scriptCalls()).as(contender + " " + waiters).isPositive();
            }));
        });
        assertThat(HerdBench.points(result)).hasSize(HerdBench.CONTENDERS.size() * settings.herds().size());
        assertThat(HerdBench.markdown(result)).contains("Redisson RFairLock", "contender,waiters,",
                "Leasehold fair lock,30,");

        Map<String, String> images = ReportCharts.write(dir.resolve("HERD.md"),
                HerdCharts.of(result, PeerCharts.provenance()));
        assertThat(HerdBench.markdown(result, images)).contains("](charts/herd-commands.svg)",
                "](charts/herd-wakeups.svg)", "](charts/herd-handoff.svg)");
        for (String chart : HerdCharts.NAMES) {
            assertThat(ParsedSvg.parse(Files.readString(dir.resolve("charts").resolve("herd-" + chart + ".svg")))
                    .texts()).as(chart).contains("Leasehold", "Redisson RLock", "Leasehold fair lock");
        }
    }
}
