package dev.leasehold.redis;

import dev.leasehold.Lease;
import dev.leasehold.LockInfo;
import dev.leasehold.LockKind;
import dev.leasehold.engine.EngineLockClient;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.testkit.contract.KindsReviewContract;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** The issue-20 review contract on a single Redis server, and the key prefix's reach. */
class RedisKindsReviewTest extends KindsReviewContract {

    private static RedisServer server;

    @BeforeAll
    static void startServer() {
        server = RedisServer.builder().start();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @Override
    protected EngineLockClient connect() {
        return RedisLocks.connect(server.uri());
    }

    @Test
    @Override
    protected void breakingAFairLockKeepsTheWaitersArrivalOrder() throws Exception {
        super.breakingAFairLockKeepsTheWaitersArrivalOrder();
    }

    @Test
    void inspectListAndBreakOfAPrefixedClientSeeOnlyItsPrefix() {
        String name = "review:prefix:" + System.nanoTime();
        try (RedisLockClient plain = RedisLocks.connect(server.uri());
             RedisLockClient prefixed = RedisLocks.builder().uri(server.uri()).keyPrefix("app:").connect();
             Lease mutex = plain.lock(name + ":x").acquire(Duration.ofSeconds(5));
             Lease permit = plain.semaphore(name + ":y", 2).acquire(Duration.ofSeconds(5));
             Lease read = prefixed.readWriteLock(name + ":x").readLock().acquire(Duration.ofSeconds(5))) {
            assertThat(prefixed.list(name + ":*")).extracting(LockInfo::name).containsExactly("app:" + name + ":x");
            assertThat(prefixed.list(name + ":?")).extracting(LockInfo::name).containsExactly("app:" + name + ":x");
            assertThat(plain.list(name + ":?")).extracting(LockInfo::name).containsExactly(name + ":x", name + ":y");
            assertThat(prefixed.inspect(name + ":x").kind()).contains(LockKind.READ);
            assertThat(plain.inspect(name + ":x").kind()).contains(LockKind.MUTEX);
            assertThat(prefixed.inspect(name + ":y").isHeld()).isFalse();
            assertThat(prefixed.breakLock(name + ":y", "review")).isEmpty();
            assertThat(permit.isValid()).isTrue();
            assertThat(plain.inspect(name + ":y").holders()).hasSize(1);
            assertThat(mutex.isValid()).isTrue();
            assertThat(read.isValid()).isTrue();
        }
    }
}
