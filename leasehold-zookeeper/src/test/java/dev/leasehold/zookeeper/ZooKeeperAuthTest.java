package dev.leasehold.zookeeper;

import dev.leasehold.DistributedLock;
import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import dev.leasehold.LockUnavailableException;
import dev.leasehold.NodeFailure;
import dev.leasehold.launcher.TestSecrets;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code digest(user, password)}: the nodes a client creates carry an ACL for its user only, so
 * clients of that user share the locks and every other session (anonymous, or the same user with
 * a wrong password) is refused with a typed error that never shows the password.
 */
class ZooKeeperAuthTest {

    private static final String SECRET = "zk-digest-secret";

    static {
        TestSecrets.record(SECRET);
    }

    @Test
    void onlySessionsOfTheSameUserCanQueueOnTheLocks() throws Exception {
        Ensemble ensemble = Ensemble.shared();
        try (ZooKeeperLockClient first = withDigest(ensemble, SECRET);
             ZooKeeperLockClient second = withDigest(ensemble, SECRET);
             ZooKeeperLockClient anonymous = TestClients.connect(ensemble);
             ZooKeeperLockClient wrongPassword = withDigest(ensemble, "wrong-" + SECRET)) {
            Lease held = first.lock("auth:order:1").acquire(Duration.ofSeconds(5));
            assertThat(second.lock("auth:order:1").tryAcquire(Duration.ZERO)).as("the same user queues, and waits")
                    .isEmpty();

            for (ZooKeeperLockClient stranger : List.of(anonymous, wrongPassword)) {
                assertThatThrownBy(() -> stranger.lock("auth:order:1").tryAcquire(Duration.ZERO))
                        .isInstanceOfSatisfying(LockUnavailableException.class, e -> assertThat(e.failures())
                                .extracting(NodeFailure::kind).containsExactly(NodeFailure.Kind.AUTHENTICATION))
                        .hasMessageContaining("credentials").hasMessageNotContaining(SECRET);
            }

            long firstToken = held.token();
            held.release();
            try (Lease next = second.lock("auth:order:1").acquire(Duration.ofSeconds(5))) {
                assertThat(next.token()).isGreaterThan(firstToken);
            }
            assertThat(aclOfLockDirectory(ensemble, "auth:order:1")).as("the lock's directory: its creator's user only")
                    .singleElement().satisfies(acl -> {
                        assertThat(acl.getId().getScheme()).isEqualTo("digest");
                        assertThat(acl.getId().getId()).startsWith("app:").doesNotContain(SECRET);
                        assertThat(acl.getPerms()).isEqualTo(ZooDefs.Perms.ALL);
                    });
        }
    }

    /**
     * A lease's own node, created on the session's handle rather than through Curator
     * ({@link DirectCalls}), carries the ACL Curator gives it: the user's only with a digest, open
     * without one.
     */
    @Test
    void aLeaseNodeCarriesTheAclOfItsClientsUser() throws Exception {
        Ensemble ensemble = Ensemble.shared();
        String name = "auth:node-acl:" + System.nanoTime();
        String anonymousName = "auth:node-acl-open:" + System.nanoTime();
        try (ZooKeeperLockClient user = withDigest(ensemble, SECRET);
             ZooKeeperLockClient anonymous = TestClients.connect(ensemble);
             Lease held = user.lock(name).acquire(Duration.ofSeconds(5));
             Lease open = anonymous.lock(anonymousName).acquire(Duration.ofSeconds(5))) {
            assertThat(aclOfLeaseNodes(ensemble, name)).as("the user's only, as its directory")
                    .singleElement().isEqualTo(aclOfLockDirectory(ensemble, name));
            assertThat(aclOfLeaseNodes(ensemble, anonymousName)).singleElement().isEqualTo(ZooDefs.Ids.OPEN_ACL_UNSAFE);
        }
    }

