package dev.leasehold.engine;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The watchdog's grid: a tick comes within a renewal period of the last one (never later, so the
 * window until a loss is noticed does not grow) and more than seven eighths of one later; a lease
 * renewed at every tick is renewed once per period, not more often.
 */
class RenewalGridTest {

    private static final long[] PERIODS = {1, 7, 8, 9, Duration.ofMillis(3).toNanos() + 333_333,
            Duration.ofSeconds(1).toNanos(), Duration.ofSeconds(10).toNanos() / 3, Duration.ofHours(8).toNanos()};
    private static final long[] NOWS = {0, 1, -1, 123_456_789_012L, -987_654_321_098L, Long.MAX_VALUE / 4,
            Long.MIN_VALUE / 4};

    @Test
    void theNextTickComesWithinAPeriodAndMoreThanSevenEighthsOfOneLater() {
        for (long configured : PERIODS) {
            // The backend may grant the whole period, or less.
            for (long period : new long[] {configured, Math.max(1, configured * 2 / 3)}) {
                for (long now : NOWS) {
                    long next = Renewal.nextTick(now, period, configured);
                    assertThat(next - now).as("period %d of %d, now %d", period, configured, now)
                            .isLessThanOrEqualTo(period)
                            .isGreaterThan(period - Math.max(1, period / 8))
                            .isPositive();
                    assertThat(Math.floorMod(next, Renewal.grid(period, configured))).as("on the grid").isZero();
                }
            }
        }
    }

    @Test
    void aLeaseRenewedAtEveryTickIsRenewedOncePerPeriod() {
        for (long period : PERIODS) {
            long at = 42;
            int ticks = 1_000;
            for (int i = 0; i < ticks; i++) {
                at = Renewal.nextTick(at, period, period);
            }
            // Off by less than the nanoseconds an eighth of the period drops in its division.
            assertThat((at - 42) / (double) ticks).as("period %d", period).isGreaterThan(period - 8.0);
        }
    }

    @Test
    void leasesOfOneTtlShareAtMostEightInstantsPerPeriod() {
        long period = Duration.ofSeconds(1).toNanos();
        Set<Long> instants = new HashSet<>();
        for (long acquired = 0; acquired < period; acquired += 1_000_003) {
            instants.add(Math.floorMod(Renewal.nextTick(acquired, period, period), period));
        }
        assertThat(instants).hasSizeLessThanOrEqualTo(8);
    }
}
