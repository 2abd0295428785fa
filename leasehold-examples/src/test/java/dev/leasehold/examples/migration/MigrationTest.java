package dev.leasehold.examples.migration;

import dev.leasehold.DistributedLock;
import dev.leasehold.DistributedReadWriteLock;
import dev.leasehold.DistributedSemaphore;
import dev.leasehold.Lease;
import dev.leasehold.LockClient;
import dev.leasehold.LockOptions;
import dev.leasehold.LockTimeoutException;
import dev.leasehold.PermitsMismatchException;
import dev.leasehold.ReentrantLeaseLock;
import dev.leasehold.ReleaseStatus;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.redis.RedisLocks;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RReadWriteLock;
import org.redisson.api.RSemaphore;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * docs/migration-from-redisson.md: each ported example runs on both sides, and each row of its
 * semantics column is shown here on the real thing (Redisson 4.0 and Leasehold, each on a
 * redis-server of its own: the two keep different types under one key).
 */
class MigrationTest {

    private static RedisServer redissonServer;
    private static RedisServer leaseholdServer;
    private static RedissonClient redisson;
    private static LockClient locks;

    /** Records what the examples ran, and with which tokens. */
    private static final class Recorded implements Work {
        final List<Long> tokens = new ArrayList<>();
        int unfenced;

        @Override
        public void run() {
            unfenced++;
        }

        @Override
        public void run(long token) {
            tokens.add(token);
        }
    }

    @BeforeAll
    static void start() {
        redissonServer = RedisServer.builder().start();
        leaseholdServer = RedisServer.builder().start();
        Config config = new Config();
        config.useSingleServer().setAddress(redissonServer.uri());
        redisson = Redisson.create(config);
        locks = RedisLocks.connect(leaseholdServer.uri());
    }

    @AfterAll
    static void stop() {
        if (locks != null) {
            locks.close();
        }
        if (redisson != null) {
            redisson.shutdown();
        }
        if (leaseholdServer != null) {
            leaseholdServer.close();
        }
        if (redissonServer != null) {
            redissonServer.close();
        }
    }

    @Test
    void everyPortedExampleRunsOnBothSides() throws Exception {
        Recorded before = new Recorded();
        RedissonSide.lockWithLeaseTime(redisson, before);
        RedissonSide.readWriteLock(redisson, before);
        RedissonSide.semaphore(redisson, before);
        RedissonSide.permitExpirableSemaphore(redisson, before);
        RedissonSide.fencedLock(redisson, before);
        RedissonSide.multiLock(redisson, before);
        assertThat(before.unfenced).isEqualTo(6);
        assertThat(before.tokens).hasSize(1);

        Recorded after = new Recorded();
        LeaseholdSide.lockWithLeaseTime(locks, after);
        LeaseholdSide.watchdog(locks, after);
        LeaseholdSide.reentrant(locks, after);
        LeaseholdSide.readWriteLock(locks, after);
        LeaseholdSide.semaphore(locks, after);
        LeaseholdSide.permitExpirableSemaphore(locks, after);
        LeaseholdSide.fencedLock(locks, after);
        LeaseholdSide.multiLock(locks, after);
        assertThat(after.unfenced).as("only the read lease's work is unfenced").isEqualTo(1);
        assertThat(after.tokens).hasSize(8).allSatisfy(token -> assertThat(token).isPositive());
        assertThat(after.tokens.subList(0, 3)).as("order:123's tokens, lease after lease").isSorted();
    }

    @Test
    void acquireIsNotReentrantWhereRedissonsLockIs() throws Exception {
        DistributedLock lock = locks.lock("nested");
        try (Lease outer = lock.acquire(Duration.ofSeconds(5))) {
            long start = System.nanoTime();
            Optional<Lease> inner = lock.tryAcquire(Duration.ofMillis(300));
            assertThat(inner).as("the nested call is another acquirer").isEmpty();
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("it waited its whole wait")
                    .isGreaterThanOrEqualTo(290);
            assertThatThrownBy(() -> lock.acquire(Duration.ofMillis(100))).isInstanceOf(LockTimeoutException.class)
                    .hasMessageContaining("held by this client");
            assertThat(outer.isValid()).isTrue();
        }

        RLock rlock = redisson.getLock("nested");
        rlock.lock();
        try {
            assertThat(rlock.tryLock(300, TimeUnit.MILLISECONDS)).as("Redisson re-enters").isTrue();
            assertThat(rlock.getHoldCount()).isEqualTo(2);
            rlock.unlock();
        } finally {
            rlock.unlock();
        }
    }

