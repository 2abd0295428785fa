package dev.leasehold.zookeeper;

import dev.leasehold.LockClientClosedException;
import dev.leasehold.LockUnavailableException;
import dev.leasehold.NodeFailure;
import dev.leasehold.launcher.FreePorts;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Connecting, bad input at the door, and what a client leaves behind (nothing). */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ZooKeeperConnectionTest {

    /** Threads Curator, the ZooKeeper client and this module start. */
    private static final Pattern CLIENT_THREADS =
            Pattern.compile("Curator-.*|.*-SendThread\\(.*|.*-EventThread|leasehold-zookeeper-.*|leasehold-renewal-.*");

    private static Ensemble ensemble;

    @BeforeAll
    static void startEnsemble() {
        ensemble = Ensemble.shared();
    }

    @Test
    void anUnreachableEnsembleIsATypedErrorAndLeavesNoThread() throws Exception {
        Set<Long> before = clientThreads();
        String nobody = "127.0.0.1:" + FreePorts.find() + ",127.0.0.1:" + FreePorts.find();
        long start = System.nanoTime();
        assertThatThrownBy(() -> ZooKeeperLocks.builder().connectString(nobody)
                .connectTimeout(Duration.ofMillis(800)).build())
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining(nobody).hasMessageContaining("800 ms").hasMessageContaining("reachable")
                .satisfies(error -> assertThat(((LockUnavailableException) error).failures())
                        .extracting(NodeFailure::kind).containsExactly(NodeFailure.Kind.TIMED_OUT));
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(5_000);
        assertNoThreadLeftBesides(before);
    }

    @Test
    void aChrootThatDoesNotExistIsRefusedWithWhatToDo() throws Exception {
        Set<Long> before = clientThreads();
        assertThatThrownBy(() -> ZooKeeperLocks.connect(ensemble.connectString() + "/no-such-chroot"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("chroot /no-such-chroot does not exist").hasMessageContaining("create it");
        assertThatThrownBy(() -> ZooKeeperLocks.builder().connectString(ensemble.connectString()).chroot("/missing").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("/missing");
        assertNoThreadLeftBesides(before);
    }

    @Test
    void anExistingChrootHoldsTheLocks() throws Exception {
        try (CuratorFramework admin = CuratorFrameworkFactory.newClient(ensemble.directConnectString(), new RetryOneTime(100))) {
            admin.start();
            admin.create().orSetData().forPath("/tenant-a");
            try (ZooKeeperLockClient locks = ZooKeeperLocks.builder().connectString(ensemble.connectString())
                    .chroot("/tenant-a").build()) {
                locks.lock("job").acquire(Duration.ofSeconds(5)).release();
            }
            assertThat(admin.checkExists().forPath("/tenant-a" + LockPaths.ROOT)).isNotNull();
        }
    }

    @Test
    void badSettingsAreRejectedWithTheArgumentAndTheLimit() {
        assertThatThrownBy(() -> ZooKeeperLocks.connect(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("connectString");
        assertThatThrownBy(() -> ZooKeeperLocks.connect("  ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("connectString");
        assertThatThrownBy(() -> ZooKeeperLocks.builder().build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("connectString is required");
        assertThatThrownBy(() -> ZooKeeperLocks.builder().chroot("app")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("chroot");
        assertThatThrownBy(() -> ZooKeeperLocks.builder().connectString("h:1/a").chroot("/b").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("already has a chroot");
        assertThatThrownBy(() -> ZooKeeperLocks.builder().sessionTimeout(Duration.ofMillis(10)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("sessionTimeout").hasMessageContaining("at least");
        assertThatThrownBy(() -> ZooKeeperLocks.builder().connectTimeout(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("connectTimeout").hasMessageContaining("negative");
        assertThatThrownBy(() -> ZooKeeperLocks.builder().connectString("h:1").operationTimeout(Duration.ZERO).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("operationTimeout");
        assertThatThrownBy(() -> ZooKeeperLocks.using(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("curator");
        try (CuratorFramework unstarted = CuratorFrameworkFactory.newClient(ensemble.connectString(), new RetryOneTime(100))) {
            assertThatThrownBy(() -> ZooKeeperLocks.using(unstarted)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("start()");
        }
    }

    @Test
    void aClientOverABorrowedFrameworkLeavesItOpenAndFreesItsLocksOnClose() throws Exception {
        Set<Long> before = clientThreads();
        try (CuratorFramework curator = CuratorFrameworkFactory.newClient(ensemble.connectString(), new RetryOneTime(100))) {
            curator.start();
            ZooKeeperLockClient locks = ZooKeeperLocks.using(curator);
            String name = "borrowed:" + System.nanoTime();
            locks.lock(name).acquire(Duration.ofSeconds(5));
            locks.close();
            assertThat(curator.getState()).isEqualTo(CuratorFrameworkState.STARTED);
            assertThat(curator.getChildren().forPath(LockPaths.directory(name))).as("the lease's node was deleted").isEmpty();
            assertThatThrownBy(() -> locks.lock(name)).isInstanceOf(LockClientClosedException.class);
        }
        assertNoThreadLeftBesides(before);
    }

    @Test
    void closeEndsEveryThreadTheClientStarted() throws Exception {
        Set<Long> before = clientThreads();
        ZooKeeperLockClient locks = TestClients.connect(ensemble);
        locks.lock("threads").acquire(Duration.ofSeconds(5));
        locks.fairLock("threads-fair").acquire(Duration.ofSeconds(5));
        assertThat(clientThreads()).hasSizeGreaterThan(before.size());
        locks.close();
        assertNoThreadLeftBesides(before);
    }

    private static Set<Long> clientThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive)
                .filter(thread -> CLIENT_THREADS.matcher(thread.getName()).matches())
                .map(Thread::getId).collect(Collectors.toSet());
    }

    private static void assertNoThreadLeftBesides(Set<Long> before) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        Set<String> left;
        do {
            left = Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive)
                    .filter(thread -> CLIENT_THREADS.matcher(thread.getName()).matches())
                    .filter(thread -> !before.contains(thread.getId()))
                    .map(Thread::getName).collect(Collectors.toSet());
            if (left.isEmpty()) {
                return;
            }
            Thread.sleep(50);
        } while (System.nanoTime() < deadline);
        assertThat(left).as("threads left running after close").isEmpty();
    }
}
