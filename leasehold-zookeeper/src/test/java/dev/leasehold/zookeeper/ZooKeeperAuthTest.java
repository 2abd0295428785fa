package dev.leasehold.zookeeper;

import dev.leasehold.Lease;
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
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

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

    @Test
    @Disabled("open defect (review3): ZooKeeper checks DELETE and CREATE on the parent, and a directory an anonymous "
            + "session created first keeps its open ACL, so the stranger deletes the holder's node; fails until the "
            + "acquire refuses a lock directory whose ACL is not its own user's")
    void aStrangerWhoCreatedTheLockDirectoryFirstCanNeitherDeleteNorQueueBesideTheHolder() throws Exception {
        Ensemble ensemble = Ensemble.shared();
        String name = "auth:squat:1";
        String directory = LockPaths.directory(name);
        try (CuratorFramework stranger = CuratorFrameworkFactory.builder().connectString(ensemble.connectString())
                .retryPolicy(new RetryOneTime(100)).build();
             ZooKeeperLockClient owner = withDigest(ensemble, SECRET)) {
            stranger.start();
            stranger.blockUntilConnected();
            // An anonymous session creates the (not yet existing) directory of a protected lock, open to all.
            stranger.create().creatingParentsIfNeeded().forPath(directory);
            try {
                Lease lease = owner.lock(name).acquire(Duration.ofSeconds(5));
                try (lease) {
                    for (String node : stranger.getChildren().forPath(directory)) {
                        assertThatThrownBy(() -> stranger.delete().forPath(directory + "/" + node))
                                .as("the stranger deletes the holder's node %s", node)
                                .isInstanceOf(KeeperException.NoAuthException.class);
                    }
                    assertThatThrownBy(() -> stranger.create().withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                            .forPath(directory + "/_c_0-lock-"))
                            .as("the stranger queues in the lock's directory").isInstanceOf(KeeperException.NoAuthException.class);
                    assertThat(lease.isValid()).isTrue();
                }
            } catch (LockUnavailableException refused) {
                assertThat(refused.getMessage()).as("a refusal names the directory").contains(directory)
                        .doesNotContain(SECRET);
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
        try (CuratorFramework curator = CuratorFrameworkFactory.builder().connectString(ensemble.connectString())
                .retryPolicy(new RetryOneTime(100)).authorization("digest", ("app:" + SECRET).getBytes()).build()) {
            curator.start();
            curator.blockUntilConnected();
            String directory = LockPaths.directory(name);
            return curator.getACL().forPath(directory);
        }
    }
}