    @Test
    void aLockDirectoryAStrangerCreatedFirstIsRefusedAndGetsNoNode() throws Exception {
        Ensemble ensemble = Ensemble.shared();
        String name = "auth:squat:1";
        String directory = LockPaths.directory(name);
        try (CuratorFramework stranger = CuratorFrameworkFactory.builder().connectString(ensemble.connectString())
                .retryPolicy(new RetryOneTime(100)).build();
             ZooKeeperLockClient owner = withDigest(ensemble, SECRET)) {
            stranger.start();
            stranger.blockUntilConnected();
            // An anonymous session creates the (not yet existing) directory of a protected lock, open
            // to all: ZooKeeper checks DELETE and CREATE on the parent, so a node in it would be the
            // stranger's to delete, and the stranger could queue before it.
            stranger.create().creatingParentsIfNeeded().forPath(directory);

            for (var kind : List.<Supplier<DistributedLock>>of(() -> owner.lock(name),
                    () -> owner.fairLock(name, LockOptions.defaults()),
                    () -> owner.readWriteLock(name).readLock())) {
                assertThatThrownBy(() -> kind.get().tryAcquire(Duration.ofSeconds(1)))
                        .isInstanceOfSatisfying(LockUnavailableException.class, e -> assertThat(e.failures())
                                .extracting(NodeFailure::kind).containsExactly(NodeFailure.Kind.AUTHENTICATION))
                        .hasMessageContaining(directory).hasMessageNotContaining(SECRET);
                assertThat(stranger.getChildren().forPath(directory)).as("no node left in the stranger's directory")
                        .isEmpty();
            }

            // The stranger cannot delete it (the shared parent grants nobody DELETE): an administrator must.
            String fresh = LockPaths.directory("auth:squat:2");
            try (Lease lease = owner.lock("auth:squat:2").acquire(Duration.ofSeconds(5))) {
                assertThat(lease.isValid()).as("a directory of its own is accepted").isTrue();
                assertThatThrownBy(() -> stranger.getChildren().forPath(fresh))
                        .isInstanceOf(KeeperException.NoAuthException.class);
                // ZooKeeper checks DELETE on the parent before it looks for the node: any name answers NoAuth.
                assertThatThrownBy(() -> stranger.delete().forPath(fresh + "/any"))
                        .isInstanceOf(KeeperException.NoAuthException.class);
                assertThatThrownBy(() -> stranger.create().withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                        .forPath(fresh + "/_c_0-lock-")).isInstanceOf(KeeperException.NoAuthException.class);
            }
        }
    }

    @Test
    void aDigestNeedsAUserWithoutAColonAndAPassword() {
        assertThatThrownBy(() -> ZooKeeperLocks.builder().digest(null, SECRET)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ZooKeeperLocks.builder().digest("a:b", SECRET)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("':'");
        assertThatThrownBy(() -> ZooKeeperLocks.builder().digest("app", "")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageNotContaining(SECRET);
    }

    private static ZooKeeperLockClient withDigest(Ensemble ensemble, String password) {
        return ZooKeeperLocks.builder().connectString(ensemble.connectString()).sessionTimeout(TestClients.SESSION_TIMEOUT)
                .connectTimeout(Duration.ofSeconds(10)).digest("app", password).build();
    }

    /** The ACL of the directory that holds {@code name}'s queue, read by a session of the same user. */
    private static List<ACL> aclOfLockDirectory(Ensemble ensemble, String name) throws Exception {
        return asUser(ensemble, curator -> curator.getACL().forPath(LockPaths.directory(name)));
    }

    /** The ACL of each node in {@code name}'s queue, read by a session of the same user. */
    private static List<List<ACL>> aclOfLeaseNodes(Ensemble ensemble, String name) throws Exception {
        return asUser(ensemble, curator -> {
            String directory = LockPaths.directory(name);
            List<List<ACL>> acls = new ArrayList<>();
            for (String child : curator.getChildren().forPath(directory)) {
                acls.add(curator.getACL().forPath(directory + "/" + child));
            }
            return acls;
        });
    }

    private interface UserCall<T> {
        T apply(CuratorFramework curator) throws Exception;
    }

    private static <T> T asUser(Ensemble ensemble, UserCall<T> call) throws Exception {
        try (CuratorFramework curator = CuratorFrameworkFactory.builder().connectString(ensemble.connectString())
                .retryPolicy(new RetryOneTime(100)).authorization("digest", ("app:" + SECRET).getBytes()).build()) {
            curator.start();
            curator.blockUntilConnected();
            return call.apply(curator);
        }
    }
}
