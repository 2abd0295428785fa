package dev.leasehold.jdbc;

import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import dev.leasehold.LockUnavailableException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The release that keeps a lease for its hold-at-least is bounded on the server like every other
 * lease-table transaction ({@link TransactionBounds}): a lock wait ends by {@code lock_timeout}, so
 * the statement does not go on waiting on the server after the client gave up on it (and, frozen
 * mid-transaction, its session would not hold its row lock until TCP keepalive notices).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class JdbcReleaseHoldingBoundsTest {

    /** The engine's default operation timeout, 3 s: the lock wait bound is 2 s. */
    private static final TransactionBounds BOUNDS = new TransactionBounds(Duration.ofSeconds(3));

    @Test
    void aKeepingReleaseBlockedOnItsRowEndsOnTheServerByTheLockBound() throws Exception {
        String name = "bounds:keep:" + System.nanoTime();
        try (JdbcLockClient client = JdbcLocks.create(SharedDatabase.pool());
             Connection other = TestDatabase.dataSource(SharedDatabase.server()).getConnection()) {
            Lease lease = client.lock(name, LockOptions.defaults().holdAtLeast(Duration.ofSeconds(30)))
                    .acquire(Duration.ofSeconds(5));
            other.setAutoCommit(false);
            try (PreparedStatement lock = other.prepareStatement(
                    "SELECT 1 FROM " + JdbcLocks.DEFAULT_TABLE + " WHERE name = ? FOR UPDATE")) {
                lock.setString(1, name);
                lock.execute();
            }
            long start = System.nanoTime();
            assertThatThrownBy(() -> lease.releaseAsync().get(20, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(LockUnavailableException.class);
            // The client gave up; the server must have too, by the lock bound, though the row stays locked.
            Thread.sleep(Math.max(0, BOUNDS.lockMillis() + 1_500 - (System.nanoTime() - start) / 1_000_000));
            assertThat(waitingKeepingReleases()).as("keeping releases still waiting on the server").isZero();
            other.rollback();
            assertThat(lease.release()).as("retried once the row is free").isNotNull();
        }
    }

    private static long waitingKeepingReleases() throws SQLException {
        try (Connection connection = TestDatabase.dataSource(SharedDatabase.server()).getConnection();
             PreparedStatement waiting = connection.prepareStatement("SELECT count(*) FROM pg_stat_activity"
                     + " WHERE wait_event_type = 'Lock' AND query LIKE '%SET expires_at = clock_timestamp() +%'");
             ResultSet row = waiting.executeQuery()) {
            row.next();
            return row.getLong(1);
        }
    }
}
