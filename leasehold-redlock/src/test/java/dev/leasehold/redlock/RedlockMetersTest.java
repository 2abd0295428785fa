package dev.leasehold.redlock;

import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import dev.leasehold.LockTimeoutException;
import dev.leasehold.ReleaseStatus;
import dev.leasehold.testkit.meters.MeterReadings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The Redlock builder takes a registry too, and its client reports the same meters as every other. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedlockMetersTest {

    private static final Duration WAIT = Duration.ofSeconds(2);

    @Test
    void aRedlockClientReportsItsAcquisitionsLeasesAndOverruns() throws InterruptedException {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        MeterReadings meters = new MeterReadings(registry);
        try (RedisNodes nodes = RedisNodes.start(3);
             RedlockLockClient locks = RedlockLocks.builder().uris(nodes.uris()).meterRegistry(registry).connect();
             RedlockLockClient other = RedlockLocks.builder().uris(nodes.uris()).connect()) {
            Lease lease = locks.lock("redlock:meters").acquire(WAIT);
            assertThat(meters.active()).isEqualTo(1);
            assertThat(meters.acquisitions("lock", "acquired")).isEqualTo(1);
            assertThatThrownBy(() -> locks.lock("redlock:meters").acquire(Duration.ofMillis(200)))
                    .isInstanceOf(LockTimeoutException.class);
            assertThat(meters.acquisitions("lock", "timeout")).isEqualTo(1);
            lease.release();
            assertThat(meters.leasesEnded()).isEqualTo(1);
            assertThat(meters.active()).isZero();

            Lease late = locks.lock("redlock:meters:late", LockOptions.fixedLease(Duration.ofMillis(100))).acquire(WAIT);
            Thread.sleep(300);
            assertThat(late.release()).isEqualTo(ReleaseStatus.ALREADY_LOST);
            assertThat(meters.overruns()).isEqualTo(1);
            assertThat(meters.lost("expired")).isEqualTo(1);

            other.lock("redlock:meters:other").acquire(WAIT).release();
            assertThat(meters.acquisitions("lock", "acquired")).as("a client without the registry reports nothing").isEqualTo(2);
        }
    }
}
