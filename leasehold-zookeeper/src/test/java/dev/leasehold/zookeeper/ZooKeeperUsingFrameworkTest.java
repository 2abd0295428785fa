package dev.leasehold.zookeeper;

import dev.leasehold.Lease;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.curator.retry.RetryNTimes;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A client over a framework its owner built ({@link ZooKeeperLocks#using}) with a namespace and an
 * ACL provider of its own: the direct calls on the session's handle are off there, so every node
 * lands in the framework's namespace with the owner's ACL, and the waiter's synced listing (on the
 * handle itself) lists the namespaced directory.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ZooKeeperUsingFrameworkTest {

    private static final String AUTH = "owner:owner-secret";

    private final Ensemble ensemble = Ensemble.shared();

    /** Every node this user's alone (the owner's provider, not what leasehold would give). */
    private static final ACLProvider CREATOR_ONLY = new ACLProvider() {
        @Override
        public List<ACL> getDefaultAcl() {
            return ZooDefs.Ids.CREATOR_ALL_ACL;
        }

        @Override
        public List<ACL> getAclForPath(String path) {
            return ZooDefs.Ids.CREATOR_ALL_ACL;
        }
    };

    private CuratorFramework framework(String namespace) throws InterruptedException {
        CuratorFramework curator = CuratorFrameworkFactory.builder().connectString(ensemble.connectString())
                .namespace(namespace).authorization("digest", AUTH.getBytes(StandardCharsets.UTF_8))
                .aclProvider(CREATOR_ONLY).retryPolicy(new RetryNTimes(3, 100)).build();
        curator.start();
        assertThat(curator.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
        return curator;
    }

    @Test
    void nodesLandInTheFrameworksNamespaceWithItsAclAndWaitersAreServed() throws Exception {
        String namespace = "using-ns-" + System.nanoTime();
        String name = "using:" + System.nanoTime();
        String directory = LockPaths.directory(name);
        try (CuratorFramework first = framework(namespace);
             CuratorFramework second = framework(namespace);
             CuratorFramework elsewhere = framework(namespace + "-other");
             ZooKeeperLockClient holder = ZooKeeperLocks.using(first);
             ZooKeeperLockClient waiter = ZooKeeperLocks.using(second);
             ZooKeeperLockClient stranger = ZooKeeperLocks.using(elsewhere)) {
            // The first lease makes the directory; the second one's create finds it (the path a direct create would serve).
            holder.lock(name).acquire(Duration.ofSeconds(5)).release();
            Lease held = holder.lock(name).acquire(Duration.ofSeconds(5));
            List<String> nodes = first.getChildren().forPath(directory);
            assertThat(nodes).hasSize(1);
            String node = directory + "/" + nodes.get(0);
            assertThat(held.token()).isEqualTo(first.checkExists().forPath(node).getCzxid());
            List<ACL> acl = first.getACL().forPath(node);
            assertThat(acl).as("the owner's provider's ACL: this user only").hasSize(1);
            assertThat(acl.get(0).getId().getScheme()).isEqualTo("digest");
            assertThat(acl.get(0).getId().getId()).startsWith("owner:");
            assertThat(acl.get(0).getPerms()).isEqualTo(ZooDefs.Perms.ALL);

            // Another namespace is another lock.
            try (Lease other = stranger.lock(name).acquire(Duration.ofSeconds(5))) {
                assertThat(other.isValid()).isTrue();
            }
            Optional<Lease> early = waiter.lock(name).tryAcquire(Duration.ofMillis(200));
            early.ifPresent(Lease::close);
            assertThat(early).as("the same namespace is the same lock").isEmpty();
            CompletableFuture<Lease> waiting = waiter.lock(name).acquireAsync(Duration.ofSeconds(10));
            Thread.sleep(100);
            held.release();
            try (Lease next = waiting.get(10, TimeUnit.SECONDS)) {
                assertThat(next.token()).isGreaterThan(held.token());
            }
        }
    }
}
