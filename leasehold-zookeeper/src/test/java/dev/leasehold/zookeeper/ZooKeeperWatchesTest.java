package dev.leasehold.zookeeper;

import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A waiter's re-checks (the engine's capped re-check interval) must not pile up {@code exists}
 * watchers on the node it waits for (issue 19, item 8: 1 → 40 in 30 s). The server keeps one
 * watch per path and connection whatever the client registers, so the count that grows is the
 * client's: read from the ZooKeeper client's watch manager.
 */
@Tag("faults")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ZooKeeperWatchesTest {

    @Test
    void aWaiterKeepsOneWatcherOnTheNodeAheadWhateverItsReChecks() throws Exception {
        Ensemble ensemble = Ensemble.shared();
        String name = "watches:" + System.nanoTime();
        try (ZooKeeperLockClient holderClient = TestClients.connect(ensemble);
             CuratorFramework curator = CuratorFrameworkFactory.newClient(ensemble.directConnectString(),
                     (int) TestClients.SESSION_TIMEOUT.toMillis(), 5_000, new RetryOneTime(100))) {
            curator.start();
            curator.blockUntilConnected(10, TimeUnit.SECONDS);
            try (ZooKeeperLockClient waiterClient = ZooKeeperLocks.using(curator);
                 Lease held = holderClient.lock(name).acquire(Duration.ofSeconds(5))) {
                CompletableFuture<Optional<Lease>> waiting = CompletableFuture.supplyAsync(() ->
                        waiterClient.lock(name, LockOptions.watchdog(Duration.ofSeconds(3))).tryAcquire(Duration.ofSeconds(8)));
                int most = 0;
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(7);
                while (System.nanoTime() < until) {
                    most = Math.max(most, existWatchers(curator, LockPaths.directory(name)));
                    Thread.sleep(100);
                }
                System.out.println("most exists watchers of the waiter at once: " + most);
                assertThat(most).as("the waiter watched the holder's node").isPositive();
                assertThat(most).as("exists watchers on the lock's nodes, after several re-checks").isEqualTo(1);
                held.release();
                waiting.get(10, TimeUnit.SECONDS).orElseThrow().release();
            }
        }
    }

    @Test
    void aSemaphoreWaiterBlockedByTheCountKeepsOneWatcherOnTheDirectory() throws Exception {
        Ensemble ensemble = Ensemble.shared();
        String name = "watches:permits:" + System.nanoTime();
        try (ZooKeeperLockClient holderClient = TestClients.connect(ensemble);
             CuratorFramework curator = CuratorFrameworkFactory.newClient(ensemble.directConnectString(),
                     (int) TestClients.SESSION_TIMEOUT.toMillis(), 5_000, new RetryOneTime(100))) {
            curator.start();
            curator.blockUntilConnected(10, TimeUnit.SECONDS);
            try (ZooKeeperLockClient waiterClient = ZooKeeperLocks.using(curator);
                 Lease one = holderClient.semaphore(name, 2).acquire(Duration.ofSeconds(5));
                 Lease two = holderClient.semaphore(name, 2).acquire(Duration.ofSeconds(5))) {
                CompletableFuture<Optional<Lease>> waiting = CompletableFuture.supplyAsync(() ->
                        waiterClient.semaphore(name, 2, LockOptions.watchdog(Duration.ofSeconds(3)))
                                .tryAcquire(Duration.ofSeconds(8)));
                int most = 0;
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(7);
                while (System.nanoTime() < until) {
                    most = Math.max(most, watchers(curator, "getChildWatches", LockPaths.directory(name), true));
                    Thread.sleep(100);
                }
                System.out.println("most children watchers of the permit waiter at once: " + most);
                assertThat(most).as("the waiter watched the directory").isPositive();
                assertThat(most).as("children watchers on the lock's directory, after several re-checks").isEqualTo(1);
                one.release();
                waiting.get(10, TimeUnit.SECONDS).orElseThrow().release();
            }
        }
    }

    private static int existWatchers(CuratorFramework curator, String directory) throws Exception {
        return watchers(curator, "getDataWatches", directory, false);
    }

    /**
     * The client's watchers of one kind of its watch manager ({@code getDataWatches}: an
     * {@code exists} on a node that exists is a data watch; {@code getChildWatches}) on
     * {@code directory} itself or on the nodes under it.
     */
    @SuppressWarnings("unchecked")
    private static int watchers(CuratorFramework curator, String kind, String directory, boolean onItself)
            throws Exception {
        ZooKeeper zooKeeper = curator.getZookeeperClient().getZooKeeper();
        Method manager = ZooKeeper.class.getDeclaredMethod("getWatchManager");
        manager.setAccessible(true);
        Object watches = manager.invoke(zooKeeper);
        Method exists = watches.getClass().getDeclaredMethod(kind);
        exists.setAccessible(true);
        Map<String, Set<Watcher>> byPath = (Map<String, Set<Watcher>>) exists.invoke(watches);
        synchronized (byPath) {
            return byPath.entrySet().stream().filter(entry -> onItself ? entry.getKey().equals(directory)
                            : entry.getKey().startsWith(directory + "/"))
                    .mapToInt(entry -> entry.getValue().size()).sum();
        }
    }
}
