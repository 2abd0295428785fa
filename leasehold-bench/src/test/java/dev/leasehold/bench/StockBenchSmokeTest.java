package dev.leasehold.bench;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs the stock benchmark for one short cell per strategy and thread count against real servers,
 * so it cannot rot. The figures are not checked (a smoke run measures nothing); correctness is:
 * every unit accounted for and the sell-out run selling exactly the stock, for every strategy.
 */
class StockBenchSmokeTest {

    @Test
    void everyStrategySellsExactlyTheStockAtEveryThreadCount() throws Exception {
        List<StockBench.Row> rows = StockBench.run(StockBench.Settings.smoke());
        assertThat(rows).hasSize(8);
        assertThat(rows).allSatisfy(row -> {
            assertThat(row.correct()).as(row.toString()).isTrue();
            assertThat(row.salesPerSecond()).as(row.toString()).isPositive();
        });
        assertThat(StockBench.markdown(rows, StockBench.Settings.smoke()))
                .contains("Redis Lua check-and-decrement", "SELECT ... FOR UPDATE", "| 32 |");
    }
}
