package dev.leasehold.jdbc;

import dev.leasehold.BrokenLock;
import dev.leasehold.Lease;
import dev.leasehold.LockInfo;
import dev.leasehold.LockKind;
import dev.leasehold.LockOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link JdbcInspector}: inspect, list and break, for every kind, on a real PostgreSQL. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class JdbcInspectorTest {

    @Test
    void inspectTellsTheKindTheRedactedHoldersTheTtlTheTokenAndTheWaiters() throws Exception {
        try (JdbcLockClient locks = JdbcLocks.create(SharedDatabase.pool());
             JdbcLockClient other = JdbcLocks.create(SharedDatabase.pool())) {
            assertThat(locks.inspect("inspect:free")).isEqualTo(LockInfo.free("inspect:free", java.util.OptionalLong.empty()));

            Lease mutex = locks.lock("inspect:mutex", LockOptions.fixedLease(Duration.ofSeconds(30))).acquire(Duration.ofSeconds(5));
            LockInfo held = locks.inspect("inspect:mutex");
            assertThat(held.kind()).contains(LockKind.MUTEX);
            assertThat(held.holders()).singleElement().satisfies(holder -> assertThat(holder).endsWith("…").hasSizeLessThanOrEqualTo(7));
            assertThat(held.remaining()).hasValueSatisfying(left -> assertThat(left).isBetween(Duration.ofSeconds(20), Duration.ofSeconds(30)));
            assertThat(held.lastToken()).hasValue(mutex.token());
            mutex.release();

            Lease r1 = locks.readWriteLock("inspect:rw").readLock().acquire(Duration.ofSeconds(5));
            Lease r2 = other.readWriteLock("inspect:rw").readLock().acquire(Duration.ofSeconds(5));
            CompletableFuture<Lease> writer = other.readWriteLock("inspect:rw").writeLock().acquireAsync(Duration.ofSeconds(20));
            awaitWaiters(locks, "inspect:rw");
            LockInfo readers = locks.inspect("inspect:rw");
            assertThat(readers.kind()).contains(LockKind.READ);
            assertThat(readers.holders()).hasSize(2);
            assertThat(readers.lastToken()).hasValue(r2.token());
            r1.release();
            r2.release();
            Lease write = writer.get(5, TimeUnit.SECONDS);
            assertThat(locks.inspect("inspect:rw").kind()).contains(LockKind.WRITE);
            write.release();

            Lease p1 = locks.semaphore("inspect:sem", 3).acquire(Duration.ofSeconds(5));
            Lease p2 = other.semaphore("inspect:sem", 3).acquire(Duration.ofSeconds(5));
            LockInfo permits = locks.inspect("inspect:sem");
            assertThat(permits.kind()).contains(LockKind.permits(3));
            assertThat(permits.holders()).hasSize(2);
            Lease fair = locks.fairLock("inspect:sem").acquire(Duration.ofSeconds(5));
            assertThat(locks.inspect("inspect:sem").kind()).as("the lock family first").contains(LockKind.FAIR);
            for (Lease lease : List.of(p1, p2, fair)) {
                lease.release();
            }
        }
    }

    /** Names are data: '%', '_', quotes and backslashes in names or patterns match only themselves. */
    @Test
    void listTurnsTheGlobIntoAnEscapedLikeAndShowsOnlyHeldNames() {
        try (JdbcLockClient locks = JdbcLocks.create(SharedDatabase.pool())) {
            List<String> names = List.of("list:a_1", "list:ab1", "list:a%1", "list:o'neil", "list:back\\slash");
            List<Lease> leases = names.stream().map(name -> locks.lock(name).acquire(Duration.ofSeconds(5))).toList();
            locks.lock("list:freed").acquire(Duration.ofSeconds(5)).release();

            assertThat(locks.list("list:*")).extracting(LockInfo::name).containsExactlyInAnyOrderElementsOf(names);
            assertThat(locks.list("list:a?1")).extracting(LockInfo::name)
                    .containsExactlyInAnyOrder("list:a_1", "list:ab1", "list:a%1");
            assertThat(locks.list("list:a_1")).extracting(LockInfo::name).containsExactly("list:a_1");
            assertThat(locks.list("list:a%1")).extracting(LockInfo::name).containsExactly("list:a%1");
            assertThat(locks.list("list:o'*")).extracting(LockInfo::name).containsExactly("list:o'neil");
            assertThat(locks.list("list:back\\\\slash")).extracting(LockInfo::name).containsExactly("list:back\\slash");
            assertThat(locks.list("list:a\\?1")).isEmpty();
            assertThat(locks.list("list:*")).allSatisfy(info -> assertThat(info.kind()).contains(LockKind.MUTEX));
            assertThat(locks.list("list:a[_%]1")).extracting(LockInfo::name).containsExactly("list:a%1", "list:a_1");
            assertThatThrownBy(() -> locks.list("list:[")).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("never closed");
            leases.forEach(Lease::release);
            assertThat(locks.list("list:*")).isEmpty();
        }
    }

    @Test
    void breakDeletesTheHoldersAdvancesTheFenceAndRecordsWhoAndWhy() throws Exception {
        try (JdbcLockClient holder = JdbcLocks.create(SharedDatabase.pool());
             JdbcLockClient operator = JdbcLocks.create(SharedDatabase.pool())) {
            Lease broken = holder.lock("break:mutex", LockOptions.watchdog(Duration.ofMillis(900))).acquire(Duration.ofSeconds(5));
            CompletableFuture<Lease> waiter = operator.lock("break:mutex").acquireAsync(Duration.ofSeconds(20));
            Optional<BrokenLock> result = operator.breakLock("break:mutex", "stuck job, ticket 42");
            assertThat(result).hasValueSatisfying(lock -> {
                assertThat(lock.name()).isEqualTo("break:mutex");
                assertThat(lock.holder()).endsWith("…");
                assertThat(lock.fence()).isGreaterThan(broken.token());
                assertThat(lock.by()).contains("@");
                assertThat(lock.reason()).isEqualTo("stuck job, ticket 42");
            });
            Lease next = waiter.get(5, TimeUnit.SECONDS);
            assertThat(next.token()).isGreaterThan(result.get().fence());
            broken.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);
            next.release();
            assertThat(recordedReason(JdbcLocks.DEFAULT_TABLE + "_break", "break:mutex")).contains("stuck job, ticket 42");

            Lease p1 = holder.semaphore("break:sem", 2).acquire(Duration.ofSeconds(5));
            Lease p2 = holder.semaphore("break:sem", 2).acquire(Duration.ofSeconds(5));
            assertThat(operator.breakLock("break:sem", "drain")).hasValueSatisfying(lock ->
                    assertThat(lock.holder()).contains(", "));
            assertThat(operator.semaphore("break:sem", 2).available()).isEqualTo(2);
            p1.release();
            p2.release();

            assertThat(operator.breakLock("break:free", "nothing there")).isEmpty();
            assertThatThrownBy(() -> operator.breakLock("break:mutex", " ")).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("reason");
        }
    }

    /** Where the record cannot be written (here a foreign table of that name), the break still happens. */
    @Test
    void aBreakWhoseRecordIsRefusedStillBreaks() throws Exception {
        TestDatabase.execute(SharedDatabase.server(), "CREATE TABLE unrecorded_break (other int)");
        try (JdbcLockClient locks = JdbcLocks.builder(SharedDatabase.pool()).table("unrecorded").build();
             JdbcLockClient next = JdbcLocks.builder(SharedDatabase.pool()).table("unrecorded").build()) {
            Lease held = locks.lock("break:unrecorded", LockOptions.fixedLease(Duration.ofSeconds(30))).acquire(Duration.ofSeconds(5));
            assertThat(locks.breakLock("break:unrecorded", "no record")).isPresent();
            assertThat(locks.inspect("break:unrecorded").isHeld()).isFalse();
            next.lock("break:unrecorded").acquire(Duration.ofSeconds(5)).release();
            held.release();
        }
    }

    private static void awaitWaiters(JdbcLockClient client, String name) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (client.inspect(name).waiters() < 1) {
            assertThat(System.nanoTime()).as("a waiter registered on %s", name).isLessThan(deadline);
            Thread.sleep(10);
        }
    }

    private static Optional<String> recordedReason(String table, String name) throws SQLException {
        try (Connection connection = SharedDatabase.pool().getConnection();
             PreparedStatement select = connection.prepareStatement("SELECT reason FROM " + table + " WHERE name = ?")) {
            select.setString(1, name);
            try (ResultSet row = select.executeQuery()) {
                return row.next() ? Optional.of(row.getString(1)) : Optional.empty();
            }
        }
    }
}
