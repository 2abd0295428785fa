package dev.leasehold.redis;

import dev.leasehold.DistributedLock;
import dev.leasehold.LeaderInfo;
import dev.leasehold.Lease;
import dev.leasehold.engine.HolderIds;
import dev.leasehold.redis.internal.LockKeys;
import dev.leasehold.redis.internal.RedisScript;
import dev.leasehold.spi.LeaderRecords;
import dev.leasehold.testkit.junit.FlushedRedis;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisAsyncCommands;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static dev.leasehold.testkit.junit.Eventually.eventually;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The mutex's handoff between clients (lib_handoff.lua): a release reserves the freed key for the
 * waiter it wakes, which then takes it before anyone else, and a reservation nobody claims ends on
 * its own.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MutexHandoffTest {

    @RegisterExtension
    static final FlushedRedis server = FlushedRedis.perClass();
    private final RedisAsyncCommands<String, String> commands = server.commands();
    private static final RedisScript ACQUIRE = RedisScript.load("acquire.lua");
    private static final RedisScript RELEASE = RedisScript.load("release.lua");
    private static final RedisScript READ_ACQUIRE = RedisScript.load("read_acquire.lua");
    private static final String RESERVATION_MILLIS = "5000";
    private final RedisScripts scripts = new RedisScripts();
    private final LockKeys keys = LockKeys.of("handoff:lock");

    @Test
    void aReleaseReservesTheKeyForTheOldestWaiterWhoTakesItBeforeTheReleaser() {
        long first = token(acquire("holder-a", "holder-a"));
        acquire("holder-b", "holder-b");
        acquire("holder-c", "holder-c");

        assertThat(release("holder-a", "", RESERVATION_MILLIS)).isEqualTo(1L);
        assertThat(server.get().command("GET", keys.lock())).isEqualTo("~holder-b");
        assertThat((Long) server.get().command("PTTL", keys.lock())).isBetween(1L, 5_000L);
        assertThat(server.get().command("ZRANGE", keys.waiters(), "0", "-1")).as("b left the registrations")
                .isEqualTo(List.of("holder-c"));

        List<Object> barging = acquire("holder-a", "holder-a");
        assertThat(barging.get(0)).as("the releaser re-acquiring at once").isEqualTo(0L);
        assertThat((Long) barging.get(1)).as("blocked for the reservation's rest").isBetween(1L, 5_000L);
        assertThat(acquire("holder-c", "holder-c").get(0)).as("nor a waiter not woken").isEqualTo(0L);
        assertThat(acquire("holder-b", "").get(0)).as("the reservation needs the waiter's id").isEqualTo(0L);

        List<Object> claimed = acquire("holder-b", "holder-b");
        assertThat(claimed.get(0)).isEqualTo(1L);
        assertThat(token(claimed)).isGreaterThan(first);
        assertThat(server.get().command("GET", keys.lock())).isEqualTo("holder-b");
        assertThat((Long) server.get().command("PTTL", keys.lock())).as("the lease's own ttl").isGreaterThan(5_000L);
    }

    @Test
    void aReservationIsNobodysLeaseAndEndsOnItsOwn() {
        String waiter = new HolderIds().next();
        acquire("holder-a", "holder-a");
        acquire(waiter, waiter);
        release("holder-a", "", "200");

        assertThat(release("holder-a", "", "200")).as("the releaser no longer holds it").isZero();
        assertThat(new HolderIds().next()).as("no holder id looks like a reservation").doesNotStartWith("~");
        assertThat(renewBatch(waiter)).as("nor renewed as a lease of the waiter: its one key refused").isEqualTo(List.of(1L));
        assertThat(server.get().command("GET", keys.lock())).isEqualTo("~" + waiter);
        List<Object> free = inspect();
        assertThat(free.get(0)).as("inspect: free").isEqualTo("");
        assertThat(free.get(2)).isEqualTo(List.of());
        assertThat(free.get(5)).as("the reserved waiter still waits").isEqualTo(1L);

        // The woken waiter never comes (its process died): the lock is free again after the reservation.
        eventually(() -> acquire("holder-c", "").get(0).equals(1L), "another client takes the lock");
    }

    @Test
    void anAbandoningWaiterPassesItsReservationOnToTheNextWaiter() {
        acquire("holder-a", "holder-a");
        acquire("holder-b", "holder-b");
        acquire("holder-c", "holder-c");
        release("holder-a", "", RESERVATION_MILLIS);

        assertThat(release("holder-b", "holder-b", RESERVATION_MILLIS)).as("b abandons: it held nothing").isZero();
        assertThat(server.get().command("GET", keys.lock())).isEqualTo("~holder-c");

        assertThat(release("holder-c", "holder-c", RESERVATION_MILLIS)).isZero();
        assertThat(server.get().command("EXISTS", keys.lock())).as("nobody else waits: free").isEqualTo(0L);
    }

    @Test
    void withoutAReservationTimeAReleaseFreesTheKeyAsARedlockNodeDoes() {
        acquire("holder-a", "holder-a");
        acquire("holder-b", "holder-b");
        assertThat(RELEASE.<Long>run(commands, ScriptOutputType.INTEGER, new String[] {keys.lock(), keys.waiters()},
                "holder-a", "", keys.channel()).join()).isEqualTo(1L);
        assertThat(server.get().command("EXISTS", keys.lock())).isEqualTo(0L);
        assertThat(server.get().command("ZCARD", keys.waiters())).as("woken, still registered").isEqualTo(1L);
    }

    @Test
    void aWokenReaderDropsTheReservationAndReads() {
        acquire("holder-a", "holder-a");
        readAcquire("reader-b", "reader-b");
        release("holder-a", "", RESERVATION_MILLIS);
        assertThat(server.get().command("GET", keys.lock())).isEqualTo("~reader-b");

        assertThat(readAcquire("reader-b", "reader-b").get(0)).isEqualTo(1L);
        assertThat(server.get().command("EXISTS", keys.lock())).isEqualTo(0L);
        assertThat(acquire("holder-a", "holder-a").get(0)).as("the reader's lease blocks the mutex").isEqualTo(0L);
    }

    @Test
    void breakingAReservedNameFindsNothingToBreak() {
        acquire("holder-a", "holder-a");
        String waiter = new HolderIds().next();
        acquire(waiter, waiter);
        release("holder-a", "", RESERVATION_MILLIS);
        List<Object> reply = scripts.breakLock.<List<Object>>run(commands, ScriptOutputType.MULTI,
                new String[] {keys.lock(), keys.fence(), keys.broken(), keys.readers(), keys.permits()},
                "admin@host", "test", "60000", "60000", keys.channel()).join();
        assertThat(reply).containsExactly(0L);
    }

    /**
     * Only the prefix and a holder id's shape make a reservation: another program's value that
     * merely starts with '~' (here without a TTL, so it never frees itself) is a holder, as it was
     * before reservations: inspect shows it, break deletes it.
     */
    @Test
    void aForeignValueStartingWithATildeIsAHolderNotAReservation() {
        try (RedisLockClient locks = RedisLocks.connect(server.get().uri())) {
            server.get().command("SET", keys.lock(), "~worker-7");
            assertThat(locks.inspect(keys.lock()).isHeld()).as("inspect").isTrue();
            assertThat(locks.breakLock(keys.lock(), "test")).as("break").isPresent();
            assertThat(server.get().command("EXISTS", keys.lock())).isEqualTo(0L);
        }
    }

    /**
     * A released term no longer holds the lock while the key is reserved for the next candidate:
     * its leader record reads as nobody leading, and a late refresh of it writes nothing, as when
     * the key is simply gone (RedisLeaderRecordsTest). They read the key as taken before.
     */
    @Test
    void aReservedKeyIsNoTermOfTheLeaderWhoReleasedIt() {
        try (RedisLockClient locks = RedisLocks.connect(server.get().uri())) {
            LeaderRecords records = locks.leaderRecords();
            LeaderInfo term = new LeaderInfo("a", token(acquire("holder-a", "holder-a")), Optional.empty());
            String candidate = new HolderIds().next();
            acquire(candidate, candidate);
            assertThat(records.publish(keys.lock(), term, Duration.ofSeconds(10)).join()).isTrue();

            assertThat(release("holder-a", "", RESERVATION_MILLIS)).isEqualTo(1L);
            assertThat(server.get().command("GET", keys.lock())).isEqualTo("~" + candidate);
            assertThat(records.read(keys.lock()).join()).as("the released term's record").isEmpty();
            assertThat(records.publish(keys.lock(), term, Duration.ofSeconds(10)).join())
                    .as("a late refresh of the released term").isFalse();
        }
    }

    /**
     * A semaphore of the name registers its waiters in the same waiters key, and a permit's waiter
     * never claims a reservation: while a semaphore of the name is in use, a mutex release wakes the
     * oldest waiter without reserving the key for it (as before reservations). Else each such
     * waiter stalled the mutex for the whole reservation, on every release that picked it: two
     * clients taking turns at a mutex made about 45 handoffs in 3 s beside one blocked permit waiter,
     * against about 1,900 without it.
     */
    @Test
    void whileASemaphoreOfTheNameIsInUseAReleaseReservesNothing() {
        assertThat(semaphoreAcquire("permit-a", "").get(0)).isEqualTo(1L);
        // "a-permit-b" sorts before "holder-b": it is the oldest registration even when both register
        // within one millisecond, so the permit's release below wakes (and forgets) it, not holder-b.
        assertThat(semaphoreAcquire("a-permit-b", "a-permit-b").get(0)).as("the permit's waiter, registered")
                .isEqualTo(0L);
        assertThat(acquire("holder-a", "holder-a").get(0)).as("the mutex: another family").isEqualTo(1L);
        acquire("holder-b", "holder-b");

        assertThat(releaseReserving("holder-a")).isTrue();
        assertThat(server.get().command("EXISTS", keys.lock())).as("nothing reserved: free").isEqualTo(0L);

        assertThat(scripts.semaphoreRelease.<Long>run(commands, ScriptOutputType.INTEGER,
                new String[] {keys.permits(), keys.waiters()}, "permit-a", "", keys.channel()).join()).isEqualTo(1L);
        assertThat(acquire("holder-a", "holder-a").get(0)).isEqualTo(1L);
        assertThat(releaseReserving("holder-a")).isTrue();
        assertThat(server.get().command("GET", keys.lock())).as("no semaphore in use: reserved again")
                .isEqualTo("~holder-b");
    }

    /**
     * Between clients: a client that releases and at once asks again waits its turn behind another
     * client's waiter. Without the reservation the releaser, one round trip from the key, nearly
     * always wins that race against a waiter that first needs the release message. A round that
     * takes longer than the 100 ms reservation on a loaded machine can go either way, so four of
     * five rounds must go to the waiter.
     */
    @Test
    void aClientThatReleasesAndAsksAgainWaitsBehindAnotherClientsWaiter() throws Exception {
        try (RedisLockClient first = RedisLocks.connect(server.get().uri());
             RedisLockClient second = RedisLocks.connect(server.get().uri())) {
            DistributedLock releaser = first.lock("handoff:between");
            DistributedLock waiter = second.lock("handoff:between");
            String waiters = LockKeys.of("handoff:between").waiters();
            int waiterFirst = 0;
            for (int round = 0; round < 5; round++) {
                Lease held = releaser.acquire(Duration.ofSeconds(10));
                CompletableFuture<Lease> waiting = waiter.acquireAsync(Duration.ofSeconds(20));
                eventually(() -> (Long) server.get().command("ZCARD", waiters) == 1L, "the waiter registered");
                held.release();
                CompletableFuture<Lease> again = releaser.acquireAsync(Duration.ofSeconds(20));
                Object won = CompletableFuture.anyOf(waiting, again).get(20, TimeUnit.SECONDS);
                if (waiting.isDone() && !waiting.isCompletedExceptionally() && waiting.join() == won) {
                    waiterFirst++;
                }
                ((Lease) won).release();
                (won == waiting.join() ? again : waiting).get(20, TimeUnit.SECONDS).release();
            }
            assertThat(waiterFirst).as("rounds the other client's waiter won").isGreaterThanOrEqualTo(4);
        }
    }

    private List<Object> acquire(String holder, String waiter) {
        return ACQUIRE.<List<Object>>run(commands, ScriptOutputType.MULTI,
                new String[] {keys.lock(), keys.fence(), keys.waiters(), keys.readers()},
                holder, "30000", "60000", waiter, "30000").join();
    }

    private List<Object> readAcquire(String holder, String waiter) {
        return READ_ACQUIRE.<List<Object>>run(commands, ScriptOutputType.MULTI,
                new String[] {keys.lock(), keys.fence(), keys.readers(), keys.writers(), keys.waiters()},
                holder, "30000", "60000", waiter, "30000").join();
    }

    private long release(String holder, String waiter, String reservationMillis) {
        return RELEASE.<Long>run(commands, ScriptOutputType.INTEGER, new String[] {keys.lock(), keys.waiters()},
                holder, waiter, keys.channel(), reservationMillis).join();
    }

    /** A single server's mutex release, with the keys KindScripts passes, reserving for RESERVATION_MILLIS. */
    private boolean releaseReserving(String holder) {
        return scripts.mutex.releaseReserving(commands, keys, holder, "",
                Duration.ofMillis(Long.parseLong(RESERVATION_MILLIS))).join();
    }

    private List<Object> semaphoreAcquire(String holder, String waiter) {
        return scripts.semaphoreAcquire.<List<Object>>run(commands, ScriptOutputType.MULTI,
                new String[] {keys.permits(), keys.fence(), keys.waiters()},
                holder, "30000", "1", "60000", waiter, "30000").join();
    }

    private List<Object> renewBatch(String holder) {
        return scripts.renewBatch.<List<Object>>run(commands, ScriptOutputType.MULTI, new String[] {keys.lock()},
                "30000", holder).join();
    }

    /** inspect.lua over the name's keys, as the inspector calls it. */
    private List<Object> inspect() {
        return scripts.inspect.<List<Object>>run(commands, ScriptOutputType.MULTI, RedisInspector.snapshotKeys(keys))
                .join();
    }

    private static long token(List<Object> granted) {
        return Long.parseLong((String) granted.get(1));
    }
}
