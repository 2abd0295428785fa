package dev.leasehold.bench;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Runs the etcd client-CPU harness for one short round against a real three-member cluster, so it
 * cannot rot. The figures are not checked (a smoke run measures nothing); mutual exclusion is, in
 * every cell, and both peers must complete operations.
 */
class EtcdClientCpuSmokeTest {

    @Test
    void bothPeersCompleteOperationsAndEveryFigureIsReported() throws Exception {
        EtcdClientCpu.Settings settings = EtcdClientCpu.Settings.parse(List.of("--smoke", "--threads", "4"));
        Map<String, List<EtcdClientCpu.Cell>> cells = EtcdClientCpu.run(settings);
        assertThat(cells).containsOnlyKeys("leasehold", "jetcd");
        assertThat(cells.values()).allSatisfy(rounds -> assertThat(rounds).singleElement().satisfies(cell -> {
            assertThat(cell.ops()).isPositive();
            assertThat(cell.jvmMicros()).isPositive();
            assertThat(cell.groupMicros()).containsKey(EtcdClientCpu.LOAD);
        }));
        assertThat(EtcdClientCpu.markdown(settings, cells)).contains("| leasehold | 1 |", "| jetcd | 1 |");
    }

    @Test
    void aBadArgumentSaysWhatWasWrong() {
        assertThatThrownBy(() -> EtcdClientCpu.Settings.parse(List.of("--only", "curator")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("leasehold or jetcd");
        assertThatThrownBy(() -> EtcdClientCpu.Settings.parse(List.of("--threads", "0")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("positive");
    }
}
