package dev.leasehold.redlock;

import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import dev.leasehold.LockTimeoutException;
import dev.leasehold.ReleaseStatus;
import dev.leasehold.micrometer.MicrometerLeaseEvents;
import io.micrometer.core.instrument.Timer;
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
        try (RedisNodes nodes = RedisNodes.start(3);
             RedlockLockClient locks = RedlockLocks.builder().uris(nodes.uris()).meterRegistry(registry).connect();
             RedlockLockClient other = RedlockLocks.builder().uris(nodes.uris()).connect()) {
            Lease lease = locks.lock("redlock:meters").acquire(WAIT);
            assertThat(registry.get(MicrometerLeaseEvents.LEASES_ACTIVE).gauge().value()).isEqualTo(1);
            assertThat(acquired(registry, "acquired")).isEqualTo(1);
            assertThatThrownBy(() -> locks.lock("redlock:meters").acquire(Duration.ofMillis(200)))
                    .isInstanceOf(LockTimeoutException.class);
            assertThat(acquired(registry, "timeout")).isEqualTo(1);
            lease.release();
            assertThat(registry.get(MicrometerLeaseEvents.LEASE_HELD).timer().count()).isEqualTo(1);
            assertThat(registry.get(MicrometerLeaseEvents.LEASES_ACTIVE).gauge().value()).isZero();

            Lease late = locks.lock("redlock:meters:late", LockOptions.fixedLease(Duration.ofMillis(100))).acquire(WAIT);
            Thread.sleep(300);
            assertThat(late.release()).isEqualTo(ReleaseStatus.ALREADY_LOST);
            assertThat(registry.get(MicrometerLeaseEvents.LEASE_OVERRUN).counter().count()).isEqualTo(1);
            assertThat(registry.get(MicrometerLeaseEvents.LEASE_LOST).tag("reason", "expired").counter().count()).isEqualTo(1);

            other.lock("redlock:meters:other").acquire(WAIT).release();
            assertThat(acquired(registry, "acquired")).as("a client without the registry reports nothing").isEqualTo(2);
        }
    }

    private static long acquired(SimpleMeterRegistry registry, String outcome) {
        Timer timer = registry.find(MicrometerLeaseEvents.ACQUIRE_WAIT).tags("kind", "lock", "outcome", outcome).timer();
        return timer == null ? 0 : timer.count();
    }
}
