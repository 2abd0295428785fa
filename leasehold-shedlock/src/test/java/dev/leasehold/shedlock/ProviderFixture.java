package dev.leasehold.shedlock;

import dev.leasehold.Lease;
import dev.leasehold.LockClient;
import dev.leasehold.LockOptions;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two application instances on one backend ({@link #first} and {@link #second}, each a provider over
 * its own client), and a third client that only looks: {@link #isLocked} tries the lock itself, as any
 * other process would, and gives it back at once. The clients serve every test of a class (opening
 * one costs more than most tests); each test has a lock name of its own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ProviderFixture {

    static final Duration LONG = Duration.ofMinutes(5);

    /** A fresh client of the backend under test, as another process would open. */
    protected abstract LockClient newClient();

    LockClient firstClient;
    LockClient secondClient;
    private LockClient probeClient;
    LeaseholdLockProvider first;
    LeaseholdLockProvider second;
    /** A name no other test uses. */
    String name;

    @BeforeAll
    void openClients() {
        firstClient = newClient();
        secondClient = newClient();
        probeClient = newClient();
        first = new LeaseholdLockProvider(firstClient);
        second = new LeaseholdLockProvider(secondClient);
    }

    @BeforeEach
    void newName() {
        name = "shedlock-" + UUID.randomUUID();
    }

    @AfterAll
    void closeClients() {
        firstClient.close();
        secondClient.close();
        probeClient.close();
    }

    static LockConfiguration config(String name, Duration lockAtMostFor, Duration lockAtLeastFor) {
        return new LockConfiguration(ClockProvider.now(), name, lockAtMostFor, lockAtLeastFor);
    }

    static LockConfiguration config(String name) {
        return config(name, LONG, Duration.ZERO);
    }

    /** Whether another client finds {@code lockName} held right now (it takes and frees it if not). */
    boolean isLocked(String lockName) {
        Optional<Lease> probe = probeClient.lock(lockName, LockOptions.fixedLease(Duration.ofSeconds(5)))
                .tryAcquire(Duration.ZERO);
        probe.ifPresent(Lease::release);
        return probe.isEmpty();
    }

    static SimpleLock taken(Optional<SimpleLock> lock) {
        assertThat(lock).as("the lock was free, so lock() must return it").isPresent();
        return lock.get();
    }

    static Lease leaseOf(SimpleLock lock) {
        assertThat(lock).isInstanceOf(LeaseholdSimpleLock.class);
        return ((LeaseholdSimpleLock) lock).lease();
    }

    static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
