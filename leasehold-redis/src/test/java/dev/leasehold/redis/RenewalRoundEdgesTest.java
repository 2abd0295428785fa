package dev.leasehold.redis;

import dev.leasehold.Lease;
import dev.leasehold.LeaseLostException;
import dev.leasehold.LeaseSource;
import dev.leasehold.LockOptions;
import dev.leasehold.ReleaseStatus;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.redis.internal.LockKeys;
import dev.leasehold.testkit.fault.FaultProxy;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;

import static dev.leasehold.testkit.junit.Eventually.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Attacks on the watchdog's renewal rounds as a user in trouble meets them: keys of another type
 * under the leases of every kind in one round, a client closed while a round's answer is on the
 * wire, leases released or deleted between a round's send and its answer, and a client reused
 * right after a cancelled acquire, then closed.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class RenewalRoundEdgesTest {

    @RegisterExtension
    static final TestServer<RedisServer> server = TestServer.perClass(() -> RedisServer.builder().start());

    /**
     * One round renews mutexes, read leases and permits of one ttl; a mutex key becomes a list, a
     * read lease's readers key a string and a permit's set a hash. Each of those three is lost, and
     * told so at once by {@link Lease#lost()} (its release says so too; its foreign key is left alone); every other lease keeps renewing.
     */
    @Test
    void keysOfAnotherTypeUnderLeasesOfEveryKindLoseOnlyTheirOwnLease() throws Exception {
        Duration ttl = Duration.ofMillis(1_500); // renewals every 500 ms: a loaded machine keeps up
        LockOptions options = LockOptions.watchdog(ttl);
        try (RedisLockClient client = RedisLocks.connect(server.get().uri())) {
            List<Lease> leases = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                leases.add(client.lock("edge:type:m" + i, options).acquire(Duration.ZERO));
                leases.add(client.readWriteLock("edge:type:r" + i, options).readLock().acquire(Duration.ZERO));
                leases.add(client.semaphore("edge:type:p" + i, 2, options).acquire(Duration.ZERO));
            }
            String list = "edge:type:m2";
            String string = LockKeys.readersOf("edge:type:r4");
            String hash = LockKeys.permitsOf("edge:type:p1");
            server.get().command("DEL", list, string, hash);
            server.get().command("RPUSH", list, "someone's", "queue");
            server.get().command("SET", string, "someone's value");
            server.get().command("HSET", hash, "someone's", "field");
            Set<String> foreign = Set.of("edge:type:m2", "edge:type:r4", "edge:type:p1");

            Thread.sleep(ttl.multipliedBy(3).toMillis()); // nine renewal periods
            for (Lease lease : leases) {
                boolean lost = foreign.contains(lease.lockName());
                assertThat(lease.isValid()).as(lease.lockName()).isEqualTo(!lost);
                assertThat(lease.lost().toCompletableFuture().isDone()).as("%s told of a loss", lease.lockName())
                        .isEqualTo(lost);
                if (lost) {
                    assertThat(lease.lost().toCompletableFuture().join()).as(lease.lockName())
                            .hasMessageContaining("another holder or no key");
                    assertThatThrownBy(lease::ensureValid).as(lease.lockName()).isInstanceOf(LeaseLostException.class);
                    assertThat(lease.release()).as(lease.lockName()).isEqualTo(ReleaseStatus.ALREADY_LOST);
                } else {
                    assertThat(lease.release()).as(lease.lockName()).isEqualTo(ReleaseStatus.RELEASED);
                }
            }
            assertThat(server.get().command("TYPE", list)).isEqualTo("list");
            assertThat(server.get().command("TYPE", string)).isEqualTo("string");
            assertThat(server.get().command("TYPE", hash)).isEqualTo("hash");
            server.get().command("DEL", list, string, hash);
        }
    }

    /**
     * A client closed while its renewal round's answer is held on the wire: close() returns, no
     * exception reaches an uncaught handler, the client's own threads end, its leases are no
     * longer valid (each told why) and their keys are gone (the releases went out behind the round).
     */
    @Test
    void aClientClosedWithARoundInFlightEndsItsLeasesAndLeavesNoThread() throws Exception {
        List<Throwable> uncaught = new CopyOnWriteArrayList<>();
        Thread.UncaughtExceptionHandler previous = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler((thread, error) -> uncaught.add(error));
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        try (FaultProxy proxy = FaultProxy.start(server.get().host(), server.get().port())) {
            RedisLockClient client = RedisLocks.builder().uri("redis://" + proxy.host() + ":" + proxy.port())
                    .operationTimeout(Duration.ofMillis(800)).connect();
            // The release script is in the server's cache: a NOSCRIPT answer held on the wire would
            // hold back the release itself until after the close, leaving the keys to their ttl.
            client.lock("edge:close:warm-up").acquire(Duration.ZERO).release();
            List<Lease> leases = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                leases.add(client.lock("edge:close:" + i, LockOptions.watchdog(Duration.ofSeconds(3))).acquire(Duration.ZERO));
            }
            proxy.holdReplies();
            Thread.sleep(1_300); // past the first renewal (a third of the ttl): its round waits for its answer
            long start = System.nanoTime();
            client.close();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("close() returned").isLessThan(Duration.ofSeconds(10));
            for (Lease lease : leases) {
                assertThat(lease.isValid()).as(lease.lockName()).isFalse();
                assertThat(lease.lost().toCompletableFuture().getNow(null)).as(lease.lockName())
                        .hasMessageContaining("closed");
            }
            for (int i = 0; i < 30; i++) {
                assertThat(server.get().command("EXISTS", "edge:close:" + i)).as("key %d, well within its ttl", i)
                        .isEqualTo(0L);
            }
            proxy.releaseReplies();
            eventually(() -> clientThreads(before).isEmpty(), "the client's threads end: " + clientThreads(before),
                    Duration.ofSeconds(10));
            Thread.sleep(500); // held replies delivered to a closed client, if they ever are
            assertThat(uncaught).isEmpty();
        } finally {
            Thread.setDefaultUncaughtExceptionHandler(previous);
        }
    }

    private static List<String> clientThreads(Set<Thread> before) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> !before.contains(thread) && thread.isAlive())
                .map(Thread::getName)
                .filter(name -> name.startsWith("leasehold-renewal") || name.startsWith("lettuce"))
                .collect(Collectors.toList());
    }

    /**
     * Twenty leases of one round; while the round's answer is held, one lease is released and
     * another's key deleted by an operator. The released one stays released (the late 'extended'
     * answer revives nothing), the deleted one is lost at the next round, and the other eighteen
     * keep renewing.
     */
    @Test
    void leasesReleasedOrDeletedBetweenARoundsSendAndItsAnswer() throws Exception {
        Duration ttl = Duration.ofSeconds(3);
        try (FaultProxy proxy = FaultProxy.start(server.get().host(), server.get().port());
             RedisLockClient client = RedisLocks.builder().uri("redis://" + proxy.host() + ":" + proxy.port())
                     .operationTimeout(Duration.ofSeconds(2)).connect()) {
            List<Lease> leases = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                leases.add(client.lock("edge:between:" + i, LockOptions.watchdog(ttl)).acquire(Duration.ZERO));
            }
            proxy.holdReplies();
            Thread.sleep(1_200); // the first round (at a third of the ttl) has run on the server, unanswered
            CompletableFuture<ReleaseStatus> released = leases.get(5).releaseAsync();
            server.get().command("DEL", "edge:between:9");
            Thread.sleep(200);
            proxy.releaseReplies();

            assertThat(released.get(5, TimeUnit.SECONDS)).isEqualTo(ReleaseStatus.RELEASED);
            assertThat(leases.get(5).isValid()).isFalse();
            assertThat(server.get().command("EXISTS", "edge:between:5")).isEqualTo(0L);
            eventually(() -> !leases.get(9).isValid(), "the deleted key's lease is lost at the next round",
                    Duration.ofSeconds(5));
            Thread.sleep(ttl.multipliedBy(2).toMillis());
            for (int i = 0; i < 20; i++) {
                if (i != 5 && i != 9) {
                    assertThat(leases.get(i).isValid()).as("lease %d", i).isTrue();
                    assertThat(leases.get(i).release()).as("lease %d", i).isEqualTo(ReleaseStatus.RELEASED);
                }
            }
            assertThat(leases.get(5).isValid()).as("still released").isFalse();
            assertThat(server.get().command("EXISTS", "edge:between:5")).isEqualTo(0L);
            assertThat(leases.get(9).release()).isEqualTo(ReleaseStatus.ALREADY_LOST);
        }
    }

    /**
     * An acquire cancelled in flight, the same name acquired at once on the same client, then the
     * client closed without releasing: the second acquire is granted, and the close leaves the
     * lock free for another client.
     */
    @Test
    void aClientReusedRightAfterACancelThenClosedLeavesTheLockFree() throws Exception {
        List<String> stuck = new ArrayList<>();
        try (RedisLockClient next = RedisLocks.connect(server.get().uri())) {
            for (int round = 0; round < 12; round++) {
                String name = "edge:cancel-reuse:" + round;
                RedisLockClient client = RedisLocks.connect(server.get().uri());
                LockOptions options = LockOptions.watchdog(Duration.ofSeconds(30));
                CompletableFuture<Lease> pending = client.lock(name, options).acquireAsync(Duration.ofSeconds(5));
                Thread.sleep(0, (round * 97_000) % 1_000_000);
                if (!pending.cancel(true)) {
                    pending.join().release(); // granted before the cancel: the caller holds it, not a defect
                }
                Lease again = client.lock(name, options).acquire(Duration.ofSeconds(5));
                assertThat(again.isValid()).isTrue();
                client.close();
                assertThat(again.isValid()).isFalse();
                Optional<Lease> taken = next.lock(name).tryAcquire(Duration.ofSeconds(3));
                if (taken.isPresent()) {
                    taken.get().release();
                } else {
                    stuck.add("round " + round);
                }
            }
        }
        assertThat(stuck).as("locks still held 3 s after their client closed").isEmpty();
    }

    /**
     * Acquires that time out waiting behind another client's holder (a mutex, a fair lock, a write
     * lock, a permit), the same name taken on the same client right after the holder lets go, then
     * the client closed without releasing: the other client gets every lock at once, so neither the
     * timed-out waiter's registration nor the second lease outlives the close.
     */
    @Test
    void aClientReusedRightAfterATimeoutThenClosedLeavesEveryKindFree() throws Exception {
        LockOptions options = LockOptions.watchdog(Duration.ofSeconds(30));
        List<String> stuck = new ArrayList<>();
        try (RedisLockClient holder = RedisLocks.connect(server.get().uri());
             RedisLockClient next = RedisLocks.connect(server.get().uri())) {
            for (int round = 0; round < 4; round++) {
                List<Function<LockClientSides, LeaseSource>> kinds = List.of(
                        sides -> sides.client.lock(sides.name, options),
                        sides -> sides.client.fairLock(sides.name, options),
                        sides -> sides.client.readWriteLock(sides.name, options).writeLock(),
                        sides -> sides.client.semaphore(sides.name, 1, options));
                for (int kind = 0; kind < kinds.size(); kind++) {
                    String name = "edge:timeout-reuse:" + kind + ":" + round;
                    Function<LockClientSides, LeaseSource> source = kinds.get(kind);
                    RedisLockClient client = RedisLocks.connect(server.get().uri());
                    Lease held = source.apply(new LockClientSides(holder, name)).acquire(Duration.ZERO);
                    assertThat(source.apply(new LockClientSides(client, name)).tryAcquire(Duration.ofMillis(40 + 20 * round)))
                            .as("%s: held by the other client", name).isEmpty();
                    held.release();
                    Lease again = source.apply(new LockClientSides(client, name)).acquire(Duration.ofSeconds(5));
                    assertThat(again.isValid()).isTrue();
                    client.close();
                    Optional<Lease> taken = source.apply(new LockClientSides(next, name)).tryAcquire(Duration.ofSeconds(3));
                    if (taken.isPresent()) {
                        taken.get().release();
                    } else {
                        stuck.add(name);
                    }
                }
            }
        }
        assertThat(stuck).as("locks still held 3 s after their client closed").isEmpty();
    }

    /**
     * The server forgets its scripts (SCRIPT FLUSH, as after a restart) again and again while
     * mutexes and permits are held: each round's calls fall back to EVAL and every lease keeps
     * renewing.
     */
    @Test
    void roundsAfterTheServerForgotItsScriptsStillRenewEveryLease() throws Exception {
        Duration ttl = Duration.ofMillis(1_500); // renewals every 500 ms: a loaded machine keeps up
        LockOptions options = LockOptions.watchdog(ttl);
        try (RedisLockClient client = RedisLocks.connect(server.get().uri())) {
            List<Lease> leases = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                leases.add(client.lock("edge:flushed:m" + i, options).acquire(Duration.ZERO));
                leases.add(client.semaphore("edge:flushed:p" + i, 3, options).acquire(Duration.ZERO));
            }
            long evals = ServerProbe.calls(server.get(), "eval");
            for (int i = 0; i < 6; i++) { // three ttls, nine renewal periods
                server.get().command("SCRIPT", "FLUSH");
                Thread.sleep(ttl.toMillis() / 2);
            }
            assertThat(ServerProbe.calls(server.get(), "eval")).as("rounds sent by source").isGreaterThan(evals);
            for (Lease lease : leases) {
                assertThat(lease.isValid()).as(lease.lockName()).isTrue();
                assertThat(lease.release()).as(lease.lockName()).isEqualTo(ReleaseStatus.RELEASED);
            }
        }
    }

    private record LockClientSides(RedisLockClient client, String name) {
    }
}
