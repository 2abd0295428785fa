package dev.leasehold.zookeeper;

import dev.leasehold.LeaderInfo;
import dev.leasehold.Lease;
import dev.leasehold.LockUnavailableException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * An {@code exists} answered with a connection loss says nothing about the node: ZooKeeper leaves
 * the stat null then, as it does for a node that is gone, so the result code must be read first.
 * A waiter must not take its predecessor for released (and list and watch again at once, over and
 * over), the inspector must not report a holder's token as 0, and a leader's record must not be
 * refused as if its term had ended: all fail, loudly.
 *
 * <p>The fault: the client's framework is given ({@link ZooKeeperLocks#using}) a ZooKeeper handle
 * that answers every asynchronous {@code exists} on a lock's node with {@code CONNECTIONLOSS}, as
 * when the connection drops with the request; every other call goes to the real ensemble.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ExistsConnectionLossTest {

    private final Ensemble ensemble = Ensemble.shared();
    private final AtomicBoolean losing = new AtomicBoolean();
    private final AtomicInteger lost = new AtomicInteger();

    /** A handle whose asynchronous {@code exists} on a node in a lock's directory is lost while {@link #losing}. */
    private final class LosingExists extends ZooKeeper {

        LosingExists(String connectString, int sessionTimeout, Watcher watcher, boolean canBeReadOnly)
                throws IOException {
            super(connectString, sessionTimeout, watcher, canBeReadOnly);
        }

        private boolean lose(String path, AsyncCallback.StatCallback callback, Object context) {
            String locks = LockPaths.directory("");
            int directory = path.indexOf(locks);
            if (!losing.get() || directory < 0 || path.indexOf('/', directory + locks.length()) < 0) {
                return false;
            }
            lost.incrementAndGet();
            CompletableFuture.runAsync(() -> callback.processResult(KeeperException.Code.CONNECTIONLOSS.intValue(),
                    path, context, null));
            return true;
        }

        @Override
        public void exists(String path, Watcher watcher, AsyncCallback.StatCallback callback, Object context) {
            if (!lose(path, callback, context)) {
                super.exists(path, watcher, callback, context);
            }
        }

        @Override
        public void exists(String path, boolean watch, AsyncCallback.StatCallback callback, Object context) {
            if (!lose(path, callback, context)) {
                super.exists(path, watch, callback, context);
            }
        }
    }

    private CuratorFramework losingFramework() {
        CuratorFramework curator = CuratorFrameworkFactory.builder().connectString(ensemble.connectString())
                .sessionTimeoutMs((int) TestClients.SESSION_TIMEOUT.toMillis())
                .retryPolicy(new RetryNTimes(0, 0))
                .zookeeperFactory(LosingExists::new)
                .build();
        curator.start();
        return curator;
    }

    private static String name(String what) {
        return "exists-loss-" + what + ":" + System.nanoTime();
    }

    @Test
    void aWaiterWhoseWatchOnItsPredecessorIsLostFailsInsteadOfTakingItForReleased() throws Exception {
        String name = name("watch");
        try (CuratorFramework curator = losingFramework();
             ZooKeeperLockClient waiter = ZooKeeperLocks.using(curator);
             ZooKeeperLockClient holder = TestClients.connect(ensemble);
             Lease held = holder.lock(name).acquire(Duration.ofSeconds(5))) {
            losing.set(true);
            assertThatThrownBy(() -> waiter.lock(name).acquire(Duration.ofSeconds(3)))
                    .as("the lost watch is a failure, loud")
                    .isInstanceOf(LockUnavailableException.class).hasMessageContaining("CONNECTIONLOSS");
            assertThat(lost.get()).as("no listing and watching again at once, over and over").isLessThan(50);
            assertThat(held.isValid()).isTrue();
        }
    }

    @Test
    void theInspectorFailsRatherThanReportAHoldersTokenAsZero() throws Exception {
        String name = name("inspect");
        try (CuratorFramework curator = losingFramework();
             ZooKeeperLockClient inspector = ZooKeeperLocks.using(curator);
             ZooKeeperLockClient holder = TestClients.connect(ensemble);
             Lease held = holder.lock(name).acquire(Duration.ofSeconds(5))) {
            assertThat(inspector.inspect(name).lastToken()).hasValue(held.token());
            losing.set(true);
            assertThatThrownBy(() -> inspector.inspect(name))
                    .isInstanceOf(LockUnavailableException.class).hasMessageContaining("CONNECTIONLOSS");
        }
    }

    /** The write of a leader record is conditional on an exists of the term's node: its loss is no refusal. */
    @Test
    void aLeaderRecordWhoseExistsIsLostFailsRatherThanBeRefused() throws Exception {
        String name = name("publish");
        try (CuratorFramework curator = losingFramework();
             ZooKeeperLockClient holder = TestClients.connect(ensemble);
             Lease held = holder.lock(name).acquire(Duration.ofSeconds(5))) {
            ZooKeeperLeaderRecords records = new ZooKeeperLeaderRecords(curator, "the test ensemble");
            LeaderInfo term = new LeaderInfo("leader-1", held.token(), Optional.empty());
            losing.set(true);
            assertThatThrownBy(() -> records.publish(name, term, Duration.ofSeconds(10)).join())
                    .isInstanceOf(CompletionException.class).cause()
                    .isInstanceOf(LockUnavailableException.class).hasMessageContaining("CONNECTIONLOSS");
            losing.set(false);
            assertThat(records.publish(name, term, Duration.ofSeconds(10)).join()).as("the term's own node").isTrue();
        }
    }
}
