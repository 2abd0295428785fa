package dev.leasehold.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import dev.leasehold.LockUnavailableException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every lease-table transaction runs under its {@link TransactionBounds}, set by its first statement
 * (or, in an acquire, inside it): a release, a renewal and an acquire's purge that wait for a row
 * another session holds end on the server by {@code lock_timeout}, instead of waiting on after the
 * client gave up. The bounds are transaction-scoped, so the pooled connection goes back to the pool,
 * or behind a transaction-pooling PgBouncer to the next client, with the session's own settings.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class JdbcTransactionBoundsTest {

    /** The engine's default operation timeout, 3 s: the lock wait bound is 2 s. */
    private static final TransactionBounds BOUNDS = new TransactionBounds(Duration.ofSeconds(3));

    @Test
    void theBoundsLeaveNothingInTheSessionOfThePooledConnection() throws Exception {
        String name = "bounds:session:" + System.nanoTime();
        // Two connections: the client's LISTEN holds one, so every lease-table transaction runs on the other.
        try (HikariDataSource pool = SharedDatabase.pool(SharedDatabase.server(), 2);
             JdbcLockClient client = JdbcLocks.create(pool)) {
            Lease lease = client.lock(name).acquire(Duration.ofSeconds(5));
            lease.extend(Duration.ofSeconds(30));
            assertThat(client.inspect(name).isHeld()).isTrue();
            lease.release();
            client.lock(name, LockOptions.defaults().holdAtLeast(Duration.ofMillis(1))).acquire(Duration.ofSeconds(5))
                    .release();
            try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement()) {
                for (String setting : new String[] {"lock_timeout", "statement_timeout", "idle_in_transaction_session_timeout"}) {
                    try (ResultSet value = statement.executeQuery("SHOW " + setting)) {
                        value.next();
                        assertThat(value.getString(1)).as(setting).isEqualTo("0");
                    }
                }
            }
        }
    }

    @Test
    void aReleaseBlockedOnItsRowEndsOnTheServerByTheLockBound() throws Exception {
        String name = "bounds:release:" + System.nanoTime();
        try (JdbcLockClient client = JdbcLocks.create(SharedDatabase.pool());
             Connection other = TestDatabase.dataSource(SharedDatabase.server()).getConnection()) {
            Lease lease = heldWithItsRowLocked(client, other, name);
            long start = System.nanoTime();
            CompletableFuture<?> release = lease.releaseAsync().toCompletableFuture();
            assertNothingWaitsAfterTheBound(start, "%DELETE FROM % WHERE name = $1 AND holder = $2 RETURNING%");
            assertThatThrownBy(() -> release.get(20, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(LockUnavailableException.class);
            other.rollback();
            assertThat(lease.release()).as("retried once the row is free").isNotNull();
        }
    }

    @Test
    void aRenewalBlockedOnItsRowEndsOnTheServerByTheLockBound() throws Exception {
        String name = "bounds:renew:" + System.nanoTime();
        try (JdbcLockClient client = JdbcLocks.create(SharedDatabase.pool());
             Connection other = TestDatabase.dataSource(SharedDatabase.server()).getConnection()) {
            Lease lease = heldWithItsRowLocked(client, other, name);
            long start = System.nanoTime();
            CompletableFuture<Void> extended = CompletableFuture.runAsync(() -> lease.extend(Duration.ofSeconds(30)));
            assertNothingWaitsAfterTheBound(start, "%SET expires_at = greatest(l.expires_at%");
            other.rollback();
            extended.exceptionally(error -> null).get(20, TimeUnit.SECONDS);
            lease.release();
        }
    }

    @Test
    void anAcquirePurgingARowAnotherSessionHoldsEndsOnTheServerByTheLockBound() throws Exception {
        String name = "bounds:purge:" + System.nanoTime();
        try (JdbcLockClient client = JdbcLocks.create(SharedDatabase.pool());
             Connection other = TestDatabase.dataSource(SharedDatabase.server()).getConnection()) {
            client.lock(name, LockOptions.fixedLease(Duration.ofMillis(100))).acquire(Duration.ofSeconds(5));
            Thread.sleep(300); // the lease expires unreleased; its row waits for the next acquire's purge
            lockRow(other, name);
            long start = System.nanoTime();
            CompletableFuture<Lease> acquire = client.lock(name).acquireAsync(Duration.ofSeconds(10));
            assertNothingWaitsAfterTheBound(start, "%DELETE FROM % WHERE name = $1 AND expires_at <=%");
            other.rollback();
            Lease lease = acquire.exceptionally(error -> client.lock(name).acquire(Duration.ofSeconds(5)))
                    .get(20, TimeUnit.SECONDS);
            lease.release();
        }
    }

    /** A lease of {@code name} on {@code client}, whose row {@code other} then holds locked. */
    private static Lease heldWithItsRowLocked(JdbcLockClient client, Connection other, String name) throws SQLException {
        Lease lease = client.lock(name).acquire(Duration.ofSeconds(5));
        lockRow(other, name);
        return lease;
    }

    /** Takes the row lock of {@code name}'s lease rows in an open transaction of {@code other}. */
    private static void lockRow(Connection other, String name) throws SQLException {
        other.setAutoCommit(false);
        try (PreparedStatement lock = other.prepareStatement(
                "SELECT 1 FROM " + JdbcLocks.DEFAULT_TABLE + " WHERE name = ? FOR UPDATE")) {
            lock.setString(1, name);
            lock.execute();
        }
    }

    /**
     * Once a statement like {@code query} waits for the row, checks that by the lock bound (and a
     * margin) after {@code start} none does any more, though the row stays locked.
     */
    private static void assertNothingWaitsAfterTheBound(long start, String query) throws Exception {
        try (Connection connection = TestDatabase.dataSource(SharedDatabase.server()).getConnection();
             PreparedStatement waiting = connection.prepareStatement("SELECT count(*) FROM pg_stat_activity"
                     + " WHERE wait_event_type = 'Lock' AND query LIKE ?")) {
            waiting.setString(1, query);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (count(waiting) == 0) {
                assertThat(System.nanoTime()).as("a statement like %s waits for the row", query).isLessThan(deadline);
                Thread.sleep(10);
            }
            Thread.sleep(Math.max(0, BOUNDS.lockMillis() + 1_500 - (System.nanoTime() - start) / 1_000_000));
            assertThat(count(waiting)).as("statements like %s still waiting on the server", query).isZero();
        }
    }

    private static long count(PreparedStatement waiting) throws SQLException {
        try (ResultSet row = waiting.executeQuery()) {
            row.next();
            return row.getLong(1);
        }
    }
}
