package dev.leasehold.jdbc;

import dev.leasehold.Lease;
import dev.leasehold.LeaseLostException;
import dev.leasehold.LockOptions;
import dev.leasehold.launcher.PostgresServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The JDBC guard's lease overload on a real PostgreSQL: a lease whose row was deleted (as
 * {@code leasehold break} does) is known lost after its next renewal, and its admission is refused
 * from then on, though its token is still the highest in the fence table.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class JdbcFenceGuardLeaseTest {

    private static final JdbcFenceGuard GUARD = new JdbcFenceGuard();
    private static PostgresServer server;
    private static JdbcLockClient locks;

    @BeforeAll
    static void start() throws SQLException {
        server = SharedDatabase.server();
        try (Connection connection = connect()) {
            GUARD.createTableIfMissing(connection);
        }
        locks = JdbcLocks.create(SharedDatabase.pool());
    }

    @AfterAll
    static void stop() {
        locks.close();
    }

    private static Lease acquire(String name) {
        return locks.lock(name, LockOptions.watchdog(Duration.ofMillis(900))).acquire(Duration.ofSeconds(5));
    }

    private static void breakLock(Lease lease) throws Exception {
        TestDatabase.execute(server, "DELETE FROM " + JdbcLocks.DEFAULT_TABLE + " WHERE name = '" + lease.lockName() + "'");
        lease.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);
    }

    /** Failed before (the guard took only the token): the admission after the known loss succeeded and committed. */
    @Test
    void aLeaseKnownLostAfterABreakIsRefusedBeforeTheUpsert() throws Exception {
        Lease old = acquire("guarded:order:1");
        try (Connection connection = connect()) {
            connection.setAutoCommit(false);
            GUARD.admit(connection, "order:guarded:1", old);
            connection.commit();
        }
        breakLock(old);
        AtomicBoolean wrote = new AtomicBoolean();
        try (Connection connection = connect()) {
            connection.setAutoCommit(false);
            assertThatThrownBy(() -> GUARD.admit(connection, "order:guarded:1", old))
                    .isInstanceOf(LeaseLostException.class).hasMessageContaining("guarded:order:1");
            assertThatThrownBy(() -> GUARD.on(connection).admit("order:guarded:1", old, () -> wrote.getAndSet(true)))
                    .isInstanceOf(LeaseLostException.class);
            assertThatThrownBy(() -> GUARD.admit(connection, "order:guarded:1", (Lease) null))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lease");
            connection.rollback();
            assertThat(GUARD.highestAdmitted(connection, "order:guarded:1")).as("the old token is still the highest")
                    .isEqualTo(old.token());
        }
        assertThat(wrote).isFalse();
    }

    /** The upsert waited for another transaction on the fence row, and the lease was lost meanwhile. */
    @Test
    void aLossWhileTheUpsertWaitsForAnotherTransactionIsRefusedAfterIt() throws Exception {
        Lease lease = acquire("guarded:order:2");
        try (Connection first = connect(); Connection second = connect()) {
            first.setAutoCommit(false);
            second.setAutoCommit(false);
            GUARD.admit(first, "order:guarded:2", lease.token());
            CompletableFuture<Void> waiting = CompletableFuture.runAsync(() -> {
                try {
                    GUARD.admit(second, "order:guarded:2", lease);
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            breakLock(lease);
            assertThat(waiting).as("the second admission waits for the first transaction's fence row").isNotDone();
            first.commit();
            assertThatThrownBy(() -> waiting.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(LeaseLostException.class);
            second.rollback();
        }
    }

    private static Connection connect() throws SQLException {
        return TestDatabase.dataSource(server).getConnection();
    }
}
