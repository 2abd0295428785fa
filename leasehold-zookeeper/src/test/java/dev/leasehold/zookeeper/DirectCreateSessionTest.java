package dev.leasehold.zookeeper;

import dev.leasehold.Lease;
import dev.leasehold.engine.LeaseEngine;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A direct create ({@link DirectCalls}) whose answer was lost is found again by the holder id in
 * its node's name, but only a node of the client's current session may become the lease: a node
 * the acquisition made on an earlier session lives only until the servers expire that session,
 * which can be after this client has moved on to a new one (Curator itself resets a handle that
 * stayed disconnected longer than the session timeout, and the servers expire the old session on
 * their own tick). A lease on such a node would end, without a word, when the servers expire the
 * old session, and another client would take the lock while this one still holds it. Curator's
 * protected mode guards the same case ({@code ProtectedMode.validateFoundNode}).
 *
 * <p>The fault: the client's own framework (direct calls on) gets a handle whose asynchronous
 * create, while {@link #diverting}, makes the node on another live session (standing in for the
 * earlier session the servers have not expired yet) and answers {@code CONNECTIONLOSS}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DirectCreateSessionTest {

    private final Ensemble ensemble = Ensemble.shared();
    private final AtomicBoolean diverting = new AtomicBoolean();
    /** The other session's handle the diverted creates go to. */
    private final AtomicReference<ZooKeeper> otherSession = new AtomicReference<>();
    private final AtomicReference<String> divertedPath = new AtomicReference<>();

    /** A handle whose asynchronous create is made on {@link #otherSession} and answered as lost while {@link #diverting}. */
    private final class DivertingCreate extends ZooKeeper {

        DivertingCreate(String connectString, int sessionTimeout, Watcher watcher, boolean canBeReadOnly)
                throws IOException {
            super(connectString, sessionTimeout, watcher, canBeReadOnly);
        }

        @Override
        public void create(String path, byte[] data, List<ACL> acl, CreateMode createMode,
                           AsyncCallback.Create2Callback callback, Object context) {
            if (!diverting.getAndSet(false)) {
                super.create(path, data, acl, createMode, callback, context);
                return;
            }
            CompletableFuture.runAsync(() -> {
                try {
                    divertedPath.set(otherSession.get().create(path, data, acl, createMode));
                } catch (KeeperException | InterruptedException failed) {
                    throw new IllegalStateException(failed);
                }
                callback.processResult(KeeperException.Code.CONNECTIONLOSS.intValue(), path, context, null, null);
            });
        }
    }

    @Test
    void aLostCreatesNodeOfAnotherSessionNeverBecomesTheLease() throws Exception {
        String name = "direct-create-session:" + System.nanoTime();
        String directory = LockPaths.directory(name);
        CuratorFramework curator = CuratorFrameworkFactory.builder().connectString(ensemble.connectString())
                .sessionTimeoutMs((int) TestClients.SESSION_TIMEOUT.toMillis())
                .retryPolicy(new RetryNTimes(3, 100))
                .zookeeperFactory(DivertingCreate::new)
                .build();
        curator.start();
        assertThat(curator.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
        LockPaths.ensureRoot(curator, "the test ensemble", Duration.ofSeconds(5));
        try (CuratorFramework admin = CuratorFrameworkFactory.newClient(ensemble.directConnectString(),
                new RetryNTimes(3, 100));
             CuratorFramework other = CuratorFrameworkFactory.newClient(ensemble.directConnectString(),
                     new RetryNTimes(3, 100));
             // The client owns its framework, so that its hot path goes on the handle directly.
             ZooKeeperLockClient client = new ZooKeeperLockClient(new ZooKeeperBackend(curator, true,
                     "the test ensemble", TestClients.SESSION_TIMEOUT, Duration.ofSeconds(10), null, false),
                     LeaseEngine.Settings.defaults());
             ZooKeeperLockClient rival = TestClients.connect(ensemble)) {
            admin.start();
            other.start();
            other.blockUntilConnected(10, TimeUnit.SECONDS);
            admin.create().creatingParentContainersIfNeeded().forPath(directory + "/placeholder");
            otherSession.set(other.getZookeeperClient().getZooKeeper());
            diverting.set(true);
            try (Lease lease = client.lock(name).acquire(Duration.ofSeconds(10))) {
                assertThat(divertedPath.get()).as("the create was diverted").isNotNull();
                // The other session ends (as the servers expire an earlier session): its node goes.
                other.close();
                Optional<Lease> taken = rival.lock(name).tryAcquire(Duration.ofSeconds(1));
                taken.ifPresent(Lease::close);
                assertThat(taken).as("while the lease is held, no one else takes the lock").isEmpty();
                List<String> nodes = admin.getChildren().forPath(directory);
                String own = nodes.stream().filter(node -> !node.equals("placeholder")).findFirst().orElseThrow();
                Stat stat = admin.checkExists().forPath(directory + "/" + own);
                assertThat(stat.getEphemeralOwner()).as("the lease's node is the client's session's")
                        .isEqualTo(curator.getZookeeperClient().getZooKeeper().getSessionId());
                assertThat(lease.token()).isEqualTo(stat.getCzxid());
            }
            admin.delete().forPath(directory + "/placeholder");
        }
    }
}
