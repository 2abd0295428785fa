package dev.leasehold.redis;

import dev.leasehold.InMemoryFenceGuard;
import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import dev.leasehold.StaleTokenException;
import dev.leasehold.launcher.RedisSentinelGroup;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.testkit.history.History;
import dev.leasehold.testkit.history.HistoryChecker;
import dev.leasehold.testkit.history.Hold;
import dev.leasehold.testkit.history.Verdict;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Failovers of a real master behind three Sentinels: the client follows them without a restart,
 * a waiter survives one, and a master killed before replicating shows the double grant Redis
 * replication allows, which the fencing token turns into a refused stale write.
 */
@Tag("faults")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SentinelFailoverTest {

    private RedisSentinelGroup group;

    @AfterEach
    void stop() {
        if (group != null) {
            group.close();
        }
    }

    /**
     * A forced failover while one client holds a lock and another waits for it: the clients follow
     * the promoted master without a restart, the waiter gets the lock, and never while the holder's
     * lease is valid (the history checker sees no overlap). The holder either keeps its lease (its
     * renewals reach the new master) or is told lost() first: a client that reconnected to the
     * demoted master before every Sentinel switched reads the lock as free during that node's
     * resync, so its renewal fails; the waiter's acquire there is refused (READONLY), never granted.
     */
    @Test
    void theClientsFollowAFailoverAndTheWaiterGetsTheLockNeverWhileTheHolderIsValid() throws Exception {
        group = RedisSentinelGroup.start(2, null);
        try (RedisLockClient holderClient = RedisLocks.connect(group.uri());
             RedisLockClient waiterClient = RedisLocks.connect(group.uri())) {
            History history = new History();
            long heldSent = System.nanoTime();
            Lease held = holderClient.lock("failover:wait", LockOptions.watchdog(Duration.ofSeconds(10)))
                    .acquire(Duration.ofSeconds(5));
            long heldAcquired = System.nanoTime();
            AtomicLong heldUntil = new AtomicLong(Long.MAX_VALUE);
            held.lost().whenComplete((lost, error) -> heldUntil.compareAndSet(Long.MAX_VALUE, System.nanoTime()));
            long waitSent = System.nanoTime();
            CompletableFuture<Lease> waiting = waiterClient.lock("failover:wait").acquireAsync(Duration.ofSeconds(60))
                    .toCompletableFuture();
            Thread.sleep(300);
            RedisServer old = group.master();
            RedisServer promoted = group.failover();
            assertThat(promoted).isNotSameAs(old);
            Thread.sleep(4_000);
            boolean survived = held.isValid();
            if (survived) {
                heldUntil.compareAndSet(Long.MAX_VALUE, System.nanoTime());
                held.release();
            }
            Lease next = waiting.get(20, TimeUnit.SECONDS);
            long nextAcquired = System.nanoTime();
            System.out.println("holder's lease " + (survived ? "survived the failover" : "was lost in the failover"));
            history.hold(new Hold("holder", held.token(), heldSent, heldAcquired, heldUntil.get()));
            history.hold(new Hold("waiter", next.token(), waitSent, nextAcquired, nextAcquired + 1));
            Verdict verdict = HistoryChecker.check(history);
            assertThat(verdict.overlaps()).as(verdict.toString()).isZero();
            assertThat(next.token()).isGreaterThan(held.token());
            assertThat(promoted.command("GET", "failover:wait")).as("the lock lives on the new master").isNotNull();
            next.release();
            // Both clients still work on the new master without a restart.
            holderClient.lock("failover:after").acquire(Duration.ofSeconds(10)).release();
        }
    }

    /**
     * A forced failover while three fair waiters of one client wait, re-checked together by the
     * first arrival's attempts (which keep the others' registrations and name those that must act):
     * every waiter gets the lock on the promoted master once the holder's fixed lease is over, none
     * while another holder's lease is valid, with tokens rising in grant order. A fixed lease, so no
     * renewal can reach the old master after the promotion (the window a watchdog lease without
     * {@code withReplicaAck} has, see docs/guarantees.md).
     */
    @Test
    void coveredFairWaitersFollowAFailoverAndNeverHoldWhileAnotherHolderIsValid() throws Exception {
        group = RedisSentinelGroup.start(2, null);
        try (RedisLockClient holderClient = RedisLocks.connect(group.uri());
             RedisLockClient waiterClient = RedisLocks.builder().uri(group.uri()).maxRecheck(Duration.ofMillis(300))
                     .connect()) {
            History history = new History();
            String name = "failover:fair";
            long heldSent = System.nanoTime();
            Lease held = holderClient.fairLock(name, LockOptions.fixedLease(Duration.ofSeconds(6)))
                    .acquire(Duration.ofSeconds(5));
            long heldAcquired = System.nanoTime();
            CompletableFuture<Long> heldUntil = held.lost().toCompletableFuture()
                    .handle((lost, error) -> System.nanoTime());
            List<CompletableFuture<Long>> served = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                String waiter = "waiter-" + i;
                long sent = System.nanoTime();
                served.add(waiterClient.fairLock(name).acquireAsync(Duration.ofSeconds(60)).toCompletableFuture()
                        .thenApply(lease -> {
                            // It claims the lock until its release is sent, which may hand the lock on
                            // before the reply comes back.
                            long acquired = System.nanoTime();
                            history.hold(new Hold(waiter, lease.token(), sent, acquired, System.nanoTime()));
                            lease.release();
                            return lease.token();
                        }));
            }
            Thread.sleep(1_500);
            RedisServer promoted = group.failover();
            for (CompletableFuture<Long> each : served) {
                assertThat(each.get(30, TimeUnit.SECONDS)).isGreaterThan(held.token());
            }
            history.hold(new Hold("holder", held.token(), heldSent, heldAcquired, heldUntil.get(5, TimeUnit.SECONDS)));
            Verdict verdict = HistoryChecker.check(history);
            assertThat(verdict.overlaps()).as(verdict.toString()).isZero();
            assertThat(verdict.tokenInversions()).as(verdict.toString()).isZero();
            assertThat(promoted.command("EXISTS", name)).as("released on the new master").isEqualTo(0L);
        }
    }

    /**
     * The seed articles' failure on real servers: A's lock is acknowledged by the master only (its
     * replicas are frozen), the master dies before replicating it, a replica is promoted without the
     * key, and B is granted the same lock while A's lease is still valid. The history checker sees
     * the two holders; the guard refuses A's late write, because B's token, drawn from the promoted
     * master's clock, exceeds A's.
     */
    @Test
    void aMasterKilledBeforeReplicatingGrantsTheLockTwiceAndTheGuardRefusesTheStaleWrite() throws Exception {
        group = RedisSentinelGroup.start(2, null);
        try (RedisLockClient a = RedisLocks.connect(group.uri())) {
            RedisServer master = group.master();
            List<RedisServer> replicas = group.replicas();
            History history = new History();
            replicas.forEach(RedisServer::pause);
            // Cut the replication links too: a frozen replica still has the stream in its socket buffer.
            master.command("CLIENT", "KILL", "TYPE", "replica");
            long aSent = System.nanoTime();
            Lease leaseA = a.lock("failover:story", LockOptions.fixedLease(Duration.ofSeconds(60)))
                    .acquire(Duration.ofSeconds(5));
            history.hold(new Hold("A", leaseA.token(), aSent, System.nanoTime(), aSent + Duration.ofSeconds(59).toNanos()));
            master.kill();
            replicas.forEach(RedisServer::resume);
            group.awaitNewMaster(master);

            // B is another process, started after the failover.
            RedisLockClient b = RedisLocks.connect(group.uri());
            long bSent = System.nanoTime();
            Lease leaseB = b.lock("failover:story", LockOptions.fixedLease(Duration.ofSeconds(60)))
                    .acquire(Duration.ofSeconds(20));
            history.hold(new Hold("B", leaseB.token(), bSent, System.nanoTime(), bSent + Duration.ofSeconds(59).toNanos()));
            assertThat(leaseA.isValid()).as("A still believes it holds the lock").isTrue();
            Verdict verdict = HistoryChecker.check(history);
            assertThat(verdict.overlaps()).as("two valid holders at once: " + verdict).isPositive();

            InMemoryFenceGuard guard = new InMemoryFenceGuard();
            assertThat(leaseB.token()).as("B's token exceeds A's").isGreaterThan(leaseA.token());
            guard.admit("orders/1", leaseB.token(), () -> "B's write");
            assertThatThrownBy(() -> guard.admit("orders/1", leaseA.token(), () -> "A's late write"))
                    .isInstanceOf(StaleTokenException.class);
            leaseB.release();
            b.close();
        }
    }

    /**
     * The same kill with {@code withReplicaAck(1, ...)}: the acquire returned only once the replica
     * had the key, so the promoted replica still holds it and B is refused while A's lease lives.
     */
    @Test
    void withReplicaAckTheLockSurvivesTheMastersDeath() throws Exception {
        group = RedisSentinelGroup.start(1, null);
        try (RedisLockClient a = RedisLocks.connect(group.uri())) {
            RedisServer master = group.master();
            Lease leaseA = a.lock("failover:acked", LockOptions.fixedLease(Duration.ofSeconds(60))
                    .withReplicaAck(1, Duration.ofMillis(500))).acquire(Duration.ofSeconds(5));
            master.kill();
            group.awaitNewMaster(master);
            try (RedisLockClient b = RedisLocks.connect(group.uri())) {
                assertThat(b.lock("failover:acked").tryAcquire(Duration.ofSeconds(2)))
                        .as("B does not get the lock while A's lease lives").isEmpty();
                assertThat(b.inspect("failover:acked").lastToken()).hasValue(leaseA.token());
            }
            assertThat(leaseA.isValid()).isTrue();
        }
    }

    @Test
    void aWatchdogLeaseWhoseKeyTheFailoverLostIsToldLostByItsLocalDeadline() throws Exception {
        group = RedisSentinelGroup.start(1, null);
        try (RedisLockClient a = RedisLocks.connect(group.uri())) {
            RedisServer master = group.master();
            RedisServer replica = group.replicas().get(0);
            replica.pause();
            master.command("CLIENT", "KILL", "TYPE", "replica");
            Duration ttl = Duration.ofSeconds(2);
            long sent = System.nanoTime();
            Lease lease = a.lock("failover:renewal", LockOptions.watchdog(ttl)).acquire(Duration.ofSeconds(5));
            master.kill();
            replica.resume();
            lease.lost().toCompletableFuture().get(30, TimeUnit.SECONDS);
            long lostAfterMillis = (System.nanoTime() - sent) / 1_000_000;
            assertThat(lease.isValid()).isFalse();
            // Renewals fail while no master answers, so the lease ends by its local deadline at the latest,
            // or earlier when a renewal reaches the promoted master and finds the key gone.
            assertThat(lostAfterMillis).isLessThanOrEqualTo(ttl.toMillis() + 200);
        }
    }
}
