package dev.leasehold.redis;

import dev.leasehold.DistributedLock;
import dev.leasehold.Lease;
import dev.leasehold.LeaseLostException;
import dev.leasehold.LockInterruptedException;
import dev.leasehold.LockOptions;
import dev.leasehold.LockUnavailableException;
import dev.leasehold.ReentrantLeaseLock;
import dev.leasehold.ReleaseStatus;
import dev.leasehold.testkit.fault.FaultProxy;
import dev.leasehold.launcher.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Redis-specific behaviour of the mutex, read off a real server. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisLockTest {

    private static RedisServer server;
    private final List<RedisLockClient> clients = new ArrayList<>();

    @BeforeAll
    static void startServer() {
        server = RedisServer.builder().start();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @AfterEach
    void closeClients() {
        clients.forEach(RedisLockClient::close);
        clients.clear();
    }

    private RedisLockClient client() {
        RedisLockClient client = RedisLocks.connect(server.uri());
        clients.add(client);
        return client;
    }

    @Test
    void theLockKeyIsTheNameItselfAndAuxiliaryKeysShareItsSlotWithATtl() {
        try (Lease lease = client().lock("order:123").acquire(Duration.ofSeconds(5))) {
            assertThat(server.command("EXISTS", "order:123")).isEqualTo(1L);
            assertThat((Long) server.command("PTTL", "order:123")).isBetween(1L, 30_000L);
            assertThat(server.command("GET", "{order:123}:fence")).isEqualTo(Long.toString(lease.token()));
            assertThat((Long) server.command("PTTL", "{order:123}:fence")).isPositive();
        }
        assertThat(server.command("EXISTS", "order:123")).isEqualTo(0L);
        try (Lease tagged = client().lock("{tenant-7}:job").acquire(Duration.ofSeconds(5))) {
            assertThat(server.command("GET", "{tenant-7}:job:fence")).isEqualTo(Long.toString(tagged.token()));
        }
        assertThatThrownBy(() -> client().lock("odd}name")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("hash tag");
    }

    @Test
    void aPlainSetNxClientAndLeaseholdExcludeEachOther() {
        assertThat(server.command("SET", "report:nightly", "python-worker-1", "NX", "PX", "5000")).isEqualTo("OK");
        DistributedLock lock = client().lock("report:nightly");
        assertThat(lock.tryAcquire(Duration.ZERO)).isEmpty();
        server.command("DEL", "report:nightly");

        try (Lease lease = lock.acquire(Duration.ZERO)) {
            assertThat(server.command("SET", "report:nightly", "python-worker-1", "NX", "PX", "5000")).isNull();
            assertThat(lease.isValid()).isTrue();
        }
        assertThat(server.command("SET", "report:nightly", "python-worker-1", "NX", "PX", "5000")).isEqualTo("OK");
        server.command("DEL", "report:nightly");
    }

    @Test
    void aRenewalThatFindsAnotherHolderLosesTheLeaseAtOnceAndSparesTheKey() throws Exception {
        Lease lease = client().lock("stolen", LockOptions.watchdog(Duration.ofMillis(600))).acquire(Duration.ofSeconds(5));
        // Another client's SET NX style lock takes over, as after an expiry or a failover.
        server.command("SET", "stolen", "someone-else", "PX", "10000");
        long start = System.nanoTime();
        LeaseLostException lost = lease.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);
        long millis = (System.nanoTime() - start) / 1_000_000;
        assertThat(lost.getMessage()).contains("another holder");
        assertThat(millis).as("the next renewal (every ttl/3) detects it").isLessThanOrEqualTo(200 + 150);
        assertThat(lease.isValid()).isFalse();
        assertThat(lease.release()).isEqualTo(ReleaseStatus.ALREADY_LOST);
        assertThat(server.command("GET", "stolen")).isEqualTo("someone-else");
        assertThat((Long) server.command("PTTL", "stolen")).isGreaterThan(9_000L);
        server.command("DEL", "stolen");
    }

    @Test
    void aRenewalArrivingAfterExpiryFindsTheNewHolderAndChangesNothing() throws Exception {
        try (FaultProxy proxy = FaultProxy.start(server.host(), server.port())) {
            RedisLockClient slow = RedisLocks.builder().uri("redis://" + proxy.host() + ":" + proxy.port()).connect();
            clients.add(slow);
            Lease late = slow.lock("late:renewal", LockOptions.watchdog(Duration.ofMillis(600))).acquire(Duration.ZERO);
            // Every byte to and from the slow client now takes 900 ms: its renewals reach the
            // server after the key has expired and a new holder has taken the lock.
            proxy.latency(Duration.ofMillis(900));
            Lease current = client().lock("late:renewal").acquire(Duration.ofSeconds(5));
            assertThat(current.token()).isGreaterThan(late.token());
            long pexpiresBefore = ServerProbe.calls(server, "pexpire");
            long renewalsBefore = ServerProbe.calls(server, "evalsha");
            late.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);
            assertThat(late.isValid()).isFalse();
            Thread.sleep(1_500);
            assertThat(ServerProbe.calls(server, "evalsha")).as("late renewals did reach the server").isGreaterThan(renewalsBefore);
            assertThat(ServerProbe.calls(server, "pexpire")).as("but extended nothing").isEqualTo(pexpiresBefore);
            assertThat(current.isValid()).isTrue();
            proxy.pass();
            assertThat(late.release()).isEqualTo(ReleaseStatus.ALREADY_LOST);
            assertThat(current.release()).isEqualTo(ReleaseStatus.RELEASED);
        }
    }

    @Test
    void tokensKeepIncreasingAfterTheFenceKeyExpired() throws Exception {
        RedisLockClient client = RedisLocks.builder().uri(server.uri()).fenceRetention(Duration.ofSeconds(1)).connect();
        clients.add(client);
        long first;
        try (Lease lease = client.lock("fence:expiry").acquire(Duration.ZERO)) {
            first = lease.token();
        }
        Thread.sleep(1_200);
        assertThat(server.command("EXISTS", "{fence:expiry}:fence")).as("fence key expired").isEqualTo(0L);
        try (Lease lease = client.lock("fence:expiry").acquire(Duration.ZERO)) {
            assertThat(lease.token()).isGreaterThan(first);
        }
        // A counter ahead of the clock (tokens issued in a burst) is still honoured while it lives,
        // exactly, also above 2^53 where a Lua number (a double) cannot count by one.
        long ahead = (1L << 53) + 1;
        server.command("SET", "{fence:expiry}:fence", Long.toString(ahead), "PX", "60000");
        try (Lease lease = client.lock("fence:expiry").acquire(Duration.ZERO)) {
            assertThat(lease.token()).isEqualTo(ahead + 1);
        }
        try (Lease lease = client.lock("fence:expiry").acquire(Duration.ZERO)) {
            assertThat(lease.token()).isEqualTo(ahead + 2);
        }
        server.command("DEL", "{fence:expiry}:fence");
    }

    @Test
    void aCounterAtTheLargestTokenIsRefusedWithAdviceNeverWrapped() {
        RedisLockClient client = client();
        server.command("SET", "{fence:edge}:fence", Long.toString(Long.MAX_VALUE - 1), "PX", "60000");
        try (Lease lease = client.lock("fence:edge").acquire(Duration.ZERO)) {
            assertThat(lease.token()).isEqualTo(Long.MAX_VALUE);
        }
        assertThatThrownBy(() -> client.lock("fence:edge").acquire(Duration.ofSeconds(5)))
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("{fence:edge}:fence")
                .hasMessageContaining(Long.toString(Long.MAX_VALUE))
                .hasMessageContaining("another lock name");
        assertThat(server.command("EXISTS", "fence:edge")).isEqualTo(0L);
        server.command("DEL", "{fence:edge}:fence");
    }

    @Test
    void reentryThroughTheJavaLockCostsNoRoundTripAndNoToken() {
        ReentrantLeaseLock javaLock = client().lock("reentry").asJavaLock();
        javaLock.lock();
        try {
            long token = javaLock.currentLease().orElseThrow().token();
            long evalsBefore = ServerProbe.calls(server, "evalsha") + ServerProbe.calls(server, "eval");
            long setsBefore = ServerProbe.calls(server, "set");
            for (int i = 0; i < 100; i++) {
                javaLock.lock();
            }
            assertThat(ServerProbe.calls(server, "evalsha") + ServerProbe.calls(server, "eval")).isEqualTo(evalsBefore);
            assertThat(ServerProbe.calls(server, "set")).isEqualTo(setsBefore);
            assertThat(javaLock.currentLease().orElseThrow().token()).isEqualTo(token);
            for (int i = 0; i < 100; i++) {
                javaLock.unlock();
            }
            assertThat(server.command("EXISTS", "reentry")).isEqualTo(1L);
        } finally {
            javaLock.unlock();
        }
        assertThat(server.command("EXISTS", "reentry")).isEqualTo(0L);
    }

    @Test
    void aFixedLeaseKeyCarriesExactlyTheLeaseTimeAndIsNeverRenewed() throws Exception {
        Lease lease = client().lock("fixed:key", LockOptions.fixedLease(Duration.ofMillis(700))).acquire(Duration.ZERO);
        assertThat((Long) server.command("PTTL", "fixed:key")).isBetween(600L, 700L);
        long renewalsBefore = ServerProbe.calls(server, "pexpire");
        Thread.sleep(800);
        assertThat(server.command("EXISTS", "fixed:key")).isEqualTo(0L);
        assertThat(ServerProbe.calls(server, "pexpire")).isEqualTo(renewalsBefore);
        assertThat(lease.isValid()).isFalse();
    }

    @Test
    void aWaiterWhoseNotificationIsLostStillGetsTheLockWithinTheRecheckCap() throws Exception {
        RedisLockClient holderClient = client();
        DistributedLock waiterLock = client().lock("lost:message");
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            // 1. The holder's key vanishes without any notification (expiry, or a foreign client's DEL).
            Lease vanished = holderClient.lock("lost:message").acquire(Duration.ZERO);
            Future<Lease> waiting = pool.submit(() -> waiterLock.acquire(Duration.ofSeconds(10)));
            ServerProbe.awaitWaiters(server, "{lost:message}:waiters", 1);
            long start = System.nanoTime();
            server.command("DEL", "lost:message");
            Lease taken = waiting.get(5, TimeUnit.SECONDS);
            assertThat((System.nanoTime() - start) / 1_000_000).as("silent release").isLessThanOrEqualTo(1_500L);
            assertThat(vanished.release()).isEqualTo(ReleaseStatus.ALREADY_LOST);
            assertThat(taken.isValid()).isTrue();
            taken.release();

            // 2. The waiter's subscription is cut just before the release is published.
            Lease held = holderClient.lock("lost:message").acquire(Duration.ZERO);
            waiting = pool.submit(() -> waiterLock.acquire(Duration.ofSeconds(10)));
            ServerProbe.awaitWaiters(server, "{lost:message}:waiters", 1);
            assertThat(ServerProbe.subscribers(server, "{lost:message}:released")).isEqualTo(1L);
            server.command("CLIENT", "KILL", "TYPE", "pubsub");
            start = System.nanoTime();
            held.release();
            waiting.get(5, TimeUnit.SECONDS).release();
            assertThat((System.nanoTime() - start) / 1_000_000).as("cut subscription").isLessThanOrEqualTo(1_500L);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void anInterruptedAcquireLeavesNoWaiterNoSubscriptionAndNoKey() throws Exception {
        RedisLockClient waiterClient = client();
        Lease held = client().lock("interrupted").acquire(Duration.ZERO);
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        CountDownLatch started = new CountDownLatch(1);
        Thread waiter = new Thread(() -> {
            started.countDown();
            try {
                waiterClient.lock("interrupted").acquire(Duration.ofSeconds(30));
            } catch (Throwable t) {
                thrown.set(t);
            }
        });
        waiter.start();
        started.await();
        ServerProbe.awaitWaiters(server, "{interrupted}:waiters", 1);
        assertThat(ServerProbe.subscribers(server, "{interrupted}:released")).isEqualTo(1L);
        waiter.interrupt();
        waiter.join(5_000);
        assertThat(thrown.get()).isInstanceOf(LockInterruptedException.class);

        assertThat(ServerProbe.subscribers(server, "{interrupted}:released")).isZero();
        assertThat(waiterClient.activeSubscriptions()).isZero();
        assertThat(server.command("EXISTS", "{interrupted}:waiters")).isEqualTo(0L);
        assertThat(waiterClient.heldLeases()).isZero();
        held.release();
        assertThat(server.command("EXISTS", "interrupted")).isEqualTo(0L);
        assertThat(waiterClient.pendingTimers()).isZero();
    }

    @Test
    void releasePublishesOnlyWhenSomeoneWaits() throws Exception {
        DistributedLock lock = client().lock("quiet");
        long publishesBefore = ServerProbe.calls(server, "publish");
        for (int i = 0; i < 20; i++) {
            lock.acquire(Duration.ZERO).release();
        }
        assertThat(ServerProbe.calls(server, "publish")).isEqualTo(publishesBefore);

        Lease held = lock.acquire(Duration.ZERO);
        DistributedLock waiterLock = client().lock("quiet");
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<Lease> waiting = pool.submit(() -> waiterLock.acquire(Duration.ofSeconds(5)));
            ServerProbe.awaitWaiters(server, "{quiet}:waiters", 1);
            held.release();
            waiting.get(5, TimeUnit.SECONDS).release();
        } finally {
            pool.shutdownNow();
        }
        assertThat(ServerProbe.calls(server, "publish")).isEqualTo(publishesBefore + 1);
    }

    @Test
    void threadsOfOneClientQueueLocallyInArrivalOrderAndOnlyTheHeadTalksToTheServer() throws Exception {
        RedisLockClient client = client();
        DistributedLock lock = client.lock("local:queue");
        Lease held = client().lock("local:queue").acquire(Duration.ZERO);
        List<Integer> order = java.util.Collections.synchronizedList(new ArrayList<>());
        ExecutorService pool = Executors.newFixedThreadPool(5);
        try {
            List<Future<?>> waiters = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                int id = i;
                waiters.add(pool.submit(() -> {
                    try (Lease lease = lock.acquire(Duration.ofSeconds(20))) {
                        order.add(id);
                    }
                    return null;
                }));
                // Let this waiter enter the local queue before the next one arrives.
                long deadline = System.nanoTime() + 5_000_000_000L;
                while (client.queuedAcquisitions("local:queue") < i + 1) {
                    assertThat(System.nanoTime()).isLessThan(deadline);
                    Thread.sleep(5);
                }
            }
            ServerProbe.awaitWaiters(server, "{local:queue}:waiters", 1);
            Thread.sleep(200);
            assertThat((Long) server.command("ZCARD", "{local:queue}:waiters")).as("only the head waits on the server").isEqualTo(1L);
            assertThat(ServerProbe.subscribers(server, "{local:queue}:released")).isEqualTo(1L);
            held.release();
            for (Future<?> waiter : waiters) {
                waiter.get(10, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(order).containsExactly(0, 1, 2, 3, 4);
        assertThat(client.activeLockNames()).isZero();
    }

    @Test
    void aRepeatedHandoffBetweenClientsCostsThreeScriptCallsAndNoNewSubscription() throws Exception {
        // A server of its own: the count must not include another test's late traffic.
        RedisServer server = RedisServer.builder().start();
        RedisLockClient holderClient = RedisLocks.connect(server.uri());
        RedisLockClient waiterClient = RedisLocks.connect(server.uri());
        DistributedLock waiterLock = waiterClient.lock("handoff:warm");
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            long subscribesAfterFirst = 0;
            long evalshaBefore = 0;
            for (int round = 0; round < 6; round++) {
                if (round == 1) {
                    subscribesAfterFirst = ServerProbe.calls(server, "subscribe");
                    evalshaBefore = ServerProbe.calls(server, "evalsha");
                }
                Lease held = holderClient.lock("handoff:warm").acquire(Duration.ZERO);
                Future<Lease> waiting = pool.submit(() -> waiterLock.acquire(Duration.ofSeconds(10)));
                ServerProbe.awaitWaiters(server, "{handoff:warm}:waiters", 1);
                held.release();
                waiting.get(5, TimeUnit.SECONDS).release();
            }
            assertThat(ServerProbe.calls(server, "subscribe")).as("the subscription stayed warm").isEqualTo(subscribesAfterFirst);
            // Per round: the holder's acquire and release, the waiter's registering attempt, its
            // winning attempt and its release. The handoff itself is the last three but one.
            assertThat(ServerProbe.calls(server, "evalsha") - evalshaBefore).isEqualTo(5 * 5);
        } finally {
            pool.shutdownNow();
            holderClient.close();
            waiterClient.close();
            server.close();
        }
    }

    @Test
    void renewalsThatFallDueTogetherGoOutAsOneScriptCall() throws Exception {
        RedisLockClient client = client();
        List<Lease> leases = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            leases.add(client.lock("batch:" + i, LockOptions.watchdog(Duration.ofMillis(600))).acquire(Duration.ZERO));
        }
        long callsBefore = ServerProbe.calls(server, "evalsha") + ServerProbe.calls(server, "eval");
        long extendsBefore = ServerProbe.calls(server, "pexpire");
        // Every 200 ms each of the 300 leases is renewed; count calls over four rounds of renewals,
        // however long a loaded machine takes for them.
        long extensions = 0;
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (extensions < 300L * 4 && System.nanoTime() < until) {
            Thread.sleep(50);
            extensions = ServerProbe.calls(server, "pexpire") - extendsBefore;
        }
        long calls = ServerProbe.calls(server, "evalsha") + ServerProbe.calls(server, "eval") - callsBefore;
        assertThat(extensions).isGreaterThanOrEqualTo(300L * 4);
        assertThat(calls).as("script calls for %d extensions", extensions).isLessThan(extensions / 10);
        for (Lease lease : leases) {
            assertThat(lease.isValid()).isTrue();
            assertThat(lease.release()).isEqualTo(ReleaseStatus.RELEASED);
        }
    }

    @Test
    void releasesRacingRenewalsLeaveNoRenewalTaskBehind() throws Exception {
        RedisLockClient client = client();
        // A 150 ms ttl renews every 50 ms, so releases land before, during and after renewals.
        DistributedLock lock = client.lock("racing:renewals", LockOptions.watchdog(Duration.ofMillis(150)));
        for (int i = 0; i < 120; i++) {
            Lease lease = lock.acquire(Duration.ofSeconds(5));
            Thread.sleep(45 + i % 15);
            // What is tested is the timers; on a loaded machine a renewal may come too late and
            // the lease be lost before its release, which is then reported as such.
            assertThat(lease.release()).isIn(ReleaseStatus.RELEASED, ReleaseStatus.ALREADY_LOST);
            assertThat(lease.isValid()).isFalse();
        }
        assertThat(client.pendingTimers()).isZero();
        assertThat(client.heldLeases()).isZero();
        long scriptsAfter = ServerProbe.calls(server, "evalsha");
        Thread.sleep(200);
        assertThat(ServerProbe.calls(server, "evalsha")).as("no renewal after the last release").isEqualTo(scriptsAfter);
        assertThat(server.command("EXISTS", "racing:renewals")).isEqualTo(0L);
    }

    @Test
    void tenThousandCyclesLeaveNoImmortalKeyNoThreadAndNoSubscription() throws Exception {
        server.command("FLUSHALL");
        RedisLockClient client = client();
        Lease warm = client.lock("cycle:warmup").acquire(Duration.ZERO);
        warm.release();
        int threadsBefore = ServerProbe.clientThreads().size();
        long connectionsBefore = ServerProbe.connectedClients(server);
        for (int i = 0; i < 10_000; i++) {
            DistributedLock lock = client.lock("cycle:" + (i % 50));
            Lease lease = lock.acquire(Duration.ofSeconds(5));
            assertThat(lease.release()).isEqualTo(ReleaseStatus.RELEASED);
        }
        assertThat(ServerProbe.keysWithoutTtl(server)).as("keys that would live forever").isEmpty();
        assertThat(ServerProbe.keys(server)).as("only fence keys remain, one per lock name")
                .allMatch(key -> key.endsWith("}:fence")).hasSizeLessThanOrEqualTo(51);
        assertThat(ServerProbe.clientThreads()).hasSize(threadsBefore);
        assertThat(ServerProbe.connectedClients(server)).isEqualTo(connectionsBefore);
        assertThat(client.activeSubscriptions()).isZero();
        assertThat(client.heldLeases()).isZero();
        assertThat(client.pendingTimers()).isZero();
        assertThat((List<?>) server.command("PUBSUB", "CHANNELS")).isEmpty();
    }
}
