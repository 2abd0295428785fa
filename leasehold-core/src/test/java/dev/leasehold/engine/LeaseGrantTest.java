package dev.leasehold.engine;

import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A backend that grants less than the ttl ({@link dev.leasehold.spi.LockProtocol#grantedFor}, e.g.
 * a ZooKeeper session): the local deadline is the earlier of the two, and the watchdog renews at a
 * third of the shorter, so a healthy lease lives on and a stalled one is lost before the grant ends.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class LeaseGrantTest {

    private static final Duration TTL = Duration.ofSeconds(6);
    private static final Duration GRANT = Duration.ofMillis(1_000);

    private final InMemoryLockProtocol protocol = new InMemoryLockProtocol();
    private final LeaseEngine engine = new LeaseEngine(new LeaseEngine.Settings(Duration.ofSeconds(1), Duration.ofMillis(50)), "in-memory");

    @AfterEach
    void close() {
        engine.close();
    }

    @Test
    void theLocalDeadlineIsTheEarlierOfTheTtlAndTheBackendsGrant() throws Exception {
        protocol.grantOnly(GRANT);
        long sent = System.nanoTime();
        Lease lease = engine.lock("granted", LockOptions.watchdog(TTL), protocol).acquire(Duration.ofSeconds(1));
        assertThat(lease.remaining()).isLessThanOrEqualTo(GRANT.minus(LockOptions.drift(GRANT))
                .plusNanos(System.nanoTime() - sent));
        // Renewals at a third of the grant keep it valid over several grants.
        Thread.sleep(GRANT.multipliedBy(3).toMillis());
        assertThat(lease.isValid()).as("renewed within each grant").isTrue();
        assertThat(lease.remaining()).isLessThanOrEqualTo(GRANT);

        protocol.failRenewals(true);
        long stalled = System.nanoTime();
        lease.lost().toCompletableFuture().get(TTL.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(Duration.ofNanos(System.nanoTime() - stalled)).as("lost by the grant, long before the ttl")
                .isLessThan(TTL.dividedBy(2));
    }

    @Test
    void aBackendWithoutAGrantKeepsTheTtl() {
        Lease lease = engine.lock("ttl-only", LockOptions.watchdog(TTL), protocol).acquire(Duration.ofSeconds(1));
        assertThat(lease.remaining()).isGreaterThan(TTL.minus(Duration.ofSeconds(1)));
        lease.release();
    }
}
