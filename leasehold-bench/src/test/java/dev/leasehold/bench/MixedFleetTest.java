package dev.leasehold.bench;

import dev.leasehold.Lease;
import dev.leasehold.LockUnavailableException;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.redis.RedisLockClient;
import dev.leasehold.redis.RedisLocks;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A fleet half migrated from Redisson 4.0.0 to Leasehold, on one real server: what each side sees
 * when the other holds the same name. docs/migration-from-redisson.md, "A mixed fleet", quotes the outcome.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MixedFleetTest {

    private static RedisServer server;
    private static RedissonClient redisson;
    private static RedisLockClient leasehold;

    @BeforeAll
    static void start() {
        server = RedisServer.builder().start();
        redisson = RedissonClients.connect(server.uri(), Duration.ofSeconds(30));
        leasehold = RedisLocks.connect(server.uri());
    }

    @AfterAll
    static void stop() {
        leasehold.close();
        redisson.shutdown();
        server.close();
    }

    @Test
    void whileRedissonHoldsLeaseholdFailsAtOnceNamingTheHashThenTakesTheLockOnceFree() {
        RLock rlock = redisson.getLock("fleet:a");
        rlock.lock();
        assertThatThrownBy(() -> leasehold.lock("fleet:a").acquire(Duration.ofSeconds(5)))
                .isInstanceOf(LockUnavailableException.class).hasMessageContaining("hash");
        rlock.unlock();
        try (Lease lease = leasehold.lock("fleet:a").acquire(Duration.ZERO)) {
            assertThat(lease.isValid()).isTrue();
        }
    }

    @Test
    void whileLeaseholdHoldsRedissonFailsWithWrongTypeThenTakesTheLockOnceFree() throws Exception {
        Lease lease = leasehold.lock("fleet:b").acquire(Duration.ZERO);
        RLock rlock = redisson.getLock("fleet:b");
        assertThatThrownBy(() -> rlock.tryLock(0, 10, TimeUnit.SECONDS)).hasMessageContaining("WRONGTYPE");
        lease.release();
        assertThat(rlock.tryLock(0, 10, TimeUnit.SECONDS)).isTrue();
        rlock.unlock();
    }

    @Test
    void withAKeyPrefixTheTwoSidesDoNotSeeEachOther() throws Exception {
        try (RedisLockClient prefixed = RedisLocks.builder().uri(server.uri()).keyPrefix("lock:").connect()) {
            RLock rlock = redisson.getLock("fleet:c");
            assertThat(rlock.tryLock(0, 10, TimeUnit.SECONDS)).isTrue();
            try (Lease lease = prefixed.lock("fleet:c").acquire(Duration.ZERO)) {
                assertThat(lease.isValid()).as("no exclusion between the two: migrate a name everywhere at once").isTrue();
            } finally {
                rlock.unlock();
            }
        }
    }
}
