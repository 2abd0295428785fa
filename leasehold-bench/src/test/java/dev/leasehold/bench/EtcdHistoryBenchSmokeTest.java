package dev.leasehold.bench;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Runs the history harness for a short cell per peer and history against real three-member
 * clusters, so it cannot rot. The rates are not checked (a smoke run measures nothing); mutual
 * exclusion is, in every cell, and every cell must complete operations in every window.
 */
class EtcdHistoryBenchSmokeTest {

    @Test
    void everyPeerCompletesOperationsInEveryWindowWithAndWithoutCompaction() throws Exception {
        EtcdHistoryBench.Settings settings = EtcdHistoryBench.Settings.parse(List.of("--smoke"));
        List<EtcdHistoryBench.Cell> cells = EtcdHistoryBench.run(settings);
        assertThat(cells).extracting(EtcdHistoryBench.Cell::peer).containsExactly("leasehold", "jetcd", "leasehold", "jetcd");
        assertThat(cells).extracting(EtcdHistoryBench.Cell::compacted).containsExactly(false, false, true, true);
        for (EtcdHistoryBench.Cell cell : cells) {
            assertThat(cell.rates()).hasSize(2).allSatisfy(rate -> assertThat(rate).isPositive());
            assertThat(cell.revision()).isPositive();
        }
        assertThat(EtcdHistoryBench.markdown(settings, cells)).contains("| leasehold | kept |", "| jetcd | compacted every second |");
    }

    @Test
    void badArgumentsAreNamed() {
        assertThatThrownBy(() -> EtcdHistoryBench.Settings.parse(List.of("--threads", "0")))
                .hasMessageContaining("--threads needs a positive whole number");
        assertThatThrownBy(() -> EtcdHistoryBench.Settings.parse(List.of("--window", "9", "--seconds", "3")))
                .hasMessageContaining("--window must not exceed --seconds");
        assertThatThrownBy(() -> EtcdHistoryBench.Settings.parse(List.of("--rounds", "3")))
                .hasMessageContaining("unknown argument --rounds");
    }
}
