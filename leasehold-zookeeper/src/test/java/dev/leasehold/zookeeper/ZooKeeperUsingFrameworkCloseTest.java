package dev.leasehold.zookeeper;

import dev.leasehold.Lease;
import dev.leasehold.LeaseholdException;
import dev.leasehold.LockOptions;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A lock client over a framework its owner keeps ({@link ZooKeeperLocks#using}), closed while a
 * release that failed in an outage still waits for its node's expiry: the framework's session lives
 * on after the lock client, so the node must not stay with it, the lock held by nobody, for as long
 * as the owner keeps the framework open.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ZooKeeperUsingFrameworkCloseTest {

    private final Ensemble ensemble = Ensemble.shared();

    @AfterEach
    void pass() {
        ensemble.proxies().forEach(proxy -> {
            proxy.refuse(false);
            proxy.pass();
        });
    }

    @Test
    void aFailedReleaseDoesNotOutliveTheLockClientOnTheOwnersSession() throws Exception {
        String name = "using-close:" + System.nanoTime();
        TestClients.connect(ensemble).close(); // warms the ensemble up
        try (CuratorFramework owned = CuratorFrameworkFactory.builder().connectString(ensemble.connectString())
                .sessionTimeoutMs(10_000).connectionTimeoutMs(500).retryPolicy(new RetryOneTime(100)).build();
             ZooKeeperLockClient other = TestClients.connect(ensemble)) {
            owned.start();
            assertThat(owned.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
            ZooKeeperLockClient locks = ZooKeeperLocks.using(owned);
            Lease lease = locks.lock(name, LockOptions.watchdog(Duration.ofSeconds(4))).acquire(Duration.ofSeconds(5));
            // Swallowed, not cut: the session sees no disconnection, so the lease is not lost first.
            ensemble.proxies().forEach(proxy -> proxy.blackhole());
            assertThatThrownBy(lease::release).isInstanceOf(LeaseholdException.class);
            ensemble.proxies().forEach(proxy -> {
                proxy.pass();
                proxy.cutAll(); // whatever the release sent died with the connection
            });
            assertThat(owned.blockUntilConnected(5, TimeUnit.SECONDS)).as("the owner's session is back").isTrue();
            locks.close(); // before the 4 s ttl has passed since the last renewal

            // The owner's framework, and its session, stay open past the ttl.
            Optional<Lease> taken = other.lock(name).tryAcquire(Duration.ofSeconds(12));
            try {
                assertThat(taken).as("the lock is freed while the owner's session lives on").isPresent();
            } finally {
                taken.ifPresent(Lease::release);
            }
        }
    }
}
