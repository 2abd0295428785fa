package dev.leasehold.testkit.contract;

import dev.leasehold.DistributedLock;
import dev.leasehold.Lease;
import dev.leasehold.LeaseLostException;
import dev.leasehold.LockClient;
import dev.leasehold.LockClientClosedException;
import dev.leasehold.LockInterruptedException;
import dev.leasehold.LockKind;
import dev.leasehold.LockOptions;
import dev.leasehold.LockTimeoutException;
import dev.leasehold.ReentrantLeaseLock;
import dev.leasehold.ReleaseStatus;
import org.junit.jupiter.api.AfterEach;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The behaviour every backend promises, as one abstract JUnit 5 class run once per lock kind: a
 * backend's test class extends it, names the kinds with {@link ContractKinds}, says how to reach its
 * deployment ({@link #backend()}) and inherits every test, each against the real servers the test
 * class starts:
 *
 * <pre>{@code
 * @ContractKinds({"lock", "fair_lock", "write", "semaphore"})
 * class RedisLockContractTest extends LockClientContract {
 *     @RegisterExtension
 *     static final TestServer<RedisServer> redis = TestServer.perClass(() -> RedisServer.builder().start());
 *
 *     @Override
 *     protected ContractBackend backend() {
 *         return RedisContractBackend.single(redis.get());
 *     }
 * }
 * }</pre>
 *
 * <p>Every kind must exclude itself: two acquisitions of the same name never both hold (a
 * semaphore runs with one permit). Timing assertions allow a stated slack for scheduling on a
 * loaded two-core machine; they test behaviour (a deadline is honoured, a waiter is woken rather
 * than left to poll), not speed.
 */
@ParameterizedClass(name = "{0}")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public abstract class LockClientContract {

    /**
     * Scheduler and loopback slack allowed on top of any deadline the library promises: the timer
     * firing, the hop to the callback pool and the test thread waking, on a loaded 2-core machine.
     * Still well under a renewal period (ttl / 3) of the leases it bounds, so a loss noticed only at
     * a later tick, or at an operation timeout, fails.
     */
    protected static final long SLACK_MILLIS = 150;

    /** The kind this invocation of the class tests, one of its {@link ContractKinds}. */
    @Parameter
    LockKind kind;

    private final List<LockClient> clients = Collections.synchronizedList(new ArrayList<>());
    private String testName = "test";

    /** The deployment under test; asked for in each test, after the test class started its servers. */
    protected abstract ContractBackend backend();

    /** The lock of the kind under test named {@code name} on {@code client}. */
    protected final DistributedLock lock(LockClient client, String name, LockOptions options) {
        return KindLocks.lock(client, kind, name, options);
    }

    private LockClient connect() {
        return backend().connect();
    }

    private AutoCloseable pauseBackend() {
        return backend().pause();
    }

    private Duration serverExpiryGranularity() {
        return backend().serverExpiryGranularity();
    }

    /** {@link #lock(LockClient, String, LockOptions)} with the default options. */
    protected final DistributedLock lock(LockClient client, String name) {
        return lock(client, name, LockOptions.defaults());
    }

    protected final LockClient client() {
        LockClient client = connect();
        clients.add(client);
        return client;
    }

    /** A lock name unique to the running test, so tests never share state on the server. */
    protected final String name(String suffix) {
        return "contract:" + testName + ":" + suffix;
    }

    @org.junit.jupiter.api.BeforeEach
    final void rememberTestName(TestInfo info) {
        testName = info.getTestMethod().map(m -> m.getName()).orElse("test") + ":" + System.nanoTime();
    }

    @AfterEach
    final void closeClients() {
        synchronized (clients) {
            clients.forEach(LockClient::close);
            clients.clear();
        }
    }

    @Test
    void leaseScopedWorkReturnsItsResultAndIsInterruptedWhenItsLeaseRunsOut() throws Exception {
        DistributedLock lock = lock(client(), name("work"), LockOptions.fixedLease(Duration.ofMillis(300)));
        assertThat(lock.call(Duration.ofSeconds(5), () -> Lease.current().token())).isPositive();

        long start = System.nanoTime();
        Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(() -> lock.call(Duration.ofSeconds(5), () -> {
            Thread.sleep(10_000);
            return "slept through";
        }));
        long millis = (System.nanoTime() - start) / 1_000_000;
        assertThat(thrown).isInstanceOf(LeaseLostException.class);
        assertThat(thrown.getSuppressed()).anyMatch(InterruptedException.class::isInstance);
        assertThat(millis).as("interrupted at the local deadline").isLessThan(300 + 1_000);
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
        try (Lease next = lock(client(), name("work")).acquire(Duration.ofSeconds(5))) {
            assertThat(next.isValid()).isTrue();
        }
    }

    @Test
    void extendKeepsAHeldLeaseAndNeverRevivesAnEndedOne() throws Exception {
        String lockName = name("extend");
        // Long enough that the extend's round trip ends before the lease would, even on a loaded machine.
        Lease lease = lock(client(), lockName, LockOptions.fixedLease(Duration.ofMillis(800))).acquire(Duration.ofSeconds(5));
        lease.extend(Duration.ofSeconds(5));
        Thread.sleep(1_000);
        assertThat(lease.isValid()).as("valid past its lease time").isTrue();
        assertThat(lock(client(), lockName).tryAcquire(Duration.ZERO)).as("still held on the backend").isEmpty();
        assertThat(lease.release()).isEqualTo(ReleaseStatus.RELEASED);
        assertThatThrownBy(() -> lease.extend(Duration.ofSeconds(5))).isInstanceOf(LeaseLostException.class);
        try (Lease next = lock(client(), lockName).acquire(Duration.ZERO)) {
            assertThat(next.token()).isGreaterThan(lease.token());
        }
    }

    @Test
    void mutualExclusionAcrossClientsAndThreads() throws Exception {
        int threadsPerClient = 16;
        int total = backend().mutualExclusionAcquisitions();
        List<LockClient> both = List.of(client(), client());
        String lockName = name("counter");
        int[] shared = {0};
        List<Long> tokensInOrder = Collections.synchronizedList(new ArrayList<>());
        ExecutorService pool = Executors.newFixedThreadPool(threadsPerClient * 2);
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int c = 0; c < 2; c++) {
                DistributedLock lock = lock(both.get(c), lockName, LockOptions.watchdog(Duration.ofSeconds(10)));
                for (int t = 0; t < threadsPerClient; t++) {
                    int worker = c * threadsPerClient + t;
                    int share = total / (threadsPerClient * 2) + (worker < total % (threadsPerClient * 2) ? 1 : 0);
                    workers.add(pool.submit(() -> {
                        for (int i = 0; i < share; i++) {
                            try (Lease lease = lock.acquire(Duration.ofSeconds(30))) {
                                tokensInOrder.add(lease.token());
                                int read = shared[0];
                                Thread.yield();
                                shared[0] = read + 1;
                            }
                        }
                        return null;
                    }));
                }
            }
            for (Future<?> worker : workers) {
                worker.get(50, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(shared[0]).as("non-atomic increments under the lock").isEqualTo(total);
        assertThat(tokensInOrder).hasSize(total);
        for (int i = 1; i < tokensInOrder.size(); i++) {
            assertThat(tokensInOrder.get(i)).as("token %d in acquisition order", i).isGreaterThan(tokensInOrder.get(i - 1));
        }
    }

    @Test
    void tokensStrictlyIncreaseAcrossHoldersAndClients() {
        LockClient a = client();
        LockClient b = client();
        String lockName = name("tokens");
        long previous = Long.MIN_VALUE;
        for (int i = 0; i < 20; i++) {
            LockClient holder = i % 2 == 0 ? a : b;
            try (Lease lease = lock(holder, lockName).acquire(Duration.ofSeconds(5))) {
                assertThat(lease.token()).isGreaterThan(previous);
                assertThat(lease.lockName()).isEqualTo(lockName);
                previous = lease.token();
            }
        }
    }

    @Test
    void releaseAfterExpiryReportsAlreadyLostAndSparesTheNewHolder() throws Exception {
        String lockName = name("expired");
        Lease old = lock(client(), lockName, LockOptions.fixedLease(Duration.ofMillis(200))).acquire(Duration.ofSeconds(1));
        Lease current = lock(client(), lockName).acquire(Duration.ofSeconds(5));
        assertThat(current.token()).isGreaterThan(old.token());
        assertThat(old.isValid()).isFalse();

        assertThat(old.release()).isEqualTo(ReleaseStatus.ALREADY_LOST);
        assertThat(old.release()).as("idempotent").isEqualTo(ReleaseStatus.ALREADY_LOST);
        // On a quorum backend a minority of nodes may not have expired the old key yet.
        assertThat(old.releaseReport()).hasValueSatisfying(report ->
                assertThat(report.nodesHolding()).isLessThan(report.nodes() / 2 + 1));

        assertThat(current.isValid()).isTrue();
        assertThat(lock(client(), lockName).tryAcquire(Duration.ZERO)).as("new holder still holds").isEmpty();
        assertThat(current.release()).isEqualTo(ReleaseStatus.RELEASED);
    }

    @Test
    void releaseIsIdempotentAndEndsTheLease() {
        String lockName = name("release");
        Lease lease = lock(client(), lockName).acquire(Duration.ofSeconds(5));
        assertThat(lease.isValid()).isTrue();
        assertThat(lease.remaining()).isPositive();
        assertThat(lease.releaseReport()).isEmpty();
        assertThat(lease.release()).isEqualTo(ReleaseStatus.RELEASED);
        assertThat(lease.releaseReport()).hasValueSatisfying(report -> {
            assertThat(report.status()).isEqualTo(ReleaseStatus.RELEASED);
            assertThat(report.nodesHolding()).isEqualTo(report.nodes()).isEqualTo(report.nodesAnswered()).isPositive();
        });
        assertThat(lease.release()).isEqualTo(ReleaseStatus.RELEASED);
        lease.close();
        assertThat(lease.isValid()).isFalse();
        assertThat(lease.remaining()).isZero();
        assertThatThrownBy(lease::ensureValid).isInstanceOf(LeaseLostException.class).hasMessageContaining("released");
        assertThat(lease.lost().toCompletableFuture()).as("a release is not a loss").isNotDone();
        try (Lease next = lock(client(), lockName).acquire(Duration.ZERO)) {
            assertThat(next.token()).isGreaterThan(lease.token());
        }
    }

    @Test
    void releaseAsyncReleasesWithoutBlockingAndJoinsLaterReleases() throws Exception {
        String lockName = name("release-async");
        LockClient client = client();
        Lease lease = lock(client, lockName).acquire(Duration.ofSeconds(5));
        CompletableFuture<ReleaseStatus> released = lease.releaseAsync();
        released.cancel(false);
        assertThat(lease.releaseAsync().get(5, TimeUnit.SECONDS)).as("a caller's cancel changes nothing")
                .isEqualTo(ReleaseStatus.RELEASED);
        assertThat(lease.release()).isEqualTo(ReleaseStatus.RELEASED);
        assertThat(lease.isValid()).isFalse();
        try (Lease next = lock(client, lockName).acquire(Duration.ofSeconds(2))) {
            assertThat(next.token()).isGreaterThan(lease.token());
        }
    }

    @Test
    void tryAcquireOnAHeldLockIsEmptyAndAcquireTimesOut() {
        String lockName = name("held");
        try (Lease held = lock(client(), lockName).acquire(Duration.ofSeconds(5))) {
            DistributedLock other = lock(client(), lockName);
            assertThat(other.tryAcquire(Duration.ZERO)).isEmpty();
            long start = System.nanoTime();
            assertThatThrownBy(() -> other.acquire(Duration.ofMillis(300)))
                    .isInstanceOf(LockTimeoutException.class)
                    .hasMessageContaining(lockName);
            long waitedMillis = (System.nanoTime() - start) / 1_000_000;
            assertThat(waitedMillis).isBetween(290L, 300L + 1_000L);
            assertThat(held.isValid()).isTrue();
        }
    }

    @Test
    void watchdogKeepsAShortLeaseAliveThroughLongWork() throws Exception {
        String lockName = name("watchdog");
        try (Lease lease = lock(client(), lockName, LockOptions.watchdog(Duration.ofSeconds(1))).acquire(Duration.ofSeconds(5))) {
            Thread.sleep(3_300);
            assertThat(lease.isValid()).isTrue();
            lease.ensureValid();
            assertThat(lock(client(), lockName).tryAcquire(Duration.ZERO)).isEmpty();
            assertThat(lease.lost().toCompletableFuture()).isNotDone();
            assertThat(lease.release()).isEqualTo(ReleaseStatus.RELEASED);
        }
    }

    @Test
    void fixedLeaseExpiresOnTimeWithoutRenewal() throws Exception {
        String lockName = name("fixed");
        long start = System.nanoTime();
        Lease lease = lock(client(), lockName, LockOptions.fixedLease(Duration.ofMillis(600))).acquire(Duration.ofSeconds(5));
        long acquiredAfter = (System.nanoTime() - start) / 1_000_000;
        LeaseLostException lost = lease.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);
        long lostAfter = (System.nanoTime() - start) / 1_000_000;
        assertThat(lost.token()).isEqualTo(lease.token());
        // The deadline counts from the acquire's send time, which lies between start and its return.
        assertThat(lostAfter).as("lost at the local deadline (600 ms - drift)")
                .isBetween(580L, acquiredAfter + 600L + SLACK_MILLIS);
        assertThat(lease.isValid()).isFalse();
        try (Lease next = lock(client(), lockName).acquire(Duration.ofSeconds(3))) {
            long takenAfter = (System.nanoTime() - start) / 1_000_000;
            // Never before the ttl; the upper bound only shows that the server expired the key, with
            // room for a loaded machine (CI saw 1.84 s while other builds ran).
            assertThat(takenAfter).as("the server let the key expire on time")
                    .isBetween(580L, 600L + 2_000L + serverExpiryGranularity().toMillis());
            assertThat(next.token()).isGreaterThan(lease.token());
        }
        assertThat(lease.release()).isEqualTo(ReleaseStatus.ALREADY_LOST);
    }

    @Test
    void maxHoldStopsTheWatchdogAndTheLeaseEndsWithinOneTtl() throws Exception {
        String lockName = name("maxhold");
        // A 1 s ttl, not less: with a 300 ms one, a renewal thread stalled 200 ms by a loaded machine
        // lost the lease before maxHold, which this test would have read as maxHold ending it early.
        Duration ttl = Duration.ofSeconds(1);
        // Connected before the clock starts: maxHold counts from the acquire, not from the connect.
        DistributedLock lock = lock(client(), lockName, LockOptions.watchdog(ttl).withMaxHold(Duration.ofSeconds(2)));
        long start = System.nanoTime();
        Lease lease = lock.acquire(Duration.ofSeconds(5));
        lease.lost().toCompletableFuture().get(10, TimeUnit.SECONDS);
        long lostAfter = (System.nanoTime() - start) / 1_000_000;
        assertThat(lostAfter).as("renewed past the first ttl, stopped after maxHold")
                .isBetween(2_000L, 2_000L + 1_000L + SLACK_MILLIS);
        try (Lease next = lock(client(), lockName).acquire(Duration.ofSeconds(5))) {
            assertThat(next.token()).isGreaterThan(lease.token());
        }
    }

    @Test
    void asyncCompletionsRunOffTheClientsIoThreadsAndMayBlock() throws Exception {
        String lockName = name("async-callback");
        CompletableFuture<String> released = lock(client(), lockName).acquireAsync(Duration.ofSeconds(5))
                .thenApply(lease -> Thread.currentThread().getName() + ":" + lease.release());
        String outcome = released.get(10, TimeUnit.SECONDS);
        assertThat(outcome).endsWith(":RELEASED").doesNotStartWith("lettuce-");
        // 400 ms, not less: Redlock gives each node 5 % of the ttl to answer, and 5 ms was too little on a loaded machine.
        Lease fixed = lock(client(), lockName, LockOptions.fixedLease(Duration.ofMillis(400))).acquire(Duration.ofSeconds(5));
        String lostThread = fixed.lost().thenApply(lost -> Thread.currentThread().getName())
                .toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertThat(lostThread).as("lost() callbacks run off the I/O threads and off the renewal thread, where a"
                + " blocking callback would stop every other lease's renewals")
                .doesNotStartWith("lettuce-").doesNotStartWith("leasehold-renewal-");
    }

    @Test
    void aFrozenBackendLosesTheLeaseNoLaterThanTheLocalDeadline() throws Exception {
        String lockName = name("frozen");
        Duration ttl = Duration.ofSeconds(1);
        long start = System.nanoTime();
        Lease lease = lock(client(), lockName, LockOptions.watchdog(ttl)).acquire(Duration.ofSeconds(5));
        long acquiredAfter = (System.nanoTime() - start) / 1_000_000;
        CompletableFuture<LeaseLostException> lost = lease.lost().toCompletableFuture();
        long lostAfter;
        try (AutoCloseable paused = pauseBackend()) {
            lost.get(10, TimeUnit.SECONDS);
            lostAfter = (System.nanoTime() - start) / 1_000_000;
            assertThat(lease.isValid()).isFalse();
        }
        long deadline = ttl.minus(LockOptions.drift(ttl)).toMillis();
        // The deadline counts from the acquire's send time, which lies between start and its return.
        assertThat(lostAfter).as("lost at the local deadline, %d ms after the acquire was sent", deadline)
                .isBetween(deadline, acquiredAfter + deadline + SLACK_MILLIS);
        assertThatThrownBy(lease::ensureValid).isInstanceOf(LeaseLostException.class);
        assertThat(lease.release()).isEqualTo(ReleaseStatus.ALREADY_LOST);
    }

    @Test
    void aBlockedWaiterIsWokenPromptlyByTheRelease() throws Exception {
        String lockName = name("handoff");
        LockClient holderClient = client();
        DistributedLock waiterLock = lock(client(), lockName);
        List<Long> handoffMillis = new ArrayList<>();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            for (int round = 0; round < 5; round++) {
                Lease held = lock(holderClient, lockName).acquire(Duration.ofSeconds(5));
                Future<Lease> waiting = pool.submit(() -> waiterLock.acquire(Duration.ofSeconds(10)));
                Thread.sleep(300);
                assertThat(waiting).isNotDone();
                long released = System.nanoTime();
                held.release();
                Lease taken = waiting.get(5, TimeUnit.SECONDS);
                handoffMillis.add((System.nanoTime() - released) / 1_000_000);
                assertThat(taken.token()).isGreaterThan(held.token());
                taken.release();
            }
        } finally {
            pool.shutdownNow();
        }
        Collections.sort(handoffMillis);
        // Only a wake gets there in time: a waiter that merely re-checks (the default maxRecheck of
        // 1 s, jittered to between 0.5 and 1 s after its attempt, made 300 ms before the release)
        // comes 200 ms or more after the release. 50 ms was too tight at load 11 (a median of 58 ms).
        assertThat(handoffMillis.get(handoffMillis.size() / 2))
                .as("median handoff from release call to waiter's acquire (all: %s)", handoffMillis)
                .isLessThanOrEqualTo(150L);
    }

    @Test
    void anInterruptedAcquireThrowsAndLeavesTheLockFree() throws Exception {
        String lockName = name("interrupt");
        Lease held = lock(client(), lockName).acquire(Duration.ofSeconds(5));
        DistributedLock waiterLock = lock(client(), lockName);
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        AtomicReference<Boolean> flagAfter = new AtomicReference<>();
        CountDownLatch started = new CountDownLatch(1);
        Thread waiter = new Thread(() -> {
            started.countDown();
            try {
                waiterLock.acquire(Duration.ofSeconds(30));
            } catch (Throwable t) {
                thrown.set(t);
                flagAfter.set(Thread.currentThread().isInterrupted());
            }
        });
        waiter.start();
        started.await();
        Thread.sleep(300);
        waiter.interrupt();
        waiter.join(5_000);
        assertThat(waiter.isAlive()).isFalse();
        assertThat(thrown.get()).isInstanceOf(LockInterruptedException.class);
        assertThat(flagAfter.get()).as("interrupt flag restored").isTrue();

        held.release();
        // The same client (and lock object) again: an abandoned acquire must not jam its local queue.
        try (Lease next = waiterLock.acquire(Duration.ofSeconds(2))) {
            assertThat(next.token()).isGreaterThan(held.token());
        }
    }

    @Test
    void cancellingAnAsyncAcquireAbandonsIt() throws Exception {
        String lockName = name("async");
        Lease held = lock(client(), lockName).acquire(Duration.ofSeconds(5));
        LockClient waiting = client();
        CompletableFuture<Lease> pending = lock(waiting, lockName).acquireAsync(Duration.ofSeconds(30));
        Thread.sleep(200);
        assertThat(pending.cancel(true)).isTrue();
        held.release();
        try (Lease next = lock(waiting, lockName).acquire(Duration.ofSeconds(2))) {
            assertThat(next.token()).isGreaterThan(held.token());
        }
        try (Lease async = lock(waiting, name("async-free")).acquireAsync(Duration.ofSeconds(5)).get(5, TimeUnit.SECONDS)) {
            assertThat(async.isValid()).isTrue();
        }
    }

    /**
     * A caller that bounds the future itself ({@code orTimeout}, {@code complete}...) abandons the
     * acquire like a cancellation: the same client takes the lock at once when it is free, instead
     * of queueing behind a dead operation.
     */
    @Test
    void anAsyncAcquireTheCallerCompletesDoesNotJamTheClient() throws Exception {
        String lockName = name("caller-completed");
        Lease held = lock(client(), lockName).acquire(Duration.ofSeconds(5));
        LockClient waiting = client();
        CompletableFuture<Lease> timedOut = lock(waiting, lockName).acquireAsync(Duration.ofSeconds(30))
                .orTimeout(200, TimeUnit.MILLISECONDS);
        CompletableFuture<Lease> completed = lock(waiting, lockName).acquireAsync(Duration.ofSeconds(30));
        assertThat(completed.complete(null)).isTrue();
        assertThatThrownBy(() -> timedOut.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(java.util.concurrent.TimeoutException.class);
        held.release();
        try (Lease next = lock(waiting, lockName).acquire(Duration.ofSeconds(2))) {
            assertThat(next.token()).isGreaterThan(held.token());
        }
    }

    @Test
    void javaLockViewIsReentrantPerThreadWithOneToken() throws Exception {
        ReentrantLeaseLock javaLock = lock(client(), name("reentrant")).asJavaLock();
        javaLock.lock();
        long token = javaLock.currentLease().orElseThrow().token();
        javaLock.lock();
        assertThat(javaLock.tryLock()).isTrue();
        assertThat(javaLock.holdCount()).isEqualTo(3);
        assertThat(javaLock.currentLease().orElseThrow().token()).isEqualTo(token);

        ExecutorService other = Executors.newSingleThreadExecutor();
        try {
            assertThat(other.submit(() -> javaLock.tryLock(100, TimeUnit.MILLISECONDS)).get()).isFalse();
            assertThatThrownBy(() -> {
                try {
                    other.submit(javaLock::unlock).get();
                } catch (java.util.concurrent.ExecutionException e) {
                    throw e.getCause();
                }
            }).isInstanceOf(IllegalMonitorStateException.class);
        } finally {
            other.shutdownNow();
        }

        javaLock.unlock();
        javaLock.unlock();
        assertThat(javaLock.isHeldByCurrentThread()).isTrue();
        javaLock.unlock();
        assertThat(javaLock.isHeldByCurrentThread()).isFalse();
        assertThatThrownBy(javaLock::unlock).isInstanceOf(IllegalMonitorStateException.class);
        assertThatThrownBy(javaLock::newCondition).isInstanceOf(UnsupportedOperationException.class);
        Optional<Lease> next = lock(client(), name("reentrant")).tryAcquire(Duration.ZERO);
        assertThat(next).isPresent();
        assertThat(next.get().token()).isGreaterThan(token);
        next.get().release();
    }

    /**
     * Failed before: each lock object had its own view, so a method that locked "x" and called
     * another that locked a new lock("x") waited for itself.
     */
    @Test
    void javaLockViewsOfOneNameAreSharedSoNestedCallsReEnter() throws Exception {
        LockClient client = client();
        ReentrantLeaseLock outer = lock(client, name("nested")).asJavaLock();
        outer.lock();
        long token = outer.currentLease().orElseThrow().token();
        ReentrantLeaseLock inner = lock(client, name("nested")).asJavaLock();
        assertThat(inner).isSameAs(outer);
        assertThat(inner.tryLock(1, TimeUnit.SECONDS)).as("re-entered, not waiting for itself").isTrue();
        assertThat(inner.holdCount()).isEqualTo(2);
        assertThat(inner.currentLease().orElseThrow().token()).isEqualTo(token);
        inner.unlock();
        outer.unlock();
        assertThat(outer.isHeldByCurrentThread()).isFalse();
        try (Lease next = lock(client(), name("nested")).acquire(Duration.ofSeconds(2))) {
            assertThat(next.token()).isGreaterThan(token);
        }
    }

    /**
     * A thread whose Java-view lease was lost (held past its fixed lease, as by a pause, while
     * another client took the lock) is refused re-entry: {@code lock()} and {@code tryLock()} throw
     * {@link LeaseLostException} instead of counting up on a lease that no longer holds the lock (no
     * acquire returns without the lock, and no error becomes {@code false}); its outer hold still
     * unlocks quietly. With the write kind, the read side of its read-write pair is refused the same
     * way, the rival being a writer (the contract runs no read kind of its own, readers sharing the
     * lock).
     */
    @Test
    void reenteringAJavaLockViewWhoseLeaseWasLostThrows() throws Exception {
        String lockName = name("reenter-lost");
        reentryIsRefusedOnceTheLeaseIsLost(lockName,
                lock(client(), lockName, LockOptions.fixedLease(Duration.ofSeconds(1))).asJavaLock());
        if (kind instanceof LockKind.Write) {
            String readName = name("reenter-lost-read");
            reentryIsRefusedOnceTheLeaseIsLost(readName,
                    client().readWriteLock(readName, LockOptions.fixedLease(Duration.ofSeconds(1))).readLock().asJavaLock());
        }
    }

    /**
     * Locks {@code javaLock}, waits until its 1 s fixed lease is lost, lets another client take the
     * lock of the kind under test named {@code lockName}, and shows that every way of re-entering
     * throws {@link LeaseLostException} while the outer hold still unlocks, leaving the rival alone.
     */
    private void reentryIsRefusedOnceTheLeaseIsLost(String lockName, ReentrantLeaseLock javaLock) throws Exception {
        javaLock.lock();
        Lease lost = javaLock.currentLease().orElseThrow();
        lost.lost().toCompletableFuture().get(10, TimeUnit.SECONDS);
        try (Lease rival = lock(client(), lockName).acquire(Duration.ofSeconds(10))) {
            assertThat(rival.token()).isGreaterThan(lost.token());
            assertThatThrownBy(javaLock::lock).isInstanceOf(LeaseLostException.class);
            assertThatThrownBy(javaLock::lockInterruptibly).isInstanceOf(LeaseLostException.class);
            assertThatThrownBy(javaLock::tryLock).isInstanceOf(LeaseLostException.class);
            assertThatThrownBy(() -> javaLock.tryLock(1, TimeUnit.SECONDS)).isInstanceOf(LeaseLostException.class);
            assertThat(javaLock.holdCount()).as("nothing counted on the lost lease").isEqualTo(1);
            javaLock.unlock();
            assertThat(javaLock.isHeldByCurrentThread()).isFalse();
            assertThat(rival.isValid()).as("the outer unlock left the rival's lease alone").isTrue();
        }
    }

    @Test
    void aThreadWaitingForItsOwnClientsHolderIsToldSo() throws Exception {
        LockClient client = client();
        Lease held = lock(client, name("own-client")).acquire(Duration.ofSeconds(5));
        ExecutorService other = Executors.newSingleThreadExecutor();
        try {
            Future<Throwable> outcome = other.submit(() -> {
                try {
                    lock(client, name("own-client")).acquire(Duration.ofMillis(200)).release();
                    return null;
                } catch (LockTimeoutException timeout) {
                    return timeout;
                }
            });
            assertThat(outcome.get(10, TimeUnit.SECONDS)).isInstanceOf(LockTimeoutException.class)
                    .hasMessageContaining(Thread.currentThread().getName());
        } finally {
            other.shutdownNow();
            held.release();
        }
    }

    @Test
    void badInputIsRejectedWithTheArgumentAndTheLimit() {
        LockClient client = client();
        assertThatThrownBy(() -> client.lock(null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lock name");
        assertThatThrownBy(() -> client.lock("")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lock name");
        assertThatThrownBy(() -> client.lock("  ")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lock name");
        assertThatThrownBy(() -> client.lock("x".repeat(5_000))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most");
        assertThatThrownBy(() -> client.lock("ok", null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("options");
        assertThatThrownBy(() -> client.lock("job\uD800")).as("'job?' on the wire: another lock's name")
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("surrogate");

        assertThatThrownBy(() -> LockOptions.watchdog(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ttl").hasMessageContaining("at least");
        assertThatThrownBy(() -> LockOptions.watchdog(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ttl").hasMessageContaining("negative");
        assertThatThrownBy(() -> LockOptions.watchdog(Duration.ofDays(400))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ttl").hasMessageContaining("at most");
        assertThatThrownBy(() -> LockOptions.watchdog(null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ttl");
        assertThatThrownBy(() -> LockOptions.fixedLease(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("leaseTime");
        assertThatThrownBy(() -> LockOptions.watchdog(Duration.ofSeconds(10)).withMaxHold(Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxHold");

        DistributedLock lock = lock(client, name("input"));
        assertThatThrownBy(() -> lock.acquire(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("wait").hasMessageContaining("negative");
        assertThatThrownBy(() -> lock.acquire(Duration.ofDays(365))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("wait").hasMessageContaining("at most");
        assertThatThrownBy(() -> lock.acquire(null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("wait");
        assertThatThrownBy(() -> lock.tryAcquire(Duration.ofMillis(-5))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("wait");
        assertThatThrownBy(() -> lock.acquireAsync(null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("wait");
    }

    @Test
    void closingTheClientEndsItsLeasesAndFreesTheirLocks() throws Exception {
        LockClient client = connect();
        DistributedLock lock = lock(client, name("close"), LockOptions.watchdog(Duration.ofSeconds(30)));
        Lease lease = lock.acquire(Duration.ofSeconds(5));
        client.close();
        assertThatThrownBy(() -> lock.acquire(Duration.ZERO)).isInstanceOf(LockClientClosedException.class);
        assertThatThrownBy(() -> lock.acquireAsync(Duration.ZERO)).isInstanceOf(LockClientClosedException.class);
        assertThatThrownBy(() -> client.lock(name("after-close"))).isInstanceOf(LockClientClosedException.class)
                .hasMessageContaining("closed");
        assertThat(lease.lost().toCompletableFuture().get(5, TimeUnit.SECONDS).getMessage()).contains("closed");
        assertThat(lease.isValid()).isFalse();
        assertThat(lease.release()).as("a lease of a closed client").isEqualTo(ReleaseStatus.ALREADY_LOST);
        client.close();
        try (Lease next = lock(client(), name("close")).acquire(Duration.ofSeconds(2))) {
            assertThat(next.token()).as("taken at once, not after the 30 s ttl").isGreaterThan(lease.token());
        }
    }

    /**
     * How an in-flight case calls off one acquire of {@code lock}, {@code delayNanos} after the
     * call: it returns the lease if the acquire won before it was called off, else {@code null}.
     */
    @FunctionalInterface
    private interface CallOff {
        Lease run(DistributedLock lock, long delayNanos) throws Exception;
    }

    /** Delays after the call, 0 to 5 ms, each tried twice: an attempt on the wire or blocked on the server. */
    private static final int[] IN_FLIGHT_DELAYS_MILLIS = {0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5};

    /**
     * Calls off an acquire of a free lock {@code 0-5 ms} after the call, while its attempt is in
     * flight, for each delay; then another client must get the lock long before the abandoned
     * attempt's 30 s ttl: an attempt that still lands after the clean-up must not leave a lease
     * held by nobody.
     */
    private void anAbandonedInFlightAttemptLeavesNothing(String how, CallOff callOff) throws Exception {
        LockClient abandoning = client();
        LockClient next = client();
        List<String> stuck = new ArrayList<>();
        int calledOff = 0;
        for (int i = 0; i < IN_FLIGHT_DELAYS_MILLIS.length; i++) {
            String lockName = name(how + ":" + i);
            Lease won = callOff.run(lock(abandoning, lockName, LockOptions.watchdog(Duration.ofSeconds(30))),
                    TimeUnit.MILLISECONDS.toNanos(IN_FLIGHT_DELAYS_MILLIS[i]));
            if (won != null) {
                won.release();
            } else {
                calledOff++;
            }
            Optional<Lease> taken = lock(next, lockName).tryAcquire(Duration.ofSeconds(3));
            if (taken.isPresent()) {
                taken.get().release();
            } else {
                stuck.add(how + " after " + IN_FLIGHT_DELAYS_MILLIS[i] + " ms");
            }
        }
        assertThat(stuck).as("locks still held 3 s after an acquire was called off in flight (%d of %d called off "
                + "before they won)", calledOff, IN_FLIGHT_DELAYS_MILLIS.length).isEmpty();
    }

    private static void spinFor(long startNanos, long delayNanos) {
        while (System.nanoTime() - startNanos < delayNanos) {
            Thread.onSpinWait();
        }
    }

    /** The lease {@code pending} brought after all, or {@code null} if it ended without one. */
    private static Lease leaseOrNull(CompletableFuture<Lease> pending) {
        try {
            return pending.get(10, TimeUnit.SECONDS);
        } catch (Exception calledOff) {
            return null;
        }
    }

    @Test
    void anAcquireCancelledWhileItsAttemptIsInFlightLeavesTheLockFree() throws Exception {
        anAbandonedInFlightAttemptLeavesNothing("cancel", (lock, delayNanos) -> {
            long start = System.nanoTime();
            CompletableFuture<Lease> pending = lock.acquireAsync(Duration.ofSeconds(5));
            spinFor(start, delayNanos);
            pending.cancel(true);
            return leaseOrNull(pending);
        });
    }

    @Test
    void anAcquireTimedOutByItsCallerWhileItsAttemptIsInFlightLeavesTheLockFree() throws Exception {
        anAbandonedInFlightAttemptLeavesNothing("timeout", (lock, delayNanos) ->
                leaseOrNull(lock.acquireAsync(Duration.ofSeconds(5)).orTimeout(Math.max(1, delayNanos), TimeUnit.NANOSECONDS)));
    }

    /**
     * A client closed right after it cancelled an acquire whose attempt was still in flight: close()
     * must wait (within its bound) for the clean-up of that acquisition, which had already left the
     * client's queue, or the abandon that follows the attempt's grant is refused by the closed
     * connections and the late grant stays held by nobody for its whole ttl.
     */
    @Test
    void aClientClosedRightAfterCancellingAnAcquireInFlightLeavesTheLockFree() throws Exception {
        LockClient next = client();
        List<String> stuck = new ArrayList<>();
        for (int delay = 0; delay <= 5; delay++) {
            String lockName = name("cancel-then-close:" + delay);
            LockClient closing = connect();
            long start = System.nanoTime();
            CompletableFuture<Lease> pending = lock(closing, lockName, LockOptions.watchdog(Duration.ofSeconds(30)))
                    .acquireAsync(Duration.ofSeconds(5));
            spinFor(start, TimeUnit.MILLISECONDS.toNanos(delay));
            pending.cancel(true);
            closing.close();
            Optional<Lease> taken = lock(next, lockName).tryAcquire(Duration.ofSeconds(3));
            if (taken.isPresent()) {
                taken.get().release();
            } else {
                stuck.add("closed " + delay + " ms after the call");
            }
        }
        assertThat(stuck).as("locks still held 3 s after their client cancelled an acquire and closed").isEmpty();
    }

    @Test
    void anAcquireInterruptedWhileItsAttemptIsInFlightLeavesTheLockFree() throws Exception {
        anAbandonedInFlightAttemptLeavesNothing("interrupt", (lock, delayNanos) -> {
            AtomicReference<Lease> won = new AtomicReference<>();
            CountDownLatch calling = new CountDownLatch(1);
            long[] calledAt = new long[1];
            Thread acquirer = new Thread(() -> {
                calledAt[0] = System.nanoTime();
                calling.countDown();
                try {
                    won.set(lock.acquire(Duration.ofSeconds(5)));
                } catch (LockInterruptedException expected) {
                    // called off in flight: what this case is about
                }
            });
            acquirer.start();
            calling.await();
            spinFor(calledAt[0], delayNanos);
            acquirer.interrupt();
            acquirer.join(10_000);
            assertThat(acquirer.isAlive()).as("the interrupted acquire returned").isFalse();
            return won.get();
        });
    }
}
