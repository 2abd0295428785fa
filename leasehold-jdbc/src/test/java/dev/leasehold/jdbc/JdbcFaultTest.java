package dev.leasehold.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasehold.DistributedLock;
import dev.leasehold.Lease;
import dev.leasehold.LeaseholdException;
import dev.leasehold.LockOptions;
import dev.leasehold.StaleTokenException;
import dev.leasehold.testkit.history.History;
import dev.leasehold.testkit.history.HistoryChecker;
import dev.leasehold.testkit.history.Verdict;
import dev.leasehold.testkit.history.Write;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Holders that pause past their lease between reading and writing a PostgreSQL counter, the race
 * fencing exists for, under {@link JdbcLocks}: with {@link JdbcFenceGuard} on the read and the
 * write, the history checker finds no stale write admitted and no lost update; without it, the lost
 * update is reproduced. Runs in the {@code faults} profile (about 12 s).
 */
@Tag("faults")
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class JdbcFaultTest {

    private static final Duration RUN = Duration.ofSeconds(5);
    private static final Duration LEASE = Duration.ofMillis(300);
    private static final Duration PAUSE = Duration.ofMillis(500);
    private static final JdbcFenceGuard GUARD = new JdbcFenceGuard("fault_fence");

    private static HikariDataSource pool;

    @BeforeAll
    static void start() throws SQLException {
        pool = SharedDatabase.pool(SharedDatabase.server(), 12);
        TestDatabase.execute(SharedDatabase.server(), "CREATE TABLE IF NOT EXISTS fault_counter (id int PRIMARY KEY, value bigint NOT NULL)");
        try (Connection connection = pool.getConnection()) {
            GUARD.createTableIfMissing(connection);
        }
    }

    @AfterAll
    static void stop() {
        pool.close();
    }

    @Test
    void withTheGuardPausedHoldersNeverLandAStaleWrite() throws Exception {
        Verdict verdict = run(1, true);
        assertThat(verdict.staleWritesAdmitted()).as(verdict.toString()).isZero();
        assertThat(verdict.lostUpdates()).as(verdict.toString()).isZero();
        assertThat(verdict.refusedWrites()).as("paused holders were refused").isPositive();
        assertThat(counter(1)).isEqualTo(verdict.admittedWrites());
    }

    @Test
    void withoutTheGuardPausedHoldersLoseUpdates() throws Exception {
        Verdict verdict = run(2, false);
        assertThat(verdict.lostUpdates()).as(verdict.toString()).isPositive();
        assertThat(counter(2)).isLessThan(verdict.admittedWrites());
    }

    /** Two clients of four workers each, fixed 300 ms leases (no watchdog: a paused process renews nothing). */
    private static Verdict run(int id, boolean guarded) throws Exception {
        TestDatabase.execute(SharedDatabase.server(), "DELETE FROM fault_counter WHERE id = " + id
                + "; INSERT INTO fault_counter VALUES (" + id + ", 0)");
        History history = new History();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> workers = new ArrayList<>();
        List<JdbcLockClient> clients = List.of(JdbcLocks.create(pool), JdbcLocks.create(pool));
        long end = System.nanoTime() + RUN.toNanos();
        try {
            for (int w = 0; w < 8; w++) {
                DistributedLock lock = clients.get(w % 2).lock("fault:counter:" + id, LockOptions.fixedLease(LEASE));
                String holder = "worker-" + w;
                Thread worker = new Thread(() -> {
                    try {
                        while (System.nanoTime() < end) {
                            hold(lock, holder, id, guarded, history);
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }, holder);
                workers.add(worker);
                worker.start();
            }
            for (Thread worker : workers) {
                worker.join();
            }
        } finally {
            clients.forEach(JdbcLockClient::close);
        }
        if (failure.get() != null) {
            throw new AssertionError("a worker failed", failure.get());
        }
        Verdict verdict = HistoryChecker.check(history);
        assertThat(verdict.admittedWrites()).as("the run made progress").isGreaterThan(20);
        return verdict;
    }

    /** Reads under the lock, sometimes pauses past the lease, then writes back plus one. */
    private static void hold(DistributedLock lock, String holder, int id, boolean guarded, History history)
            throws SQLException, InterruptedException {
        Lease lease;
        try {
            lease = lock.acquire(Duration.ofSeconds(5));
        } catch (LeaseholdException busy) {
            return;
        }
        long token = lease.token();
        long read;
        try (Connection connection = pool.getConnection()) {
            connection.setAutoCommit(false);
            try {
                if (guarded) {
                    GUARD.admit(connection, "counter:" + id, token); // the read passes the guard too
                }
                read = CounterRow.read(connection, id);
                connection.commit();
            } catch (StaleTokenException refused) {
                connection.rollback();
                lease.release();
                return;
            }
        }
        if (ThreadLocalRandom.current().nextDouble() < 0.2) {
            Thread.sleep(PAUSE.toMillis()); // a GC pause: the lease runs out, another holder takes over
        }
        try (Connection connection = pool.getConnection()) {
            connection.setAutoCommit(false);
            try {
                if (guarded) {
                    GUARD.admit(connection, "counter:" + id, token);
                }
                CounterRow.write(connection, id, read + 1);
                // Guarded, the fence row stays locked until commit: this is the admission order.
                history.write(new Write(holder, token, true, read, read + 1));
                connection.commit();
            } catch (StaleTokenException refused) {
                connection.rollback();
                history.write(new Write(holder, token, false, read, read));
            }
        }
        lease.release();
    }

    private static long counter(int id) throws SQLException {
        try (Connection connection = pool.getConnection()) {
            return CounterRow.read(connection, id);
        }
    }

    /** The counter row's statements. */
    private static final class CounterRow {

        static long read(Connection connection, int id) throws SQLException {
            try (var select = connection.prepareStatement("SELECT value FROM fault_counter WHERE id = ?")) {
                select.setInt(1, id);
                try (var row = select.executeQuery()) {
                    row.next();
                    return row.getLong(1);
                }
            }
        }

        static void write(Connection connection, int id, long value) throws SQLException {
            try (var update = connection.prepareStatement("UPDATE fault_counter SET value = ? WHERE id = ?")) {
                update.setLong(1, value);
                update.setInt(2, id);
                update.executeUpdate();
            }
        }
    }
}
