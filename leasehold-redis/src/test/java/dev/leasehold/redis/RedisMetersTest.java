package dev.leasehold.redis;

import dev.leasehold.Lease;
import dev.leasehold.LeaseLostException;
import dev.leasehold.LockOptions;
import dev.leasehold.LockTimeoutException;
import dev.leasehold.LockUnavailableException;
import dev.leasehold.ReleaseStatus;
import dev.leasehold.engine.AcquireOutcome;
import dev.leasehold.engine.LeaseEvents;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.testkit.junit.TestServer;
import dev.leasehold.testkit.meters.MeterReadings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static dev.leasehold.testkit.junit.Eventually.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Each of Leasehold's meters on a real server, through {@code RedisLocks.builder().meterRegistry(registry)}:
 * it moves for its event and stays still otherwise.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisMetersTest {

    private static final Duration WAIT = Duration.ofSeconds(2);
    private static final Duration LONG_TTL = Duration.ofSeconds(30);
    @RegisterExtension
    static final TestServer<RedisServer> server = TestServer.perClass(() -> RedisServer.builder().start());
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final MeterReadings meters = new MeterReadings(registry);
    private final List<RedisLockClient> clients = new ArrayList<>();

    @AfterEach
    void closeClients() {
        if (server.get().isPaused()) {
            server.get().resume();
        }
        clients.forEach(RedisLockClient::close);
        clients.clear();
    }

    private RedisLockClient client(Duration operationTimeout) {
        RedisLockClient client = RedisLocks.builder().uri(server.get().uri()).operationTimeout(operationTimeout)
                .meterRegistry(registry).connect();
        clients.add(client);
        return client;
    }

    private RedisLockClient client() {
        return client(Duration.ofSeconds(3));
    }

    @Test
    void aClientWithoutARegistryRegistersNothing() {
        RedisLockClient plain = RedisLocks.builder().uri(server.get().uri()).connect();
        clients.add(plain);
        plain.lock("meters:plain").acquire(WAIT).release();
        assertThat(registry.getMeters()).isEmpty();
    }

    @Test
    void theBuilderRefusesANullRegistryOrEventsAndPassesItsOwnEventsToTheEngine() {
        assertThatThrownBy(() -> RedisLocks.builder().meterRegistry(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("registry");
        assertThatThrownBy(() -> RedisLocks.builder().leaseEvents(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("LeaseEvents.NONE");
        java.util.concurrent.ConcurrentLinkedQueue<String> events = new java.util.concurrent.ConcurrentLinkedQueue<>();
        RedisLockClient client = RedisLocks.builder().uri(server.get().uri()).leaseEvents(new LeaseEvents() {
            @Override
            public void acquireEnded(String kind, AcquireOutcome outcome, long waitNanos) {
                events.add(kind + " " + outcome);
            }

            @Override
            public void leaseEnded(long heldNanos) {
                events.add("ended");
            }
        }).connect();
        clients.add(client);
        client.lock("meters:own-events").acquire(WAIT).release();
        assertThat(events).containsExactly("lock ACQUIRED", "ended");
        assertThat(registry.getMeters()).isEmpty();
    }

    @Test
    void acquireWaitIsTaggedByKindAndOutcome() {
        RedisLockClient client = client();
        client.lock("meters:kind:lock").acquire(WAIT).release();
        client.fairLock("meters:kind:fair").acquire(WAIT).release();
        client.readWriteLock("meters:kind:rw").readLock().acquire(WAIT).release();
        client.readWriteLock("meters:kind:rw").writeLock().acquire(WAIT).release();
        client.semaphore("meters:kind:sem", 2).acquire(WAIT).release();
        for (String kind : List.of("lock", "fair_lock", "read", "write", "semaphore")) {
            assertThat(meters.acquisitions(kind, "acquired")).as(kind).isEqualTo(1);
        }
        assertThat(meters.acquisitions("lock", "timeout")).isZero();
        assertThat(meters.acquisitions("lock", "unavailable")).isZero();

        Lease busy = client.lock("meters:busy").acquire(WAIT);
        assertThatThrownBy(() -> client().lock("meters:busy").acquire(Duration.ofMillis(200)))
                .isInstanceOf(LockTimeoutException.class);
        busy.release();
        assertThat(meters.acquisitions("lock", "timeout")).isEqualTo(1);
        assertThat(meters.acquisitions("lock", "acquired")).isEqualTo(2);
        assertThat(meters.waited("timeout", TimeUnit.MILLISECONDS)).isGreaterThanOrEqualTo(200);

        RedisLockClient impatient = client(Duration.ofMillis(200));
        server.get().pause();
        assertThatThrownBy(() -> impatient.lock("meters:frozen").acquire(WAIT))
                .isInstanceOf(LockUnavailableException.class);
        server.get().resume();
        assertThat(meters.acquisitions("lock", "unavailable")).isEqualTo(1);
        assertThat(meters.acquisitions("lock", "timeout")).isEqualTo(1);
    }

    @Test
    void leaseHeldAndLeasesActiveFollowEachLease() throws InterruptedException {
        RedisLockClient client = client();
        assertThat(meters.active()).isZero();
        Lease first = client.lock("meters:held:1").acquire(WAIT);
        Lease second = client.semaphore("meters:held:2", 3).acquire(WAIT);
        assertThat(meters.active()).isEqualTo(2);
        Thread.sleep(100);
        assertThat(meters.leasesEnded()).isZero();
        first.release();
        assertThat(meters.active()).isEqualTo(1);
        assertThat(meters.leasesEnded()).isEqualTo(1);
        assertThat(meters.held(TimeUnit.MILLISECONDS)).isGreaterThanOrEqualTo(100);
        second.release();
        assertThat(meters.active()).isZero();
        assertThat(meters.leasesEnded()).isEqualTo(2);
    }

    @Test
    void renewalFailuresCountRenewalsAFrozenServerNeverAnswered() throws InterruptedException {
        Lease healthy = client().lock("meters:renew:healthy", LockOptions.watchdog(Duration.ofMillis(600))).acquire(WAIT);
        Thread.sleep(1_000);
        assertThat(healthy.isValid()).isTrue();
        assertThat(meters.renewalFailures()).as("renewals that succeeded").isZero();
        healthy.release();

        // Renewals every 200 ms that give up after 100 ms: several fail before the deadline.
        RedisLockClient client = client(Duration.ofMillis(100));
        Lease frozen = client.lock("meters:renew:frozen", LockOptions.watchdog(Duration.ofMillis(600))).acquire(WAIT);
        server.get().pause();
        eventually(() -> !frozen.isValid(), "the lease expired without an answer");
        server.get().resume();
        assertThat(meters.renewalFailures()).isGreaterThanOrEqualTo(1);
        assertThat(meters.lostByReason()).containsEntry("expired", 1.0).containsEntry("refused", 0.0);
    }

    @Test
    void leaseLostCountsByReason() {
        RedisLockClient client = client();
        Lease fixed = client.lock("meters:lost:fixed", LockOptions.fixedLease(Duration.ofMillis(100))).acquire(WAIT);
        eventually(() -> !fixed.isValid(), "the fixed lease ran out");
        assertThat(meters.lostByReason()).containsEntry("expired", 1.0).containsEntry("refused", 0.0);

        Lease broken = client.lock("meters:lost:broken", LockOptions.watchdog(Duration.ofMillis(300))).acquire(WAIT);
        client().breakLock("meters:lost:broken", "test of the lost meter");
        eventually(() -> !broken.isValid(), "the renewal found the key gone");
        assertThat(meters.lostByReason()).containsEntry("refused", 1.0).containsEntry("expired", 1.0)
                .containsEntry("max_hold", 0.0).containsEntry("client_closed", 0.0);

        client.lock("meters:lost:kept").acquire(WAIT).release();
        assertThat(meters.lostByReason()).as("a release is no loss").containsEntry("refused", 1.0).containsEntry("expired", 1.0);
    }

    @Test
    void overrunCountsAHolderThatReleasesOrChecksALostLease() {
        RedisLockClient client = client();
        Lease released = client.lock("meters:overrun:released", LockOptions.fixedLease(Duration.ofSeconds(1))).acquire(WAIT);
        released.ensureValid();
        eventually(() -> !released.isValid(), "the fixed lease ran out");
        assertThat(meters.overruns()).as("a loss alone is no overrun").isZero();
        assertThat(released.release()).isEqualTo(ReleaseStatus.ALREADY_LOST);
        assertThat(meters.overruns()).isEqualTo(1);

        Lease checked = client.lock("meters:overrun:checked", LockOptions.fixedLease(Duration.ofMillis(100))).acquire(WAIT);
        eventually(() -> !checked.isValid(), "the fixed lease ran out");
        assertThatThrownBy(checked::ensureValid).isInstanceOf(LeaseLostException.class);
        checked.release();
        assertThat(meters.overruns()).as("once per lease").isEqualTo(2);

        assertThatThrownBy(() -> client.lock("meters:overrun:work", LockOptions.fixedLease(Duration.ofMillis(150)))
                .run(WAIT, () -> sleepInterruptibly(Duration.ofSeconds(5)))).isInstanceOf(LeaseLostException.class);
        assertThat(meters.overruns()).isEqualTo(3);

        client.lock("meters:overrun:in-time").run(WAIT, () -> { });
        assertThat(meters.overruns()).as("work that ended within its lease").isEqualTo(3);
    }

    private static void sleepInterruptibly(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException stoppedByTheLoss) {
            Thread.currentThread().interrupt();
        }
    }
}
