package dev.leasehold.redlock;

import dev.leasehold.DistributedLock;
import dev.leasehold.InMemoryFenceGuard;
import dev.leasehold.Lease;
import dev.leasehold.LeaseLostException;
import dev.leasehold.LockOptions;
import dev.leasehold.LockUnavailableException;
import dev.leasehold.NodeFailure;
import dev.leasehold.ReleaseReport;
import dev.leasehold.ReleaseStatus;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The quorum itself, on five real redis-server processes: exclusion under contention, the token
 * write-back, surviving a minority of dead or frozen nodes, failing fast without a majority, and
 * renewal by majority. Timing bounds state their slack for a loaded two-core machine.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedlockQuorumTest {

    /** Scheduler, loopback and signal-delivery slack allowed on top of any bound the library promises. */
    private static final long SLACK_MILLIS = 150;

    @RegisterExtension
    static final TestServer<RedisNodes> nodes = TestServer.perClass(() -> RedisNodes.start(5));
    private final List<RedlockLockClient> clients = new ArrayList<>();

    @AfterEach
    void closeClientsAndHealNodes() {
        clients.forEach(RedlockLockClient::close);
        clients.clear();
        nodes.get().heal();
    }

    private RedlockLockClient client() {
        return client(RedlockLocks.builder().uris(nodes.get().uris()));
    }

    private RedlockLockClient client(RedlockLocks.Builder builder) {
        RedlockLockClient client = builder.connect();
        clients.add(client);
        return client;
    }

    private static long millisSince(long startNanos) {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }

    @Test
    void twoClientsWithEightThreadsEachExcludeEachOtherWithStrictlyIncreasingTokens() throws Exception {
        int threadsPerClient = 8;
        int total = 1_000;
        List<RedlockLockClient> both = List.of(client(), client());
        InMemoryFenceGuard guard = new InMemoryFenceGuard();
        int[] shared = {0};
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger mostInside = new AtomicInteger();
        List<Long> tokensInOrder = Collections.synchronizedList(new ArrayList<>());
        ExecutorService pool = Executors.newFixedThreadPool(threadsPerClient * 2);
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int c = 0; c < 2; c++) {
                DistributedLock lock = both.get(c).lock("counter", LockOptions.watchdog(Duration.ofSeconds(10)));
                for (int t = 0; t < threadsPerClient; t++) {
                    int worker = c * threadsPerClient + t;
                    int share = total / (threadsPerClient * 2) + (worker < total % (threadsPerClient * 2) ? 1 : 0);
                    workers.add(pool.submit(() -> {
                        for (int i = 0; i < share; i++) {
                            try (Lease lease = lock.acquire(Duration.ofSeconds(30))) {
                                mostInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                                tokensInOrder.add(lease.token());
                                // The guard refuses a stale token: none may reach it.
                                guard.admit("counter", lease.token(), () -> {
                                    int read = shared[0];
                                    Thread.yield();
                                    shared[0] = read + 1;
                                    return null;
                                });
                                inside.decrementAndGet();
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
        assertThat(mostInside.get()).as("holders inside the critical section at once").isEqualTo(1);
        assertThat(shared[0]).as("non-atomic increments under the lock").isEqualTo(total);
        assertThat(tokensInOrder).hasSize(total);
        for (int i = 1; i < tokensInOrder.size(); i++) {
            assertThat(tokensInOrder.get(i)).as("token %d in acquisition order", i).isGreaterThan(tokensInOrder.get(i - 1));
        }
        assertThat(nodes.get().holding("counter")).as("every lease released on every node").isZero();
    }

    @Test
    void theTokenIsWrittenBackToTheGrantingMajorityBeforeTheLeaseIsReturned() {
        // A counter far ahead of every clock on node 0: tokens must come from it, not from clocks.
        long ahead = System.currentTimeMillis() * 1000 + 3_600_000_000L;
        nodes.get().get(0).command("SET", "{writeback}:fence", Long.toString(ahead));
        nodes.get().get(3).kill();
        nodes.get().get(4).kill();
        RedlockLockClient locks = client();
        long first;
        try (Lease lease = locks.lock("writeback").acquire(Duration.ZERO)) {
            first = lease.token();
            assertThat(first).as("the maximum of the counters of nodes 0, 1, 2").isEqualTo(ahead + 1);
            assertThat(nodes.get().fence(1, "writeback")).as("written back before the lease was returned").isEqualTo(first);
            assertThat(nodes.get().fence(2, "writeback")).isEqualTo(first);
        }
        // Node 0, the only one whose own counter was that high, is gone: nodes 1 and 2 carry it.
        nodes.get().get(0).kill();
        nodes.get().get(3).restart();
        nodes.get().get(4).restart();
        try (Lease lease = client().lock("writeback").acquire(Duration.ofSeconds(2))) {
            assertThat(lease.token()).isEqualTo(first + 1);
        }
    }

    @Test
    void twoOfFiveNodesKilledStillLocks() {
        RedlockLockClient locks = client();
        nodes.get().get(0).kill();
        nodes.get().get(1).kill();
        long previous = Long.MIN_VALUE;
        for (int i = 0; i < 10; i++) {
            try (Lease lease = locks.lock("two-down").acquire(Duration.ofSeconds(2))) {
                assertThat(lease.token()).isGreaterThan(previous);
                assertThat(nodes.get().holding("two-down")).as("held on all three survivors").isEqualTo(3);
                assertThat(client().lock("two-down").tryAcquire(Duration.ZERO)).as("and exclusive").isEmpty();
                previous = lease.token();
            }
            assertThat(nodes.get().holding("two-down")).isZero();
        }
    }

    @Test
    void theReleaseReportSaysOnHowManyNodesTheKeyWasStillOurs() {
        RedlockLockClient locks = client();
        Lease kept = locks.lock("report").acquire(Duration.ofSeconds(2));
        nodes.get().get(0).command("DEL", "report");
        assertThat(kept.release()).isEqualTo(ReleaseStatus.RELEASED);
        assertThat(kept.releaseReport()).hasValue(new ReleaseReport(ReleaseStatus.RELEASED, 4, 5, 5));

        Lease lost = locks.lock("report").acquire(Duration.ofSeconds(2));
        for (int i = 0; i < 3; i++) {
            nodes.get().get(i).command("SET", "report", "someone-else", "PX", "10000");
        }
        assertThat(lost.release()).isEqualTo(ReleaseStatus.ALREADY_LOST);
        assertThat(lost.releaseReport()).hasValue(new ReleaseReport(ReleaseStatus.ALREADY_LOST, 2, 5, 5));
        for (int i = 0; i < 3; i++) {
            assertThat(nodes.get().get(i).command("GET", "report")).as("another holder's key is untouched").isEqualTo("someone-else");
        }
    }

    @Test
    void threeOfFiveNodesKilledFailFastWithEachNodesCauseAndLeaveNoKey() throws Exception {
        RedlockLockClient locks = client();
        List<String> dead = List.of(nodes.get().get(0).uri(), nodes.get().get(1).uri(), nodes.get().get(2).uri());
        nodes.get().get(0).kill();
        nodes.get().get(1).kill();
        nodes.get().get(2).kill();
        Thread.sleep(200); // let Lettuce see the three connections close, so they refuse rather than time out
        long start = System.nanoTime();
        assertThatThrownBy(() -> locks.lock("three-down").acquire(Duration.ofSeconds(10)))
                .isInstanceOfSatisfying(LockUnavailableException.class, e -> {
                    assertThat(e.getMessage()).contains("'three-down'").contains("2 of 5 nodes granted, 3 needed");
                    assertThat(e.failures()).extracting(NodeFailure::node).containsExactlyElementsOf(dead);
                    assertThat(e.failures()).extracting(NodeFailure::kind).containsOnly(NodeFailure.Kind.REFUSED);
                });
        assertThat(millisSince(start)).as("fails fast: no wait, no per-node timeout (1 s here)").isLessThan(SLACK_MILLIS * 2);
        assertThat(nodes.get().holding("three-down")).as("the two survivors released their grant").isZero();
        assertThat(locks.heldLeases()).isZero();
    }

    @Test
    void aFrozenNodeCostsAnAcquireNothingAndItsLateGrantIsReleased() throws Exception {
        Duration nodeTimeout = Duration.ofMillis(300);
        RedlockLockClient locks = client(RedlockLocks.builder().uris(nodes.get().uris()).nodeTimeout(nodeTimeout));
        DistributedLock lock = locks.lock("one-frozen", LockOptions.watchdog(Duration.ofSeconds(10)));
        nodes.get().get(0).pause();
        long start = System.nanoTime();
        Lease lease = lock.acquire(Duration.ofSeconds(2));
        assertThat(millisSince(start)).as("a majority answered at once; the frozen node is not awaited")
                .isLessThan(nodeTimeout.toMillis() + SLACK_MILLIS);
        assertThat(lease.isValid()).isTrue();
        start = System.nanoTime();
        assertThat(lease.release()).isEqualTo(ReleaseStatus.RELEASED);
        assertThat(millisSince(start)).as("release decided by the majority").isLessThan(nodeTimeout.toMillis() + SLACK_MILLIS);

        nodes.get().get(0).resume();
        // The frozen node now runs the acquire, then the release queued behind it on the same connection.
        awaitNoKey("one-frozen", Duration.ofSeconds(2));
    }

    @Test
    void threeFrozenNodesFailTheAcquireWithinThePerNodeTimeoutAndLeaveNoKey() throws Exception {
        Duration nodeTimeout = Duration.ofMillis(300);
        RedlockLockClient locks = client(RedlockLocks.builder().uris(nodes.get().uris()).nodeTimeout(nodeTimeout));
        DistributedLock lock = locks.lock("three-frozen", LockOptions.watchdog(Duration.ofSeconds(30)));
        nodes.get().get(0).pause();
        nodes.get().get(1).pause();
        nodes.get().get(2).pause();
        long start = System.nanoTime();
        assertThatThrownBy(() -> lock.acquire(Duration.ofSeconds(10)))
                .isInstanceOfSatisfying(LockUnavailableException.class, e -> {
                    assertThat(e.getMessage()).contains("2 of 5 nodes granted, 3 needed");
                    assertThat(e.failures()).hasSize(3).extracting(NodeFailure::kind).containsOnly(NodeFailure.Kind.TIMED_OUT);
                    assertThat(e.failures().get(0).cause()).hasMessageContaining("300 ms");
                });
        assertThat(millisSince(start)).as("one per-node timeout, then the survivors' release")
                .isBetween(nodeTimeout.toMillis(), nodeTimeout.toMillis() + SLACK_MILLIS);
        assertThat(nodes.get().holding("three-frozen")).as("survivors hold nothing").isZero();
        nodes.get().resumeAll();
        // Well within the 30 s ttl: it is the queued release that removes the late grants, not expiry.
        awaitNoKey("three-frozen", Duration.ofSeconds(2));
    }

    @Test
    void aLeaseStaysValidWhileAMajorityExtendsAndIsLostWhenItCannot() throws Exception {
        Lease lease = client().lock("renewed", LockOptions.watchdog(Duration.ofMillis(600))).acquire(Duration.ofSeconds(2));
        // Other holders take the key on two nodes (as after an expiry there): three still extend.
        nodes.get().get(0).command("SET", "renewed", "someone-else", "PX", "10000");
        nodes.get().get(1).command("SET", "renewed", "someone-else", "PX", "10000");
        Thread.sleep(1_000);
        assertThat(lease.isValid()).as("renewed by a majority past its 600 ms ttl").isTrue();
        assertThat(lease.lost().toCompletableFuture()).isNotDone();

        nodes.get().get(2).command("SET", "renewed", "someone-else", "PX", "10000");
        long start = System.nanoTime();
        LeaseLostException lost = lease.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertThat(lost.getMessage()).contains("another holder");
        assertThat(millisSince(start)).as("the next renewal (every ttl/3) finds no majority").isLessThan(200 + SLACK_MILLIS);
        assertThat(lease.release()).isEqualTo(ReleaseStatus.ALREADY_LOST);
        for (int i = 0; i < 3; i++) {
            assertThat(nodes.get().get(i).command("GET", "renewed")).as("the other holders' keys are untouched").isEqualTo("someone-else");
        }
    }

    @Test
    void anInconclusiveRoundIsRetriedAfterADelayUpToTheRetryCount() throws Exception {
        nodes.get().get(2).kill();
        RedlockLockClient once = client(RedlockLocks.builder().uris(nodes.get().uris()).retryCount(0));
        RedlockLockClient patient = client(RedlockLocks.builder().uris(nodes.get().uris())
                .retryCount(20).retryDelay(Duration.ofMillis(40), Duration.ofMillis(20)));
        // Two nodes held by someone whose keys expire in 500 ms, one node dead: two grants, no majority.
        nodes.get().get(0).command("SET", "split", "someone-else", "PX", "500");
        nodes.get().get(1).command("SET", "split", "someone-else", "PX", "500");

        assertThat(once.lock("split").tryAcquire(Duration.ZERO)).as("one round, no retry").isEmpty();
        assertThat(nodes.get().holding("split")).as("its two grants were released").isEqualTo(2);

        long start = System.nanoTime();
        Optional<Lease> lease = patient.lock("split").tryAcquire(Duration.ZERO);
        assertThat(lease).as("a retry came after the other holder's keys expired").isPresent();
        assertThat(millisSince(start)).as("it had to wait for that expiry (500 ms after the keys were set)")
                .isGreaterThanOrEqualTo(200);
        assertThat(nodes.get().holding("split")).as("a majority; node 1 may still have held the old key then").isBetween(3L, 4L);
        lease.get().release();
    }

    /** Failed before: the delayed retry round still ran after the engine gave up, taking and releasing keys. */
    @Test
    void noRetryRoundRunsAfterTheEngineGaveUp() throws Exception {
        nodes.get().get(2).kill();
        RedlockLockClient retrying = client(RedlockLocks.builder().uris(nodes.get().uris())
                .retryCount(20).retryDelay(Duration.ofMillis(300), Duration.ZERO));
        // Two nodes held by someone else, one dead, two free: every round is inconclusive.
        nodes.get().get(0).command("SET", "gave-up", "someone-else", "PX", "30000");
        nodes.get().get(1).command("SET", "gave-up", "someone-else", "PX", "30000");
        long before = acquireCalls(3);
        CompletableFuture<Lease> pending = retrying.lock("gave-up").acquireAsync(Duration.ofSeconds(30));
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (acquireCalls(3) == before && System.nanoTime() < until) {
            Thread.sleep(5);
        }
        assertThat(pending.cancel(true)).isTrue();
        Thread.sleep(100);
        long afterCleanup = acquireCalls(3);
        long fence = nodes.get().fence(3, "gave-up");
        Thread.sleep(900);
        assertThat(nodes.get().fence(3, "gave-up")).as("no grant on node 3 after the engine gave up").isEqualTo(fence);
        assertThat(acquireCalls(3)).as("acquire scripts run on node 3 after the engine gave up").isEqualTo(afterCleanup);
        assertThat(nodes.get().get(3).command("EXISTS", "gave-up")).isEqualTo(0L);
    }

    /** EVAL and EVALSHA calls node {@code index} has run so far. */
    private static long acquireCalls(int index) {
        String stats = (String) nodes.get().get(index).command("INFO", "commandstats");
        long calls = 0;
        for (String line : stats.split("\r?\n")) {
            if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
                String field = line.substring(line.indexOf("calls=") + 6);
                calls += Long.parseLong(field.substring(0, field.indexOf(',')));
            }
        }
        return calls;
    }

    private static void awaitNoKey(String name, Duration within) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (nodes.get().holding(name) > 0 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(nodes.get().holding(name)).as("no node holds '%s'", name).isZero();
    }
}
