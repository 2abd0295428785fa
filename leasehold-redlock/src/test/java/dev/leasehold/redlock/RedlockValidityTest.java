package dev.leasehold.redlock;

import dev.leasehold.DistributedLock;
import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import dev.leasehold.LockTimeoutException;
import dev.leasehold.testkit.fault.FaultProxy;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The validity check: a majority that grants too late is no lease. Every node sits behind a fault
 * proxy, and the per-node timeout (2 s) is far above the ttl (300 ms), so a late grant is refused
 * by {@code ttl - elapsed - drift <= 0} alone, never by a timeout.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedlockValidityTest {

    private static final Duration TTL = Duration.ofMillis(300);
    private static final Duration LATE = Duration.ofMillis(500);

    @RegisterExtension
    static final TestServer<RedisNodes> nodes = TestServer.perClass(() -> RedisNodes.start(5));
    private static final List<FaultProxy> proxies = new ArrayList<>();
    private RedlockLockClient locks;

    @BeforeAll
    static void startNodesBehindProxies() {
        for (int i = 0; i < 5; i++) {
            proxies.add(FaultProxy.start(nodes.get().get(i).host(), nodes.get().get(i).port()));
        }
    }

    @AfterAll
    static void stop() {
        proxies.forEach(FaultProxy::close);
    }

    @BeforeEach
    void connectThroughTheProxies() {
        String[] uris = proxies.stream().map(proxy -> "redis://" + proxy.host() + ":" + proxy.port()).toArray(String[]::new);
        locks = RedlockLocks.builder().uris(uris).nodeTimeout(Duration.ofSeconds(2))
                .operationTimeout(Duration.ofSeconds(8)).retryCount(0).connect();
    }

    @AfterEach
    void heal() {
        proxies.forEach(FaultProxy::pass);
        locks.close();
        nodes.get().heal();
    }

    private DistributedLock lock(String name) {
        return locks.lock(name, LockOptions.fixedLease(TTL));
    }

    /** Every node granted (its counter moved), so only the validity check can have refused the lease. */
    private void assertEveryNodeGranted(String name) {
        for (int i = 0; i < 5; i++) {
            assertThat(nodes.get().fence(i, name)).as("node %d granted", i).isPositive();
        }
    }

    @Test
    void repliesDelayedPastTheTtlNeverYieldALease() {
        proxies.forEach(proxy -> proxy.latency(Duration.ofMillis(10)));
        Optional<Lease> control = lock("slow").tryAcquire(Duration.ZERO);
        assertThat(control).as("a 20 ms round trip leaves validity").isPresent();
        control.get().release();

        proxies.forEach(proxy -> proxy.latency(LATE.dividedBy(2)));
        long start = System.nanoTime();
        assertThat(lock("late").tryAcquire(Duration.ZERO)).isEmpty();
        assertThat((System.nanoTime() - start) / 1_000_000).as("the grants came after the ttl").isGreaterThanOrEqualTo(LATE.toMillis());
        assertEveryNodeGranted("late");
        assertThatThrownBy(() -> lock("late").acquire(Duration.ofSeconds(1)))
                .as("nor does any retry while the replies stay late").isInstanceOf(LockTimeoutException.class);
        assertThat(locks.heldLeases()).isZero();
    }

    @Test
    void repliesHeldPastTheTtlNeverYieldALease() throws Exception {
        proxies.forEach(FaultProxy::holdReplies);
        CompletableFuture<Lease> attempt = lock("held").acquireAsync(Duration.ZERO);
        Thread.sleep(LATE.toMillis());
        assertThat(attempt).isNotDone();
        proxies.forEach(FaultProxy::releaseReplies);
        assertNoLease(attempt);
        assertEveryNodeGranted("held");
    }

    @Test
    void nodesFrozenPastTheTtlNeverYieldALease() throws Exception {
        nodes.get().pauseAll();
        CompletableFuture<Lease> attempt = lock("frozen").acquireAsync(Duration.ZERO);
        Thread.sleep(LATE.toMillis());
        assertThat(attempt).isNotDone();
        nodes.get().resumeAll();
        assertNoLease(attempt);
        assertEveryNodeGranted("frozen");
    }

    private void assertNoLease(CompletableFuture<Lease> attempt) {
        assertThatThrownBy(() -> attempt.get(5, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(LockTimeoutException.class);
        assertThat(locks.heldLeases()).isZero();
    }
}
