package dev.leasehold.zookeeper;

import dev.leasehold.DistributedLock;
import dev.leasehold.Lease;
import dev.leasehold.LockClient;
import dev.leasehold.LockOptions;
import dev.leasehold.testkit.contract.LateGrantContract;
import dev.leasehold.testkit.junit.Eventually;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An acquisition whose create reaches the servers while every reply is held (a paused link), for
 * longer than the lease's 1 s ttl. While the replies are held the client's session lives on (its
 * pings reach the servers), so its node stays and no rival is granted; once the node goes (deleted
 * here, as the session's expiry would) a rival is granted, and only then do the held answers
 * arrive. The lease the late answer brings, if any, is never valid while the rival holds: lost()
 * completes, a fence guard refuses it, lease-scoped work never runs on it, and its release leaves
 * the rival alone.
 * The cases are {@link LateGrantContract}'s.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ZooKeeperLateGrantTest extends LateGrantContract {

    private ZooKeeperLockClient cut;
    private ZooKeeperLockClient direct;
    private CuratorFramework admin;

    /** A client behind the held proxies whose 10 s session outlives the hold, one straight to the servers, and an admin. */
    @BeforeEach
    void connect() {
        Ensemble ensemble = Ensemble.shared();
        direct = open(ZooKeeperLocks.builder().connectString(ensemble.directConnectString())
                .sessionTimeout(TestClients.SESSION_TIMEOUT).connectTimeout(Duration.ofSeconds(10)).build());
        cut = open(ZooKeeperLocks.builder().connectString(ensemble.connectString())
                .sessionTimeout(Duration.ofSeconds(10)).connectTimeout(Duration.ofSeconds(10)).build());
        admin = open(CuratorFrameworkFactory.newClient(ensemble.directConnectString(), new RetryOneTime(100)));
        admin.start();
    }

    @AfterEach
    void heal() {
        Ensemble.shared().proxies().forEach(proxy -> proxy.pass());
    }

    @Override
    protected LockClient probe() {
        return direct;
    }

    /**
     * Holds every reply and starts {@code acquiring} on a lock of {@code name} with a 1 s ttl, waits
     * until its node is on the servers and 1.5 s more (past the attempt's local deadline), shows that
     * no rival is granted while the session lives, deletes the node (as the session's expiry would),
     * lets a rival take the lock, then lets the held answers through.
     */
    @Override
    protected Lease grantedAfterItsTtlWhileARivalHolds(String name, Consumer<DistributedLock> acquiring) throws Exception {
        String directory = LockPaths.directory(name);
        admin.create().creatingParentContainersIfNeeded().forPath(directory + "/placeholder");
        Ensemble.shared().proxies().forEach(proxy -> proxy.holdReplies());
        acquiring.accept(cut.lock(name, LockOptions.watchdog(Duration.ofSeconds(1))));
        Eventually.eventually(() -> nodes(directory).size() >= 1, "the create reaches the servers", Duration.ofSeconds(5));
        List<String> held = nodes(directory);
        Thread.sleep(1_500);
        assertThat(direct.lock(name).tryAcquire(Duration.ZERO)).as("no rival while the held session lives").isEmpty();
        for (String node : held) {
            admin.delete().forPath(directory + "/" + node);
        }
        Lease rival = direct.lock(name).acquire(Duration.ofSeconds(5));
        Ensemble.shared().proxies().forEach(proxy -> proxy.releaseReplies());
        return rival;
    }

    /** The acquisition nodes under {@code directory}, the placeholder left out. */
    private List<String> nodes(String directory) {
        try {
            List<String> nodes = new ArrayList<>(admin.getChildren().forPath(directory));
            nodes.remove("placeholder");
            return nodes;
        } catch (Exception e) {
            throw new IllegalStateException("cannot list " + directory, e);
        }
    }
}
