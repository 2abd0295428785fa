package dev.leasehold.bench;

import dev.leasehold.launcher.RedisServer;
import org.junit.jupiter.api.Test;

import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link WatchdogWorkload} measures each contender renewing every lease once a renewal period (ttl/3),
 * as its design intends, and not an artefact of how the workload set the client up: Redisson 4 renews
 * every lock twice a period once its set of watched locks has emptied and filled again within a period
 * (the first renewal timer is never cancelled), which the workload's warm-up lease used to cause.
 */
class WatchdogRenewalRateTest {

    /** Above once a period, below twice: a loaded machine renews late, never early. */
    private static final double MARGIN = 1.5;

    @Test
    void everyContenderRenewsEachLeaseOncePerPeriod() {
        WatchdogWorkload.Settings settings = new WatchdogWorkload.Settings(50, Duration.ofMillis(1200),
                Duration.ofMillis(400), Duration.ofMillis(2400), Duration.ofMillis(400));
        try (RedisServer server = RedisServer.builder().start()) {
            WatchdogWorkload.Result result = new WatchdogWorkload(server, settings,
                    new Progress(new PrintStream(OutputStream.nullOutputStream()))).run(Contender.WATCHDOG_ROW);
            // The warm-up lease is renewed too; each renewal is two commands (a check and a PEXPIRE).
            double oncePerPeriod = 2 * (settings.leases() + 1) * 3e9 / settings.ttl().toNanos();
            result.cells().forEach((contender, cell) -> {
                double commandsPerSecond = cell.allCallsPerSecond().stream().mapToDouble(Double::doubleValue)
                        .average().orElseThrow();
                assertThat(commandsPerSecond).as(contender + " commands/s against %.0f for one renewal a period",
                        oncePerPeriod).isLessThan(MARGIN * oncePerPeriod);
                assertThat(cell.hold().allValid()).as(contender + " leases stayed valid").isTrue();
            });
        }
    }
}