    @Test
    void theJavaLockViewIsReentrantAndItsTokenComesFromCurrentLease() {
        ReentrantLeaseLock lock = locks.lock("reentrant").asJavaLock();
        lock.lock();
        try {
            long outer = lock.currentLease().orElseThrow().token();
            lock.lock();
            assertThat(lock.holdCount()).isEqualTo(2);
            assertThat(lock.currentLease().orElseThrow().token()).as("no new token on re-entry").isEqualTo(outer);
            lock.unlock();
        } finally {
            lock.unlock();
        }
        assertThat(lock.currentLease()).isEmpty();
    }

    @Test
    void aLeaseTimeOfMinusOneIsRefusedWhereRedissonTakesItForTheWatchdog() throws Exception {
        assertThatThrownBy(() -> LockOptions.fixedLease(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("leaseTime");
        assertThat(LockOptions.defaults().isWatchdog()).as("the default is the watchdog").isTrue();

        RLock rlock = redisson.getLock("minus-one");
        assertThat(rlock.tryLock(0, -1, TimeUnit.SECONDS)).isTrue();
        try {
            assertThat(rlock.remainTimeToLive()).as("Redisson's watchdog, 30 s").isBetween(1L, 30_000L);
        } finally {
            rlock.unlock();
        }
    }

    @Test
    void aDowngradeIsRefusedWhereRedissonAllowsIt() {
        DistributedReadWriteLock prices = locks.readWriteLock("downgrade");
        ReentrantLeaseLock write = prices.writeLock().asJavaLock();
        write.lock();
        try {
            assertThatThrownBy(() -> prices.readLock().asJavaLock().lock())
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("release the write lock first");
        } finally {
            write.unlock();
        }

        RReadWriteLock rw = redisson.getReadWriteLock("downgrade");
        rw.writeLock().lock();
        try {
            assertThat(rw.readLock().tryLock()).as("Redisson reads under its own write lock").isTrue();
            rw.readLock().unlock();
        } finally {
            rw.writeLock().unlock();
        }
    }

    @Test
    void unlockAfterExpiryIsSilentWhereRedissonThrows() throws Exception {
        Lease lease = locks.lock("expired", LockOptions.fixedLease(Duration.ofMillis(200))).acquire(Duration.ZERO);
        ReentrantLeaseLock view = locks.lock("expired-view", LockOptions.fixedLease(Duration.ofMillis(200))).asJavaLock();
        view.lock();
        Thread.sleep(400);
        assertThat(lease.isValid()).isFalse();
        assertThat(lease.release()).isEqualTo(ReleaseStatus.ALREADY_LOST);
        assertThat(lease.releaseReport()).hasValueSatisfying(report ->
                assertThat(report.status()).isEqualTo(ReleaseStatus.ALREADY_LOST));
        assertThatCode(view::unlock).doesNotThrowAnyException();

        RLock rlock = redisson.getLock("expired");
        rlock.lock(200, TimeUnit.MILLISECONDS);
        Thread.sleep(400);
        assertThatThrownBy(rlock::unlock).isInstanceOf(IllegalMonitorStateException.class);
    }

    @Test
    void aSemaphoreKeepsItsNumberWhileHeldWhereRedissonAddsPermits() throws Exception {
        DistributedSemaphore pool = locks.semaphore("pool", 3);
        try (Lease permit = pool.acquire(Duration.ZERO)) {
            assertThat(permit.isValid()).isTrue();
            assertThatThrownBy(() -> locks.semaphore("pool", 5).acquire(Duration.ZERO))
                    .isInstanceOfAny(IllegalArgumentException.class, PermitsMismatchException.class);
        }
        try (Lease permit = locks.semaphore("pool", 5).acquire(Duration.ZERO)) {
            assertThat(locks.semaphore("pool", 5).available()).as("a new number once none is held").isEqualTo(4);
        }

        RSemaphore rsemaphore = redisson.getSemaphore("pool");
        rsemaphore.trySetPermits(3);
        rsemaphore.acquire(2);
        rsemaphore.addPermits(2);
        assertThat(rsemaphore.availablePermits()).as("Redisson: 3 - 2 + 2").isEqualTo(3);
        rsemaphore.release(2);
    }
}
