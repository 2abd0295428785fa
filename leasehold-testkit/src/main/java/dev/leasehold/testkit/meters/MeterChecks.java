package dev.leasehold.testkit.meters;

import dev.leasehold.Lease;
import dev.leasehold.LockClient;
import dev.leasehold.LockTimeoutException;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The meter checks every backend runs on its real server with a client built with a registry
 * (read through {@link MeterReadings}). Each expects meters that have not moved yet: give each a
 * fresh registry and fresh lock names.
 */
public final class MeterChecks {

    private static final Duration WAIT = Duration.ofSeconds(5);

    private MeterChecks() {
    }

    /**
     * An acquire and a release of the mutex {@code name}: {@code leasehold.acquire.wait}
     * {@code {kind=lock, outcome=acquired}} counts it, {@code leasehold.leases.active} is 1 while it
     * is held and 0 after, and {@code leasehold.lease.held} counts it only once it is released.
     */
    public static void acquireAndReleaseMoveTheMeters(LockClient client, String name, MeterReadings meters) {
        Lease lease = client.lock(name).acquire(WAIT);
        assertThat(meters.acquisitions("lock", "acquired")).isEqualTo(1);
        assertThat(meters.active()).isEqualTo(1);
        assertThat(meters.leasesEnded()).isZero();
        lease.release();
        assertThat(meters.active()).isZero();
        assertThat(meters.leasesEnded()).isEqualTo(1);
        assertThat(meters.acquisitions("timeout")).isZero();
    }

    /** {@code waiter} times out on the mutex {@code name} that {@code holder} holds: {@code outcome=timeout}. */
    public static void aTimeoutIsCounted(LockClient holder, LockClient waiter, String name, MeterReadings meters) {
        try (Lease held = holder.lock(name).acquire(WAIT)) {
            assertThatThrownBy(() -> waiter.lock(name).acquire(Duration.ofMillis(200)))
                    .isInstanceOf(LockTimeoutException.class);
            assertThat(meters.acquisitions("lock", "timeout")).isEqualTo(1);
            assertThat(meters.acquisitions("lock", "acquired")).isEqualTo(1);
        }
    }

    /**
     * One acquire and release of each of {@code kinds} ({@code fair_lock}, {@code read},
     * {@code write}, {@code semaphore}) under names starting with {@code prefix}: each is counted
     * under its own {@code kind} tag, none under {@code lock}.
     */
    public static void eachKindReportsItsTag(LockClient client, String prefix, List<String> kinds, MeterReadings meters) {
        for (String kind : kinds) {
            String name = prefix + kind;
            Lease lease = switch (kind) {
                case "fair_lock" -> client.fairLock(name).acquire(WAIT);
                case "read" -> client.readWriteLock(name).readLock().acquire(WAIT);
                case "write" -> client.readWriteLock(name).writeLock().acquire(WAIT);
                case "semaphore" -> client.semaphore(name, 2).acquire(WAIT);
                default -> throw new IllegalArgumentException("no lock kind '" + kind + "'");
            };
            lease.release();
        }
        for (String kind : kinds) {
            assertThat(meters.acquisitions(kind, "acquired")).as(kind).isEqualTo(1);
        }
        assertThat(meters.acquisitions("lock", "acquired")).isZero();
    }
}
