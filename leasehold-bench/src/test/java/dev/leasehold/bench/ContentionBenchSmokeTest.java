package dev.leasehold.bench;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Runs the contention benchmark for one very short round against a real redis-server, so it cannot
 * rot. The figures are not checked (a smoke run measures nothing); mutual exclusion is, inside every
 * cell (a window or session that loses a counter update throws, and the cell fails), so every
 * contender must have a cell in every row and the report every row and goal.
 */
class ContentionBenchSmokeTest {

    @Test
    void everyContenderCompletesEveryRowAndTheReportHasTheGoals() {
        ContentionBench.Settings settings = ContentionBench.Settings.smoke();
        ContentionBench.Result result = ContentionBench.run(settings,
                new Progress(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)));

        Contender[] contenders = Contender.WITH_PUBSUB_FLOORS.toArray(Contender[]::new);
        assertThat(result.contended().failures()).isEmpty();
        assertThat(result.contended().cells()).containsOnlyKeys(contenders);
        for (HandoffWorkload.Pairing pairing : HandoffWorkload.Pairing.values()) {
            assertThat(result.handoff().failures().get(pairing)).as(pairing.label).isEmpty();
            assertThat(result.handoff().cells().get(pairing)).as(pairing.label).containsOnlyKeys(contenders);
            result.handoff().cells().get(pairing).forEach((contender, cell) ->
                    assertThat(cell.latencyNanos().getTotalCount() + cell.notBlocked()).as(contender.label())
                            .isEqualTo(settings.handoff().handoffsPerRound()));
        }
        assertThat(ContentionBench.markdown(result, settings)).contains("one client per thread",
                "| separate clients | Leasehold |", "| two threads of one client | Redisson RFairLock |",
                "| pub/sub floor, handed over |", "| pub/sub floor, woken to retry |",
                "contended p99 wait × RLock", "contended fairness", "contended acquisitions × RLock",
                "handoff between separate clients, p50 × RLock");
    }

    @Test
    void roundsMustBeAPositiveNumber() {
        List<String> args = new ArrayList<>(List.of("--rounds", "3", "--smoke"));
        assertThat(ContentionBench.rounds(args)).isEqualTo(3);
        assertThat(args).containsExactly("--smoke");
        assertThat(ContentionBench.rounds(new ArrayList<>())).isEqualTo(7);
        assertThatThrownBy(() -> ContentionBench.rounds(new ArrayList<>(List.of("--rounds", "0"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--rounds needs a positive number");
        assertThatThrownBy(() -> ContentionBench.rounds(new ArrayList<>(List.of("--rounds"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("got ''");
    }
}
