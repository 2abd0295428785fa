package dev.leasehold.testkit.contract;

import dev.leasehold.DistributedLock;
import dev.leasehold.Lease;
import dev.leasehold.LockClient;
import dev.leasehold.LockKind;
import dev.leasehold.LockOptions;
import dev.leasehold.ReleaseStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link LockOptions#holdAtLeast} as every backend promises it, with a real second client: a lease
 * released early keeps the lock held on the server until {@code acquire + holdAtLeast}, also when
 * its client is closed right after the release (the server's expiry, not a client timer); a
 * release after that point frees the lock at once; a lease lost before its release is not kept.
 * A backend's test class joins it as it joins {@link LockClientContract}: the kinds in
 * {@link ContractKinds}, the deployment in {@link #backend()}; the contract runs once per kind.
 * Bounds are generous: the tests check when the lock frees relative to the promise, never how fast
 * anything is.
 *
 * <p>A kept lock ends by the server's clock, which for most backends is wall-clock time (Redis and
 * PostgreSQL expiries, ZooKeeper's ctime); etcd counts leases on its monotonic clock. Where the
 * host's wall clock is slewed or stepped the two disagree, so "not freed before holdAtLeast" is
 * checked on whichever of the two clocks says more time passed.
 */
@ParameterizedClass(name = "{0}")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public abstract class HoldAtLeastContract {

    /** Scheduler and loopback slack allowed on top of any point the library promises. */
    protected static final long SLACK_MILLIS = 60;
    private static final Duration HOLD = Duration.ofMillis(1_800);

    /** The kind this invocation of the class tests, one of its {@link ContractKinds}. */
    @Parameter
    LockKind kind;

    private final List<LockClient> clients = Collections.synchronizedList(new ArrayList<>());
    private String testName = "test";

    /** The deployment under test; asked for in each test, after the test class started its servers. */
    protected abstract ContractBackend backend();

    /**
     * How much later than asked the backend may free a kept lock: by default the backend's
     * {@link ContractBackend#serverExpiryGranularity()}; etcd, which keeps the lock on a new lease of
     * whole seconds, allows more.
     */
    protected Duration serverExpiryGranularity() {
        return backend().serverExpiryGranularity();
    }

    private DistributedLock lock(LockClient client, String name, LockOptions options) {
        return KindLocks.lock(client, kind, name, options);
    }

    @BeforeEach
    final void rememberTestName(TestInfo info) {
        testName = info.getTestMethod().map(m -> m.getName()).orElse("test") + ":" + System.nanoTime();
    }

    @AfterEach
    final void closeClients() {
        clients.forEach(LockClient::close);
        clients.clear();
    }

    private LockClient client() {
        LockClient client = backend().connect();
        clients.add(client);
        return client;
    }

    private String name(String suffix) {
        return "hold:" + testName + ":" + suffix;
    }

    @Test
    void anEarlyReleaseKeepsTheLockUntilHoldAtLeastAfterTheAcquire() throws Exception {
        keptUntilHoldAtLeast(false);
    }

    @Test
    void aKeptLockOutlivesItsHoldersClient() throws Exception {
        keptUntilHoldAtLeast(true);
    }

    private void keptUntilHoldAtLeast(boolean closeHolderClient) throws Exception {
        String lockName = name("kept");
        LockClient holderClient = client();
        DistributedLock other = lock(client(), lockName, LockOptions.defaults());
        long start = System.nanoTime();
        long startWall = System.currentTimeMillis();
        Lease lease = lock(holderClient, lockName, LockOptions.defaults().holdAtLeast(HOLD)).acquire(Duration.ofSeconds(5));
        Thread.sleep(100);
        assertThat(lease.release()).isEqualTo(ReleaseStatus.RELEASED);
        assertThat(lease.isValid()).as("the lease ends for its holder at once").isFalse();
        if (closeHolderClient) {
            holderClient.close();
        }
        assertThat(other.tryAcquire(Duration.ZERO)).as("held on the server right after the early release").isEmpty();
        long limit = HOLD.toMillis() + serverExpiryGranularity().toMillis() + 5_000;
        Lease next = null;
        long freedAfter = -1;
        while (next == null && (freedAfter = millisSince(start)) < limit) {
            Optional<Lease> attempt = other.tryAcquire(Duration.ZERO);
            if (attempt.isPresent()) {
                next = attempt.get();
            } else {
                Thread.sleep(25);
            }
        }
        long freedAfterWall = System.currentTimeMillis() - startWall;
        assertThat(next).as("the kept lock frees itself by the server's expiry").isNotNull();
        // The acquire was sent after start, so the lock may free no earlier than start + holdAtLeast.
        assertThat(Math.max(freedAfter, freedAfterWall))
                .as("freed %d ms (wall clock: %d ms) after the first acquire was sent, holdAtLeast %s",
                        freedAfter, freedAfterWall, HOLD)
                .isGreaterThanOrEqualTo(HOLD.toMillis() - 5);
        assertThat(next.token()).isGreaterThan(lease.token());
        next.release();
    }

    @Test
    void aWaiterBlockedByAKeptLockGetsItOnceItFrees() throws Exception {
        String lockName = name("waiter");
        DistributedLock other = lock(client(), lockName, LockOptions.defaults());
        long start = System.nanoTime();
        long startWall = System.currentTimeMillis();
        Lease lease = lock(client(), lockName, LockOptions.defaults().holdAtLeast(HOLD)).acquire(Duration.ofSeconds(5));
        Thread.sleep(100);
        lease.release();
        Optional<Lease> next = other.tryAcquire(HOLD.plus(serverExpiryGranularity()).plusSeconds(5));
        long freedAfter = Math.max(millisSince(start), System.currentTimeMillis() - startWall);
        assertThat(next).as("the waiter gets the lock once the kept lock frees").isPresent();
        assertThat(freedAfter).isGreaterThanOrEqualTo(HOLD.toMillis() - 5);
        assertThat(next.get().token()).isGreaterThan(lease.token());
        next.get().release();
    }

    @Test
    void aReleaseAfterHoldAtLeastFreesTheLockAtOnce() throws Exception {
        String lockName = name("late");
        DistributedLock other = lock(client(), lockName, LockOptions.defaults());
        Lease lease = lock(client(), lockName, LockOptions.defaults().holdAtLeast(Duration.ofMillis(300)))
                .acquire(Duration.ofSeconds(5));
        Thread.sleep(600);
        assertThat(lease.release()).isEqualTo(ReleaseStatus.RELEASED);
        Optional<Lease> next = other.tryAcquire(Duration.ZERO);
        assertThat(next).as("holdAtLeast had passed: the release deletes the lock").isPresent();
        assertThat(next.get().token()).isGreaterThan(lease.token());
        next.get().release();
    }

    @Test
    void aLeaseLostBeforeItsReleaseIsNotKept() throws Exception {
        String lockName = name("lost");
        Duration ttl = Duration.ofSeconds(1);
        Duration hold = Duration.ofSeconds(40);
        Lease lease = lock(client(), lockName, LockOptions.watchdog(ttl).holdAtLeast(hold)).acquire(Duration.ofSeconds(5));
        long start = System.nanoTime();
        try (AutoCloseable paused = backend().pause()) {
            lease.lost().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
        assertThat(lease.release()).isEqualTo(ReleaseStatus.ALREADY_LOST);
        Optional<Lease> next = lock(client(), lockName, LockOptions.defaults()).tryAcquire(Duration.ofSeconds(20));
        assertThat(next).as("a lost lease's lock frees by its ttl, not by holdAtLeast").isPresent();
        assertThat(millisSince(start)).isLessThan(hold.toMillis());
        assertThat(next.get().token()).isGreaterThan(lease.token());
        next.get().release();
    }

    private static long millisSince(long nanos) {
        return (System.nanoTime() - nanos) / 1_000_000;
    }
}
