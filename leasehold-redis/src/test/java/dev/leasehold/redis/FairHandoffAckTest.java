package dev.leasehold.redis;

import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import dev.leasehold.LockUnavailableException;
import dev.leasehold.launcher.RedisSentinelGroup;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.redis.internal.LockKeys;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A fair lock handed to a waiter by a release ({@link dev.leasehold.spi.Wake.Granted}) counts only
 * once the replicas {@link LockOptions#withReplicaAck} asks for have it, like a lock the waiter's
 * own attempt took: without them the waiter's acquire fails with {@link LockUnavailableException}
 * and the lock handed to it is released, on a real server without replicas and under Sentinel with
 * the only replica frozen.
 */
@Tag("faults")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FairHandoffAckTest {

    private static final Duration ACK_TIMEOUT = Duration.ofMillis(300);
    private static final LockOptions PLAIN = LockOptions.fixedLease(Duration.ofSeconds(30));
    private static final LockOptions ACKED = PLAIN.withReplicaAck(1, ACK_TIMEOUT);

    /** No replica exists, so only a handoff that skipped the WAIT could give the waiter a lease. */
    @Test
    void aHandoffOnAServerWithoutReplicasIsReleasedAndTheWaiterIsToldHowManyAcknowledged() throws Exception {
        try (RedisServer server = RedisServer.builder().start();
             RedisLockClient holderClient = RedisLocks.connect(server.uri());
             RedisLockClient waiterClient = RedisLocks.connect(server.uri())) {
            String name = "handoff:no-replica";
            Lease held = holderClient.fairLock(name, PLAIN).acquire(Duration.ofSeconds(5));
            CompletableFuture<Lease> waiting = waiterClient.fairLock(name, ACKED).acquireAsync(Duration.ofSeconds(20))
                    .toCompletableFuture();
            awaitSubscribedWaiter(server, name);
            held.release();
            assertRefused(waiting);
            assertThat(server.command("EXISTS", name)).as("the lock handed to the waiter was released").isEqualTo(0L);
        }
    }

    /**
     * As above for a waiter covered by another waiter of its client ({@code RecheckGroups}): the
     * release echoes the covering attempt's stamp, which the covered waiter recorded as its own, and
     * the waiter still takes the lock only by an acknowledged attempt of its own.
     */
    @Test
    void aHandoffToACoveredWaiterOnAServerWithoutReplicasIsReleasedAndTheWaiterIsTold() throws Exception {
        try (RedisServer server = RedisServer.builder().start();
             RedisLockClient holderClient = RedisLocks.connect(server.uri());
             RedisLockClient waiterClient = RedisLocks.builder().uri(server.uri()).maxRecheck(Duration.ofMillis(200))
                     .connect()) {
            String name = "handoff:covered";
            LockKeys keys = LockKeys.of(name);
            Lease held = holderClient.fairLock(name, PLAIN).acquire(Duration.ofSeconds(5));
            CompletableFuture<Lease> first = waiterClient.fairLock(name, ACKED).acquireAsync(Duration.ofSeconds(20))
                    .toCompletableFuture();
            awaitSubscribedWaiter(server, name);
            CompletableFuture<Lease> covered = waiterClient.fairLock(name, ACKED).acquireAsync(Duration.ofSeconds(20))
                    .toCompletableFuture();
            ServerProbe.awaitWaiters(server, keys.queue(), 2);
            // Until one attempt of the first waiter covered the second: both registrations carry its stamp.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            List<?> info;
            do {
                assertThat(System.nanoTime()).as("a covering attempt").isLessThan(deadline);
                Thread.sleep(20);
                info = (List<?>) server.command("HVALS", keys.queueInfo());
            } while (info.size() != 2 || !((String) info.get(0)).split(" ")[2].equals(((String) info.get(1)).split(" ")[2]));
            String second = (String) ((List<?>) server.command("ZRANGE", keys.queue(), "1", "1")).get(0);
            server.command("ZADD", keys.queue(), "1", second);

            held.release();

            assertRefused(covered);
            assertRefused(first);
            assertThat(server.command("EXISTS", name)).as("the lock handed on was released").isEqualTo(0L);
        }
    }

    /** The replica acknowledges the holder's acquire, then freezes (SIGSTOP) before the release hands the lock on. */
    @Test
    void aHandoffUnderSentinelWhileTheOnlyReplicaIsFrozenIsReleasedAndTheWaiterIsTold() throws Exception {
        try (RedisSentinelGroup group = RedisSentinelGroup.start(1, null, Duration.ofSeconds(10));
             RedisLockClient holderClient = RedisLocks.connect(group.uri());
             RedisLockClient waiterClient = RedisLocks.connect(group.uri())) {
            RedisServer master = group.master();
            RedisServer replica = group.replicas().get(0);
            String name = "handoff:frozen-replica";
            Lease held = holderClient.fairLock(name, ACKED).acquire(Duration.ofSeconds(5));
            CompletableFuture<Lease> waiting = waiterClient.fairLock(name, ACKED).acquireAsync(Duration.ofSeconds(20))
                    .toCompletableFuture();
            awaitSubscribedWaiter(master, name);
            replica.pause();
            try {
                held.release();
                assertRefused(waiting);
                assertThat(master.command("EXISTS", name)).as("the lock handed to the waiter was released")
                        .isEqualTo(0L);
            } finally {
                replica.resume();
            }
        }
    }

    /**
     * Waits until the waiter is queued and subscribed, then lets its attempt after the subscription
     * settle: the release's notification then reaches it, so the handoff is what grants the lock.
     */
    private static void awaitSubscribedWaiter(RedisServer server, String name) throws InterruptedException {
        ServerProbe.awaitWaiters(server, LockKeys.of(name).queue(), 1);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!"1".equals(String.valueOf(((List<?>) server.command("PUBSUB", "NUMSUB", LockKeys.of(name).channel())).get(1)))) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the waiter did not subscribe to " + LockKeys.of(name).channel());
            }
            Thread.sleep(10);
        }
        Thread.sleep(200);
    }

    private static void assertRefused(CompletableFuture<Lease> waiting) {
        assertThatThrownBy(() -> waiting.get(15, TimeUnit.SECONDS))
                .as("the waiter must not hold a lease no replica acknowledged")
                .hasCauseInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("acknowledged by 0 replica(s)").hasMessageContaining("released");
    }
}
