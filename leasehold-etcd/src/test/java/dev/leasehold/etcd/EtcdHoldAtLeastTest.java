package dev.leasehold.etcd;

import dev.leasehold.DistributedLock;
import dev.leasehold.Lease;
import dev.leasehold.LockClient;
import dev.leasehold.LockOptions;
import dev.leasehold.ReleaseStatus;
import dev.leasehold.engine.EngineSemaphore;
import dev.leasehold.launcher.EtcdCluster;
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
 * Hold-at-least on a real three-member etcd cluster: the mutex (this class), a one-permit
 * semaphore (nested), and a read lease kept against a writer. The kept key lives on a new etcd
 * lease, so whole seconds rounded up and etcd's expiry timer may free it a little later.
 */
@Tag("faults")
class EtcdHoldAtLeastTest extends HoldAtLeastContract {

    private static EtcdCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = EtcdCluster.start(3);
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    @Override
    protected LockClient connect() {
        return EtcdLocks.connect(cluster.endpoints());
    }

    @Override
    protected AutoCloseable pauseBackend() {
        cluster.pauseAll();
        return cluster::resumeAll;
    }

    /** Whole seconds rounded up, etcd's minimum lease TTL and its 500 ms expiry timer. */
    @Override
    protected Duration serverExpiryGranularity() {
        return Duration.ofMillis(2_500);
    }

    @Test
    void aReadLeaseIsKeptAgainstAWriter() throws Exception {
        try (LockClient holder = connect(); LockClient writer = connect()) {
            long start = System.nanoTime();
            long startWall = System.currentTimeMillis();
            Lease read = holder.readWriteLock("hold:read", LockOptions.defaults().holdAtLeast(Duration.ofMillis(1_500)))
                    .readLock().acquire(Duration.ofSeconds(5));
            Thread.sleep(100);
            assertThat(read.release()).isEqualTo(ReleaseStatus.RELEASED);
            DistributedLock write = writer.readWriteLock("hold:read").writeLock();
            assertThat(write.tryAcquire(Duration.ZERO)).isEmpty();
            Optional<Lease> next = write.tryAcquire(Duration.ofSeconds(8));
            assertThat(next).isPresent();
            // On whichever clock says more passed: the server's expiry may count wall-clock time.
            assertThat(Math.max((System.nanoTime() - start) / 1_000_000, System.currentTimeMillis() - startWall))
                    .isGreaterThanOrEqualTo(1_495);
            assertThat(next.get().token()).isGreaterThan(read.token());
            next.get().release();
        }
    }

    @Nested
    class Semaphore extends HoldAtLeastContract {
        @Override
        protected LockClient connect() {
            return EtcdHoldAtLeastTest.this.connect();
        }

        @Override
        protected AutoCloseable pauseBackend() {
            return EtcdHoldAtLeastTest.this.pauseBackend();
        }

        @Override
        protected Duration serverExpiryGranularity() {
            return EtcdHoldAtLeastTest.this.serverExpiryGranularity();
        }

        @Override
        protected DistributedLock lock(LockClient client, String name, LockOptions options) {
            return ((EngineSemaphore) client.semaphore(name, 1, options)).lock();
        }
    }
}
