package dev.leasehold.redis;

import dev.leasehold.DistributedLock;
import dev.leasehold.Lease;
import dev.leasehold.LockClient;
import dev.leasehold.LockOptions;
import dev.leasehold.ReleaseStatus;
import dev.leasehold.engine.EngineSemaphore;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.testkit.contract.HoldAtLeastContract;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Hold-at-least on one real redis-server, for the mutex (this class) and, nested, the fair lock,
 * the write lock and a one-permit semaphore (the lease-as-key and lease-as-member scripts), plus a
 * read lease kept against a writer.
 */
class RedisHoldAtLeastTest extends HoldAtLeastContract {

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
    protected LockClient connect() {
        return RedisLocks.connect(server.uri());
    }

    @Override
    protected AutoCloseable pauseBackend() {
        server.pause();
        return server::resume;
    }

    @Test
    void anEarlyReleaseSetsTheKeysTtlToWhatRemains() throws Exception {
        try (RedisLockClient client = RedisLocks.connect(server.uri())) {
            Lease lease = client.lock("hold:pttl", LockOptions.watchdog(Duration.ofSeconds(30))
                    .holdAtLeast(Duration.ofSeconds(2))).acquire(Duration.ofSeconds(5));
            lease.release();
            long pttl = (Long) server.command("PTTL", "hold:pttl");
            assertThat(pttl).as("shortened from the 30 s watchdog ttl to what is left of 2 s").isBetween(1L, 2_000L);
        }
    }

    @Test
    void aReadLeaseIsKeptAgainstAWriter() throws Exception {
        try (RedisLockClient holder = RedisLocks.connect(server.uri());
             RedisLockClient writer = RedisLocks.connect(server.uri())) {
            long start = System.nanoTime();
            long startWall = System.currentTimeMillis();
            Lease read = holder.readWriteLock("hold:read", LockOptions.defaults().holdAtLeast(Duration.ofMillis(1_500)))
                    .readLock().acquire(Duration.ofSeconds(5));
            Thread.sleep(100);
            assertThat(read.release()).isEqualTo(ReleaseStatus.RELEASED);
            DistributedLock write = writer.readWriteLock("hold:read").writeLock();
            assertThat(write.tryAcquire(Duration.ZERO)).isEmpty();
            Optional<Lease> next = write.tryAcquire(Duration.ofSeconds(6));
            assertThat(next).isPresent();
            // On whichever clock says more passed: the server's expiry may count wall-clock time.
            assertThat(Math.max((System.nanoTime() - start) / 1_000_000, System.currentTimeMillis() - startWall))
                    .isGreaterThanOrEqualTo(1_495);
            assertThat(next.get().token()).isGreaterThan(read.token());
            next.get().release();
        }
    }

    @Nested
    @Tag("faults")
    class FairLock extends HoldAtLeastContract {
        @Override
        protected LockClient connect() {
            return RedisHoldAtLeastTest.this.connect();
        }

        @Override
        protected AutoCloseable pauseBackend() {
            return RedisHoldAtLeastTest.this.pauseBackend();
        }

        @Override
        protected DistributedLock lock(LockClient client, String name, LockOptions options) {
            return client.fairLock(name, options);
        }
    }

    @Nested
    @Tag("faults")
    class WriteLock extends HoldAtLeastContract {
        @Override
        protected LockClient connect() {
            return RedisHoldAtLeastTest.this.connect();
        }

        @Override
        protected AutoCloseable pauseBackend() {
            return RedisHoldAtLeastTest.this.pauseBackend();
        }

        @Override
        protected DistributedLock lock(LockClient client, String name, LockOptions options) {
            return client.readWriteLock(name, options).writeLock();
        }
    }

    @Nested
    @Tag("faults")
    class Semaphore extends HoldAtLeastContract {
        @Override
        protected LockClient connect() {
            return RedisHoldAtLeastTest.this.connect();
        }

        @Override
        protected AutoCloseable pauseBackend() {
            return RedisHoldAtLeastTest.this.pauseBackend();
        }

        @Override
        protected DistributedLock lock(LockClient client, String name, LockOptions options) {
            return ((EngineSemaphore) client.semaphore(name, 1, options)).lock();
        }
    }
}
