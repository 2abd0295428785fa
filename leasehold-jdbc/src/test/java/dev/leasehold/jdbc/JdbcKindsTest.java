package dev.leasehold.jdbc;

import dev.leasehold.DistributedLock;
import dev.leasehold.DistributedSemaphore;
import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import dev.leasehold.PermitsMismatchException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The fair lock and the semaphore on PostgreSQL beside the other kinds: arrival order across
 * clients, lapsed waiters, permits and their tokens, mismatched permit counts, and which kinds of one
 * name exclude each other.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class JdbcKindsTest {

    @Test
    void theFairLockIsGrantedInArrivalOrderAcrossClients() throws Exception {
        try (JdbcLockClient holder = JdbcLocks.create(SharedDatabase.pool());
             JdbcLockClient a = JdbcLocks.create(SharedDatabase.pool());
             JdbcLockClient b = JdbcLocks.create(SharedDatabase.pool());
             JdbcLockClient c = JdbcLocks.create(SharedDatabase.pool())) {
            String name = "fair:order";
            Lease first = holder.fairLock(name).acquire(Duration.ofSeconds(5));
            List<CompletableFuture<Lease>> waiting = new ArrayList<>();
            for (JdbcLockClient client : List.of(a, b, c)) {
                waiting.add(client.fairLock(name).acquireAsync(Duration.ofSeconds(30)));
                awaitWaiters(holder, name, waiting.size()); // registered before the next one arrives
            }
            Lease previous = first;
            for (int i = 0; i < waiting.size(); i++) {
                previous.release();
                Lease next = waiting.get(i).get(10, TimeUnit.SECONDS);
                assertThat(next.token()).isGreaterThan(previous.token());
                for (CompletableFuture<Lease> later : waiting.subList(i + 1, waiting.size())) {
                    assertThat(later).as("a later arrival waits for waiter %d", i).isNotDone();
                }
                previous = next;
            }
            previous.release();
            assertThat(rowsOf(name)).isZero();
        }
    }

    /** A waiter re-registers on each re-check and keeps its place; one whose registration lapsed blocks nobody. */
    @Test
    void aLiveWaiterKeepsItsPlaceAndALapsedOneStopsBlocking() throws Exception {
        String name = "fair:lapsed";
        try (JdbcLockClient holder = JdbcLocks.create(SharedDatabase.pool());
             JdbcLockClient waiter = JdbcLocks.builder(SharedDatabase.pool()).maxRecheck(Duration.ofMillis(200))
                     .operationTimeout(Duration.ofSeconds(2)).build();
             JdbcLockClient newcomer = JdbcLocks.create(SharedDatabase.pool())) {
            Lease held = holder.fairLock(name).acquire(Duration.ofSeconds(5));
            CompletableFuture<Lease> queued = waiter.fairLock(name).acquireAsync(Duration.ofSeconds(30));
            awaitWaiters(holder, name, 1);
            long arrival = registrationToken(name);
            Thread.sleep(3_000); // longer than one registration (2.6 s) lives
            assertThat(registrationToken(name)).as("the same registration, still live").isEqualTo(arrival);
            CompletableFuture<Lease> later = newcomer.fairLock(name).acquireAsync(Duration.ofSeconds(30));
            awaitWaiters(holder, name, 2);
            held.release();
            Lease second = queued.get(10, TimeUnit.SECONDS);
            assertThat(later).isNotDone();
            second.release();
            later.get(10, TimeUnit.SECONDS).release();
        }
        // A registration nobody renews (its client died) ahead of everyone: it blocks until it lapses.
        String dead = "fair:dead";
        try (Connection connection = SharedDatabase.pool().getConnection();
             PreparedStatement insert = connection.prepareStatement("INSERT INTO " + JdbcLocks.DEFAULT_TABLE
                     + " (name, holder, kind, token, expires_at) VALUES (?, 'dead-waiter', 'q', 0, "
                     + "clock_timestamp() + interval '1500 milliseconds')")) {
            insert.setString(1, dead);
            insert.executeUpdate();
        }
        try (JdbcLockClient client = JdbcLocks.create(SharedDatabase.pool())) {
            DistributedLock fair = client.fairLock(dead);
            assertThat(fair.tryAcquire(Duration.ZERO)).as("queued behind the earlier arrival").isEmpty();
            assertThat(client.lock(dead).tryAcquire(Duration.ZERO)).as("the mutex ignores the fair queue")
                    .hasValueSatisfying(Lease::release);
            Lease lease = fair.acquire(Duration.ofSeconds(10));
            assertThat(rowsOf(dead)).isOne();
            lease.release();
        }
    }

    @Test
    void aSemaphoreGrantsAtMostItsPermitsEachWithItsOwnIncreasingToken() throws Exception {
        try (JdbcLockClient a = JdbcLocks.create(SharedDatabase.pool());
             JdbcLockClient b = JdbcLocks.create(SharedDatabase.pool())) {
            String name = "sem:three";
            DistributedSemaphore onA = a.semaphore(name, 3);
            DistributedSemaphore onB = b.semaphore(name, 3);
            assertThat(onA.available()).isEqualTo(3);
            Lease first = onA.acquire(Duration.ofSeconds(5));
            Lease second = onB.acquire(Duration.ofSeconds(5));
            Lease third = onA.acquire(Duration.ofSeconds(5));
            assertThat(List.of(first.token(), second.token(), third.token())).isSorted().doesNotHaveDuplicates();
            assertThat(onB.available()).isZero();
            assertThat(onB.tryAcquire(Duration.ZERO)).isEmpty();
            CompletableFuture<Lease> fourth = onB.acquireAsync(Duration.ofSeconds(10));
            second.release();
            Lease next = fourth.get(5, TimeUnit.SECONDS);
            assertThat(next.token()).isGreaterThan(third.token());
            assertThat(onA.available()).isZero();
            for (Lease lease : List.of(first, third, next)) {
                lease.release();
            }
            assertThat(onA.available()).isEqualTo(3);
        }
    }

    /** Blocked permit acquirers queue by arrival, across clients, and a release wakes the next of them. */
    @Test
    void queuedPermitAcquirersAreServedInArrivalOrder() throws Exception {
        try (JdbcLockClient holder = JdbcLocks.create(SharedDatabase.pool());
             JdbcLockClient a = JdbcLocks.create(SharedDatabase.pool());
             JdbcLockClient b = JdbcLocks.create(SharedDatabase.pool())) {
            String name = "sem:queue";
            Lease first = holder.semaphore(name, 2).acquire(Duration.ofSeconds(5));
            Lease second = holder.semaphore(name, 2).acquire(Duration.ofSeconds(5));
            CompletableFuture<Lease> onA = a.semaphore(name, 2).acquireAsync(Duration.ofSeconds(30));
            awaitWaiters(holder, name, 1);
            CompletableFuture<Lease> onB = b.semaphore(name, 2).acquireAsync(Duration.ofSeconds(30));
            awaitWaiters(holder, name, 2);
            first.release();
            Lease third = onA.get(10, TimeUnit.SECONDS);
            assertThat(onB).as("the later arrival waits").isNotDone();
            second.release();
            Lease fourth = onB.get(10, TimeUnit.SECONDS);
            assertThat(fourth.token()).isGreaterThan(third.token());
            third.release();
            fourth.release();
            assertThat(rowsOf(name)).isZero();
        }
    }

    @Test
    void permitsTakenWithAnotherCountAreAMismatch() {
        try (JdbcLockClient a = JdbcLocks.create(SharedDatabase.pool());
             JdbcLockClient b = JdbcLocks.create(SharedDatabase.pool())) {
            String name = "sem:mismatch";
            DistributedSemaphore three = b.semaphore(name, 3); // created while free: nothing to disagree with
            Lease held = a.semaphore(name, 2).acquire(Duration.ofSeconds(5));
            assertThatThrownBy(() -> three.acquire(Duration.ofSeconds(1)))
                    .isInstanceOfSatisfying(PermitsMismatchException.class, e -> {
                        assertThat(e.heldWith()).isEqualTo(2);
                        assertThat(e.requested()).isEqualTo(3);
                    });
            assertThatThrownBy(three::available).isInstanceOf(PermitsMismatchException.class);
            assertThatThrownBy(() -> b.semaphore(name, 5)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("2 permits");
            held.release();
            three.acquire(Duration.ofSeconds(5)).release();
        }
    }

    /** The lock family and the semaphore family of one name never exclude each other; tokens increase across all kinds. */
    @Test
    void theLockFamilyAndTheSemaphoreFamilyOfANameAreIndependentAndShareOneTokenOrder() {
        try (JdbcLockClient a = JdbcLocks.create(SharedDatabase.pool());
             JdbcLockClient b = JdbcLocks.create(SharedDatabase.pool())) {
            String name = "kinds:families";
            Lease mutex = a.lock(name).acquire(Duration.ofSeconds(5));
            Lease permit = b.semaphore(name, 1).acquire(Duration.ofSeconds(5));
            assertThat(permit.token()).isGreaterThan(mutex.token());
            assertThat(b.fairLock(name).tryAcquire(Duration.ZERO)).isEmpty();
            assertThat(b.readWriteLock(name).readLock().tryAcquire(Duration.ZERO)).isEmpty();
            assertThat(b.readWriteLock(name).writeLock().tryAcquire(Duration.ZERO)).isEmpty();
            assertThat(a.semaphore(name, 1).tryAcquire(Duration.ZERO)).isEmpty();
            mutex.release();
            Lease fair = b.fairLock(name).acquire(Duration.ofSeconds(5));
            assertThat(fair.token()).isGreaterThan(permit.token());
            assertThat(a.lock(name).tryAcquire(Duration.ZERO)).isEmpty();
            fair.release();
            Lease read = a.readWriteLock(name).readLock().acquire(Duration.ofSeconds(5));
            assertThat(b.fairLock(name).tryAcquire(Duration.ZERO)).isEmpty();
            read.release();
            permit.release();
            Lease write = a.readWriteLock(name, LockOptions.defaults()).writeLock().acquire(Duration.ofSeconds(5));
            assertThat(write.token()).isGreaterThan(read.token());
            write.release();
        }
    }

    /** A fair acquire given up while queued leaves no registration behind to block the next arrival. */
    @Test
    void aFairAcquireThatTimesOutLeavesNoRegistration() throws Exception {
        String name = "fair:timeout";
        try (JdbcLockClient a = JdbcLocks.create(SharedDatabase.pool());
             JdbcLockClient b = JdbcLocks.create(SharedDatabase.pool())) {
            Lease held = a.fairLock(name).acquire(Duration.ofSeconds(5));
            assertThat(b.fairLock(name).tryAcquire(Duration.ofMillis(300))).isEmpty();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (rowsOf(name) > 1 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(rowsOf(name)).as("only the holder's row").isOne();
            held.release();
        }
    }

    private static void awaitWaiters(JdbcLockClient client, String name, long waiters) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (client.inspect(name).waiters() < waiters) {
            assertThat(System.nanoTime()).as("%d waiter(s) registered on %s", waiters, name).isLessThan(deadline);
            Thread.sleep(10);
        }
    }

    /** The arrival number of the one fair waiter's registration of {@code name}. */
    private static long registrationToken(String name) throws SQLException {
        try (Connection connection = SharedDatabase.pool().getConnection();
             PreparedStatement select = connection.prepareStatement("SELECT token FROM " + JdbcLocks.DEFAULT_TABLE
                     + " WHERE name = ? AND kind = 'q' AND expires_at > clock_timestamp()")) {
            select.setString(1, name);
            try (ResultSet row = select.executeQuery()) {
                assertThat(row.next()).as("a live registration").isTrue();
                return row.getLong(1);
            }
        }
    }

    private static int rowsOf(String name) throws SQLException {
        try (Connection connection = SharedDatabase.pool().getConnection();
             PreparedStatement select = connection.prepareStatement("SELECT count(*) FROM " + JdbcLocks.DEFAULT_TABLE
                     + " WHERE name = ?")) {
            select.setString(1, name);
            try (ResultSet row = select.executeQuery()) {
                row.next();
                return row.getInt(1);
            }
        }
    }
}
