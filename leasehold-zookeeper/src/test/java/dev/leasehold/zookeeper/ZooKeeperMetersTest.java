package dev.leasehold.zookeeper;

import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import dev.leasehold.micrometer.MicrometerLeaseEvents;
import dev.leasehold.testkit.meters.MeterChecks;
import dev.leasehold.testkit.meters.MeterReadings;
import dev.leasehold.testkit.meters.WithoutMicrometer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The ZooKeeper backend's meters through {@code ZooKeeperLocks.builder().meterRegistry(registry)} and
 * {@code ZooKeeperLocks.using(curator, events)}, on the shared ensemble.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ZooKeeperMetersTest {

    private static final Duration WAIT = Duration.ofSeconds(5);
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final MeterReadings meters = new MeterReadings(registry);
    private final List<AutoCloseable> resources = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        Ensemble.shared().heal();
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    private ZooKeeperLockClient client() {
        ZooKeeperLockClient client = ZooKeeperLocks.builder().connectString(Ensemble.shared().connectString())
                .sessionTimeout(TestClients.SESSION_TIMEOUT).meterRegistry(registry).build();
        resources.add(client);
        return client;
    }

    private static String name(String what) {
        return "meters:" + what + ":" + System.nanoTime();
    }

    @Test
    void theBuilderAndUsingRefuseANullRegistryOrEvents() {
        assertThatThrownBy(() -> ZooKeeperLocks.builder().meterRegistry(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("registry");
        assertThatThrownBy(() -> ZooKeeperLocks.builder().leaseEvents(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("LeaseEvents.NONE");
        assertThatThrownBy(() -> ZooKeeperLocks.using(null, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("LeaseEvents.NONE");
    }

    @Test
    void aClientWithoutARegistryWorksWithNoMicrometerOnTheClassPath() throws Exception {
        assertThat(WithoutMicrometer.run(NoMicrometerProbe.class, Ensemble.shared().directConnectString()))
                .startsWith("token ").endsWith("renewed, RELEASED");
    }

    @Test
    void anAcquireAndReleaseMoveTheWaitTheHeldTimerAndTheActiveGauge() {
        MeterChecks.acquireAndReleaseMoveTheMeters(client(), name("held"), meters);
    }

    @Test
    void aTimeoutIsCountedAsSuch() {
        MeterChecks.aTimeoutIsCounted(client(), client(), name("busy"), meters);
    }

    @Test
    void eachKindReportsItsOwnTag() {
        MeterChecks.eachKindReportsItsTag(client(), name("kinds") + ":", List.of("fair_lock", "read", "write",
                "semaphore"), meters);
    }

    @Test
    void aClientOverABorrowedFrameworkReportsToTheEventsGivenToUsing() throws Exception {
        CuratorFramework curator = CuratorFrameworkFactory.newClient(Ensemble.shared().directConnectString(),
                new RetryOneTime(100));
        resources.add(curator);
        curator.start();
        assertThat(curator.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
        ZooKeeperLockClient client = ZooKeeperLocks.using(curator, MicrometerLeaseEvents.of(registry));
        resources.add(client);
        client.lock(name("using")).acquire(WAIT).release();
        assertThat(meters.acquisitions("lock", "acquired")).isEqualTo(1);
        assertThat(meters.leasesEnded()).isEqualTo(1);
    }

    @Test
    void aLeaseTheSessionLostIsCountedAsLostByTheBackend() throws Exception {
        // A ttl far beyond the session: the loss comes from the session, through the session watch
        // or through the local deadline that the session's grant caps, whichever is first.
        Lease lease = client().lock(name("partition"), LockOptions.watchdog(Duration.ofSeconds(60))).acquire(WAIT);
        try (AutoCloseable partition = Ensemble.shared().partitionClients()) {
            lease.lost().toCompletableFuture().get(TestClients.SESSION_TIMEOUT.toMillis() * 2, TimeUnit.MILLISECONDS);
        }
        assertThat(meters.lost("backend") + meters.lost("expired")).isEqualTo(1);
        assertThat(meters.lost("refused")).isZero();
        assertThat(meters.active()).isZero();
        assertThat(meters.leasesEnded()).isEqualTo(1);
    }
}
