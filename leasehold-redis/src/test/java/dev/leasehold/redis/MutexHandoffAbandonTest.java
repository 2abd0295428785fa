package dev.leasehold.redis;

import dev.leasehold.DistributedLock;
import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import dev.leasehold.engine.HolderIds;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.redis.internal.LockKeys;
import dev.leasehold.redis.internal.RedisScript;
import dev.leasehold.testkit.junit.TestServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static dev.leasehold.testkit.junit.Eventually.eventually;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A waiter that gives up around the moment a release reserves the key for it (lib_handoff.lua):
 * cancelled, timed out, closed, or a try that registered for a moment. Whichever comes first on
 * the server, its claim or its abandon, the lock goes on to the next waiter, who learns it from
 * the release channel. That next waiter re-checks only every 30 to 60 s (a third of its ttl, below
 * its maxRecheck), and must get the lock well before: only a wake gets it there, so a reservation
 * that merely lapsed, or a lock left held by the one who gave up, fails the test.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class MutexHandoffAbandonTest {

    @RegisterExtension
    static final TestServer<RedisServer> server = TestServer.perClass(() -> RedisServer.builder().start());
    private static final LockOptions NEXT_OPTIONS = LockOptions.watchdog(Duration.ofMinutes(3));
    private static final Duration NEXT_WAIT = Duration.ofSeconds(40);
    /** Far below the next waiter's first re-check (30 s), far above a wake and a claim on a loaded machine. */
    private static final long WOKEN_WITHIN_SECONDS = 15;
    private static final int ROUNDS = 12;

    /** How a waiter gives up. */
    private enum GiveUp { CANCEL, COMPLETE, INTERRUPT }

    @Test
    void aWaiterCancelledAroundItsReservationPassesTheLockOn() throws Exception {
        giveUpAroundTheReservation("abandon:cancel", GiveUp.CANCEL);
    }

    /** A caller's own completion (as orTimeout does) abandons the acquire like a cancellation. */
    @Test
    void aWaiterWhoseCallerCompletesTheFutureAroundItsReservationPassesTheLockOn() throws Exception {
        giveUpAroundTheReservation("abandon:complete", GiveUp.COMPLETE);
    }

    @Test
    void aWaiterInterruptedAroundItsReservationPassesTheLockOn() throws Exception {
        giveUpAroundTheReservation("abandon:interrupt", GiveUp.INTERRUPT);
    }

    @Test
    void aWaiterWhoseClientClosesAroundItsReservationPassesTheLockOn() throws Exception {
        String name = "abandon:close";
        try (RedisLockClient holderClient = RedisLocks.connect(server.get().uri());
             RedisLockClient nextClient = patientClient()) {
            for (int round = 0; round < ROUNDS; round++) {
                RedisLockClient waiterClient = RedisLocks.connect(server.get().uri());
                Lease held = holderClient.lock(name).acquire(Duration.ofSeconds(10));
                CompletableFuture<Lease> waiting = waiterClient.lock(name).acquireAsync(Duration.ofSeconds(30))
                        .toCompletableFuture();
                ServerProbe.awaitWaiters(server.get(), LockKeys.of(name).waiters(), 1);
                CompletableFuture<Lease> next = nextClient.lock(name, NEXT_OPTIONS).acquireAsync(NEXT_WAIT)
                        .toCompletableFuture();
                ServerProbe.awaitWaiters(server.get(), LockKeys.of(name).waiters(), 2);
                held.release();
                spin(round % 4 * 500_000L);
                waiterClient.close();
                leaseIfGranted(waiting);
                woken(next).release();
                eventually(() -> (Long) server.get().command("EXISTS", name) == 0L, "the lock is free at the end");
            }
        }
    }

    /**
     * The reservation is made, but the waiter has not seen it yet (its message is lost, or still on
     * its way) when it gives up, by a cancel or by closing its client: its abandon finds the key
     * reserved for it and passes it on. The release is written by hand here (the holder's key
     * freed, the waiter taken out of the registrations, the key reserved, nothing published), so
     * the abandon always lands before any claim.
     */
    @Test
    void aWaiterThatGivesUpBeforeItSeesItsReservationPassesItOn() throws Exception {
        for (boolean close : new boolean[] {false, true}) {
            String name = "abandon:unseen:" + close;
            String waiters = LockKeys.of(name).waiters();
            try (RedisLockClient holderClient = RedisLocks.connect(server.get().uri());
                 RedisLockClient waiterClient = RedisLocks.connect(server.get().uri());
                 RedisLockClient nextClient = patientClient()) {
                holderClient.lock(name, LockOptions.fixedLease(Duration.ofMinutes(1))).acquire(Duration.ofSeconds(10));
                CompletableFuture<Lease> waiting = waiterClient.lock(name).acquireAsync(Duration.ofSeconds(30))
                        .toCompletableFuture();
                ServerProbe.awaitWaiters(server.get(), waiters, 1);
                String waiter = (String) ((List<?>) server.get().command("ZRANGE", waiters, "0", "0")).get(0);
                CompletableFuture<Lease> next = nextClient.lock(name, NEXT_OPTIONS).acquireAsync(NEXT_WAIT)
                        .toCompletableFuture();
                ServerProbe.awaitWaiters(server.get(), waiters, 2);
                server.get().command("ZREM", waiters, waiter);
                server.get().command("SET", name, "~" + waiter, "PX", "60000");
                if (close) {
                    waiterClient.close();
                } else {
                    waiting.cancel(false);
                }
                Lease late = leaseIfGranted(waiting);
                if (late != null) {
                    late.release();
                }
                woken(next).release();
            }
        }
    }

    /**
     * A try without waiting registers for a moment when its client still listens on the lock's
     * channel (a wait of its own just ended there): a release that reserves the key for it then
     * (its registration is the older one) is passed on by the try's abandon.
     */
    @Test
    void aTryWithoutWaitingAroundAReleaseNeverKeepsTheLockFromTheNextWaiter() throws Exception {
        String name = "abandon:try";
        try (RedisLockClient holderClient = RedisLocks.connect(server.get().uri());
             RedisLockClient tryingClient = RedisLocks.connect(server.get().uri());
             RedisLockClient nextClient = patientClient()) {
            DistributedLock trying = tryingClient.lock(name);
            for (int round = 0; round < ROUNDS; round++) {
                trying.acquire(Duration.ofSeconds(5)).release();
                Lease held = holderClient.lock(name).acquire(Duration.ofSeconds(10));
                CompletableFuture<Lease> next = nextClient.lock(name, NEXT_OPTIONS).acquireAsync(NEXT_WAIT)
                        .toCompletableFuture();
                ServerProbe.awaitWaiters(server.get(), LockKeys.of(name).waiters(), 1);
                CompletableFuture<Optional<Lease>> tried = CompletableFuture.supplyAsync(
                        () -> trying.tryAcquire(Duration.ZERO));
                spin(ThreadLocalRandom.current().nextLong(2_000_000L));
                held.release();
                tried.get(10, TimeUnit.SECONDS).ifPresent(Lease::release);
                woken(next).release();
                eventually(() -> (Long) server.get().command("EXISTS", name) == 0L, "the lock is free at the end");
            }
        }
    }

    /**
     * A waiter that died (or whose release message is lost) after registering: the reservation
     * made for it lapses, and another waiter takes the lock at its next re-check.
     */
    @Test
    void aReservationForAWaiterThatDiedLapsesAndTheNextWaiterTakesTheLock() throws Exception {
        String name = "abandon:dead";
        LockKeys keys = LockKeys.of(name);
        String dead = new HolderIds().next();
        try (RedisLockClient holderClient = RedisLocks.connect(server.get().uri());
             RedisLockClient nextClient = RedisLocks.connect(server.get().uri());
             RedisClient raw = RedisClient.create(server.get().uri());
             StatefulRedisConnection<String, String> connection = raw.connect()) {
            Lease held = holderClient.lock(name).acquire(Duration.ofSeconds(10));
            CompletableFuture<Lease> next = nextClient.lock(name).acquireAsync(Duration.ofSeconds(10))
                    .toCompletableFuture();
            ServerProbe.awaitWaiters(server.get(), keys.waiters(), 1);
            // Registered for less than the next waiter's registration (3 s and more): the older one.
            List<Object> registered = RedisScript.load("acquire.lua").<List<Object>>run(connection.async(),
                    ScriptOutputType.MULTI, new String[] {keys.lock(), keys.fence(), keys.waiters(), keys.readers()},
                    dead, "30000", "60000", dead, "1500").get(5, TimeUnit.SECONDS);
            assertThat(registered.get(0)).isEqualTo(0L);
            held.release();
            assertThat(server.get().command("ZSCORE", keys.waiters(), dead)).as("woken, and no longer registered")
                    .isNull();
            try (Lease taken = next.get(10, TimeUnit.SECONDS)) {
                assertThat(taken.token()).isGreaterThan(held.token());
            }
        }
    }

    private void giveUpAroundTheReservation(String name, GiveUp how) throws Exception {
        try (RedisLockClient holderClient = RedisLocks.connect(server.get().uri());
             RedisLockClient waiterClient = RedisLocks.connect(server.get().uri());
             RedisLockClient nextClient = patientClient()) {
            DistributedLock waiterLock = waiterClient.lock(name);
            for (int round = 0; round < ROUNDS; round++) {
                Lease held = holderClient.lock(name).acquire(Duration.ofSeconds(10));
                CompletableFuture<Lease> waiting;
                Thread blocked = null;
                if (how == GiveUp.INTERRUPT) {
                    waiting = new CompletableFuture<>();
                    CompletableFuture<Lease> result = waiting;
                    blocked = new Thread(() -> {
                        try {
                            result.complete(waiterLock.acquire(Duration.ofSeconds(30)));
                        } catch (RuntimeException interrupted) {
                            result.completeExceptionally(interrupted);
                        }
                    });
                    blocked.start();
                } else {
                    waiting = waiterLock.acquireAsync(Duration.ofSeconds(30)).toCompletableFuture();
                }
                ServerProbe.awaitWaiters(server.get(), LockKeys.of(name).waiters(), 1);
                CompletableFuture<Lease> next = nextClient.lock(name, NEXT_OPTIONS).acquireAsync(NEXT_WAIT)
                        .toCompletableFuture();
                ServerProbe.awaitWaiters(server.get(), LockKeys.of(name).waiters(), 2);
                held.release();
                // At once in every third round: the give-up then often lands before the claim.
                spin(round % 3 == 0 ? 0 : ThreadLocalRandom.current().nextLong(3_000_000L));
                switch (how) {
                    case CANCEL -> waiting.cancel(false);
                    case COMPLETE -> waiting.completeExceptionally(new TimeoutException("the caller's own timeout"));
                    case INTERRUPT -> blocked.interrupt();
                }
                Lease late = leaseIfGranted(waiting);
                if (late != null) {
                    late.release();
                }
                woken(next).release();
                eventually(() -> (Long) server.get().command("EXISTS", name) == 0L, "the lock is free at the end");
            }
        }
    }

    /** The next waiter's lease, which a wake brought long before its own re-check would have. */
    private static Lease woken(CompletableFuture<Lease> next) throws Exception {
        return next.get(WOKEN_WITHIN_SECONDS, TimeUnit.SECONDS);
    }

    /** The lease the waiter got before it gave up, if it did: then it releases it itself. */
    private static Lease leaseIfGranted(CompletableFuture<Lease> waiting) throws InterruptedException {
        try {
            return waiting.get(10, TimeUnit.SECONDS);
        } catch (ExecutionException | CancellationException | TimeoutException gaveUp) {
            return null;
        }
    }

    /** Re-checks only every 30 to 60 s with {@link #NEXT_OPTIONS}: a wake is its only quick way to the lock. */
    private static RedisLockClient patientClient() {
        return RedisLocks.builder().uri(server.get().uri()).maxRecheck(Duration.ofMinutes(5)).connect();
    }

    private static void spin(long nanos) {
        long until = System.nanoTime() + nanos;
        while (System.nanoTime() - until < 0) {
            Thread.onSpinWait();
        }
    }
}
