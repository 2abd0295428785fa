package dev.leasehold.jdbc;

import dev.leasehold.Lease;
import dev.leasehold.LockInterruptedException;
import dev.leasehold.LockOptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An acquire called off while its attempt is blocked on the server (another session holds the
 * name's advisory lock) leaves no lease behind once that attempt goes through: the clean-up waits
 * for the attempt's transaction to end (issue 19, defect 4; the shared contract covers an attempt
 * on the wire).
 */
@Tag("faults")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class JdbcAbandonTest {

    private static final LockOptions LONG_TTL = LockOptions.watchdog(Duration.ofSeconds(30));

    @Test
    void aCancelledAttemptBlockedOnTheAdvisoryLockLeavesTheLockFree() throws Exception {
        for (int i = 0; i < 3; i++) {
            String name = "abandon:cancel:" + i + ":" + System.nanoTime();
            try (JdbcLockClient abandoning = JdbcLocks.create(SharedDatabase.pool());
                 JdbcLockClient next = JdbcLocks.create(SharedDatabase.pool())) {
                CompletableFuture<Lease> pending;
                try (AutoCloseable blocked = holdAdvisoryLock(name)) {
                    pending = abandoning.lock(name, LONG_TTL).acquireAsync(Duration.ofSeconds(10));
                    Thread.sleep(200);
                    assertThat(pending.cancel(true)).isTrue();
                }
                assertFreeWithin3s(next, name);
            }
        }
    }

    @Test
    void anInterruptedAttemptBlockedOnTheAdvisoryLockLeavesTheLockFree() throws Exception {
        for (int i = 0; i < 3; i++) {
            String name = "abandon:interrupt:" + i + ":" + System.nanoTime();
            try (JdbcLockClient abandoning = JdbcLocks.create(SharedDatabase.pool());
                 JdbcLockClient next = JdbcLocks.create(SharedDatabase.pool())) {
                AtomicReference<Throwable> thrown = new AtomicReference<>();
                Thread acquirer = new Thread(() -> {
                    try {
                        abandoning.lock(name, LONG_TTL).acquire(Duration.ofSeconds(10)).release();
                    } catch (Throwable t) {
                        thrown.set(t);
                    }
                });
                try (AutoCloseable blocked = holdAdvisoryLock(name)) {
                    acquirer.start();
                    Thread.sleep(200);
                    acquirer.interrupt();
                    acquirer.join(5_000);
                }
                assertThat(thrown.get()).isInstanceOf(LockInterruptedException.class);
                assertFreeWithin3s(next, name);
            }
        }
    }

    /**
     * The client is closed right after the cancel, while the attempt is still blocked: close() waits
     * for the abandon that follows the attempt's commit, and the lock is free once it returned.
     * Failed before (the lease stayed for its 30 s ttl): close() returned at once, the attempt
     * committed while the backend's executor shut down, and the abandon, sent after, was refused.
     */
    @Test
    void aClientClosedAfterTheCancelStillAbandonsTheBlockedAttempt() throws Exception {
        for (int i = 0; i < 3; i++) {
            String name = "abandon:close:" + i + ":" + System.nanoTime();
            try (JdbcLockClient next = JdbcLocks.create(SharedDatabase.pool())) {
                JdbcLockClient abandoning = JdbcLocks.create(SharedDatabase.pool());
                AutoCloseable blocked = holdAdvisoryLock(name);
                CompletableFuture<Lease> pending = abandoning.lock(name, LONG_TTL).acquireAsync(Duration.ofSeconds(10));
                Thread.sleep(200);
                assertThat(pending.cancel(true)).isTrue();
                CompletableFuture.delayedExecutor(300, TimeUnit.MILLISECONDS).execute(() -> {
                    try {
                        blocked.close();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
                abandoning.close();
                assertFreeWithin3s(next, name);
            }
        }
    }

    private static void assertFreeWithin3s(JdbcLockClient client, String name) {
        Optional<Lease> taken = client.lock(name).tryAcquire(Duration.ofSeconds(3));
        assertThat(taken).as("'%s' free long before the abandoned attempt's 30 s ttl", name).isPresent();
        taken.get().release();
    }

    /** Holds the advisory lock that every attempt on {@code name} takes first, in another session. */
    private static AutoCloseable holdAdvisoryLock(String name) throws SQLException {
        Connection connection = TestDatabase.dataSource(SharedDatabase.server()).getConnection();
        try (PreparedStatement lock = connection.prepareStatement("SELECT pg_advisory_lock(hashtextextended(?, 0))")) {
            lock.setString(1, JdbcLocks.DEFAULT_TABLE + ":" + name);
            lock.execute();
        } catch (SQLException e) {
            connection.close();
            throw e;
        }
        return connection::close;
    }
}
