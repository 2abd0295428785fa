package dev.leasehold.zookeeper;

import dev.leasehold.DistributedLock;
import dev.leasehold.Lease;
import dev.leasehold.LockClient;
import dev.leasehold.LockOptions;
import dev.leasehold.ReleaseStatus;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Hold-at-least on the shared three-server ensemble beyond the shared contract
 * ({@link ZooKeeperHoldAtLeastContractTest}): a read lease kept against a writer, and the
 * {@link KeptMarker}'s clean-up.
 */
@Tag("faults")
class ZooKeeperHoldAtLeastTest {

    private static LockClient connect() {
        return TestClients.connect(Ensemble.shared());
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
            assertThat(writer.readWriteLock("hold:read").readLock().tryAcquire(Duration.ZERO))
                    .as("a kept read lease keeps only exclusive kinds out").isPresent().get()
                    .satisfies(Lease::release);
            Optional<Lease> next = write.tryAcquire(Duration.ofSeconds(6));
            assertThat(next).isPresent();
            // On whichever clock says more passed: the server's expiry may count wall-clock time.
            assertThat(Math.max((System.nanoTime() - start) / 1_000_000, System.currentTimeMillis() - startWall))
                    .isGreaterThanOrEqualTo(1_495);
            assertThat(next.get().token()).isGreaterThan(read.token());
            next.get().release();
        }
    }

    @Test
    void theMarkerReplacesTheNodeAndIsDeletedOnceItEnded() throws Exception {
        String directory = LockPaths.directory("hold:cleanup");
        try (ZooKeeperLockClient holder = TestClients.connect(Ensemble.shared());
             CuratorFramework admin = CuratorFrameworkFactory.newClient(Ensemble.shared().directConnectString(),
                     new RetryOneTime(100))) {
            admin.start();
            Lease lease = holder.lock("hold:cleanup", LockOptions.defaults().holdAtLeast(Duration.ofMillis(800)))
                    .acquire(Duration.ofSeconds(5));
            lease.release();
            // The admin's server may lag the leader (ZooKeeper reads are not linearizable): read until it caught up.
            List<String> children = admin.getChildren().forPath(directory);
            for (int tries = 0; tries < 20 && children.stream().noneMatch(child -> KeptMarker.parse(child).isPresent()); tries++) {
                Thread.sleep(20);
                children = admin.getChildren().forPath(directory);
            }
            assertThat(children).as("the lease's node replaced by one marker: %s", children).hasSize(1)
                    .allSatisfy(child -> assertThat(KeptMarker.parse(child)).isPresent());
            // Due at 800 ms after the acquire; read until then plus room for a loaded machine.
            String marker = directory + "/" + children.get(0);
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(6);
            while (admin.checkExists().forPath(marker) != null && System.nanoTime() < until) {
                Thread.sleep(50);
            }
            assertThat(admin.checkExists().forPath(marker)).as("the releasing client deletes the ended marker").isNull();
        }
    }
}
