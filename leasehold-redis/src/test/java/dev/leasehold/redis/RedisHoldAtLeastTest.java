package dev.leasehold.redis;

import dev.leasehold.DistributedLock;
import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import dev.leasehold.ReleaseStatus;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Hold-at-least on one real redis-server beyond the shared contract ({@link RedisHoldAtLeastContractTest}):
 * the key's ttl after an early release, and a read lease kept against a writer.
 */
class RedisHoldAtLeastTest {

    @RegisterExtension
    static final TestServer<RedisServer> redis = TestServer.perClass(() -> RedisServer.builder().start());

    @Test
    void anEarlyReleaseSetsTheKeysTtlToWhatRemains() throws Exception {
        try (RedisLockClient client = RedisLocks.connect(redis.get().uri())) {
            Lease lease = client.lock("hold:pttl", LockOptions.watchdog(Duration.ofSeconds(30))
                    .holdAtLeast(Duration.ofSeconds(2))).acquire(Duration.ofSeconds(5));
            lease.release();
            long pttl = (Long) redis.get().command("PTTL", "hold:pttl");
            assertThat(pttl).as("shortened from the 30 s watchdog ttl to what is left of 2 s").isBetween(1L, 2_000L);
        }
    }

    @Test
    void aReadLeaseIsKeptAgainstAWriter() throws Exception {
        try (RedisLockClient holder = RedisLocks.connect(redis.get().uri());
             RedisLockClient writer = RedisLocks.connect(redis.get().uri())) {
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
}
