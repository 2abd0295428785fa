package dev.leasehold.jdbc;

import dev.leasehold.FenceGuard;
import dev.leasehold.StaleTokenException;
import dev.leasehold.launcher.PostgresServer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The guard's single-transaction guarantees, on a real PostgreSQL. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class JdbcFenceGuardTest {

    private static PostgresServer server;
    private static final JdbcFenceGuard GUARD = new JdbcFenceGuard();

    @BeforeAll
    static void start() throws SQLException {
        server = SharedDatabase.server();
        TestDatabase.execute(server, "CREATE TABLE orders (id text PRIMARY KEY, status text)");
        try (Connection connection = connect()) {
            GUARD.createTableIfMissing(connection);
            GUARD.createTableIfMissing(connection); // idempotent
        }
    }

    @Test
    void aRefusalNamesTheTokensLeavesNoPartialWriteAndTheTransactionUsable() throws SQLException {
        admitAndCommit("order:refused", 10);
        try (Connection connection = connect()) {
            connection.setAutoCommit(false);
            insertOrder(connection, "refused", "written before the check");
            assertThatThrownBy(() -> GUARD.admit(connection, "order:refused", 9))
                    .isInstanceOfSatisfying(StaleTokenException.class, e -> {
                        assertThat(e.resource()).isEqualTo("order:refused");
                        assertThat(e.token()).isEqualTo(9);
                        assertThat(e.highestAdmitted()).isEqualTo(10);
                    })
                    .hasMessageContaining("'order:refused'").hasMessageContaining("9").hasMessageContaining("10");
            // Not an aborted transaction: a statement still runs, and the rollback is the caller's.
            assertThat(countOrders(connection, "refused")).isOne();
            connection.rollback();
        }
        try (Connection connection = connect()) {
            assertThat(countOrders(connection, "refused")).isZero();
            assertThat(GUARD.highestAdmitted(connection, "order:refused")).isEqualTo(10);
        }
    }

    @Test
    void anAdmissionInARolledBackTransactionLeavesTheFenceUnchanged() throws SQLException {
        admitAndCommit("order:rolled-back", 5);
        try (Connection connection = connect()) {
            connection.setAutoCommit(false);
            GUARD.admit(connection, "order:rolled-back", 50);
            assertThat(GUARD.highestAdmitted(connection, "order:rolled-back")).isEqualTo(50); // seen inside
            connection.rollback();
            assertThat(GUARD.highestAdmitted(connection, "order:rolled-back")).isEqualTo(5);
        }
        admitAndCommit("order:rolled-back", 6); // 6 < 50: the rolled-back 50 never counted
    }

    @Test
    void equalTokensAreAdmittedSoAHolderMayWriteTwice() throws SQLException {
        admitAndCommit("order:twice", 7);
        admitAndCommit("order:twice", 7);
        try (Connection connection = connect()) {
            assertThat(GUARD.highestAdmitted(connection, "order:twice")).isEqualTo(7);
            assertThat(GUARD.highestAdmitted(connection, "order:never")).isEqualTo(Long.MIN_VALUE);
        }
    }

    @Test
    void theCoreFenceGuardViewRunsTheWriteOnlyAfterAdmission() throws SQLException {
        try (Connection connection = connect()) {
            connection.setAutoCommit(false);
            FenceGuard guard = GUARD.on(connection);
            String result = guard.admit("order:view", 3, () -> "written");
            assertThat(result).isEqualTo("written");
            connection.commit();
            AtomicBoolean ran = new AtomicBoolean();
            assertThatThrownBy(() -> guard.admit("order:view", 2, () -> ran.getAndSet(true)))
                    .isInstanceOf(StaleTokenException.class);
            assertThat(ran).isFalse();
            assertThat(guard.highestAdmitted("order:view")).isEqualTo(3);
            connection.rollback();
        }
    }

    @Test
    void autoCommitIsRefusedBecauseTheCheckWouldCommitAlone() throws SQLException {
        try (Connection connection = connect()) {
            assertThatThrownBy(() -> GUARD.admit(connection, "order:auto", 1))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("setAutoCommit(false)");
            assertThat(GUARD.highestAdmitted(connection, "order:auto")).isEqualTo(Long.MIN_VALUE);
        }
    }

    @Test
    void badNamesAreRejectedBeforeAnySql() throws SQLException {
        assertThatThrownBy(() -> new JdbcFenceGuard("fence; DROP TABLE orders"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("table");
        assertThatThrownBy(() -> new JdbcFenceGuard("Fence")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new JdbcFenceGuard(null)).isInstanceOf(IllegalArgumentException.class);
        assertThat(new JdbcFenceGuard("public.my_fence").table()).isEqualTo("public.my_fence");
        try (Connection connection = connect()) {
            connection.setAutoCommit(false);
            assertThatThrownBy(() -> GUARD.admit(connection, " ", 1)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> GUARD.admit(connection, null, 1)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> GUARD.admit(connection, "\u7d22".repeat(1024), 1))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bytes");
            assertThatThrownBy(() -> GUARD.admit(connection, "a\u0000b", 1))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("NUL");
            assertThatThrownBy(() -> GUARD.admit(connection, "order:negative", -1))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("negative");
            assertThat(GUARD.highestAdmitted(connection, "order:negative")).isEqualTo(Long.MIN_VALUE);
        }
    }

    /** The accepted shape includes SQL keywords ('user', 'order'): they must still name a table. */
    @ParameterizedTest
    @ValueSource(strings = {"app.fence", "user.order"})
    void aSchemaQualifiedTableWorks(String table) throws SQLException {
        TestDatabase.execute(server, "CREATE SCHEMA IF NOT EXISTS \"" + table.substring(0, table.indexOf('.')) + "\"");
        JdbcFenceGuard guard = new JdbcFenceGuard(table);
        try (Connection connection = connect()) {
            guard.createTableIfMissing(connection);
            connection.setAutoCommit(false);
            guard.admit(connection, "r", 4);
            connection.commit();
            assertThat(guard.highestAdmitted(connection, "r")).isEqualTo(4);
            assertThat(GUARD.highestAdmitted(connection, "r")).isEqualTo(Long.MIN_VALUE); // another table
        }
    }

    @Test
    void aTableOfTheWrongShapeIsReportedWithWhatItHasAndWhatIsNeeded() throws SQLException {
        TestDatabase.execute(server, "CREATE TABLE wrong_fence (resource text, token text)");
        try (Connection connection = connect()) {
            assertThatThrownBy(() -> new JdbcFenceGuard("wrong_fence").createTableIfMissing(connection))
                    .isInstanceOf(JdbcTableException.class)
                    .hasMessageContaining("wrong_fence").hasMessageContaining("token text").hasMessageContaining("token bigint");
        }
    }

    @Test
    void aReadOnlyDatabaseFailsTableCreationWithTheDriversError() throws SQLException {
        TestDatabase.execute(server, "CREATE DATABASE guard_readonly");
        TestDatabase.execute(server, "ALTER DATABASE guard_readonly SET default_transaction_read_only = on");
        var source = TestDatabase.dataSource(server);
        source.setDatabaseName("guard_readonly");
        try (Connection connection = source.getConnection()) {
            assertThatThrownBy(() -> GUARD.createTableIfMissing(connection))
                    .isInstanceOf(SQLException.class).hasMessageContaining("read-only");
        }
    }

    /** Used before its table exists, the guard says which table is missing and what creates it, not the driver's error. */
    @Test
    void aMissingFenceTableIsATypedErrorThatSaysWhatToRun() throws SQLException {
        JdbcFenceGuard missing = new JdbcFenceGuard("missing_fence");
        try (Connection connection = connect()) {
            connection.setAutoCommit(false);
            assertThatThrownBy(() -> missing.admit(connection, "order:missing", 1))
                    .isInstanceOf(JdbcTableException.class).hasMessageContaining("missing_fence")
                    .hasMessageContaining("createTableIfMissing").hasMessageContaining("CREATE TABLE");
            connection.rollback();
            assertThatThrownBy(() -> missing.highestAdmitted(connection, "order:missing"))
                    .isInstanceOf(JdbcTableException.class).hasMessageContaining("missing_fence");
            connection.rollback();
            assertThatThrownBy(() -> missing.on(connection).admit("order:missing", 1, () -> "written"))
                    .isInstanceOf(JdbcTableException.class).hasMessageContaining("createTableIfMissing");
            connection.rollback();
            missing.createTableIfMissing(connection);
            missing.admit(connection, "order:missing", 1);
            connection.rollback();
        }
    }

    private static void admitAndCommit(String resource, long token) throws SQLException {
        try (Connection connection = connect()) {
            connection.setAutoCommit(false);
            GUARD.admit(connection, resource, token);
            connection.commit();
        }
    }

    private static void insertOrder(Connection connection, String id, String status) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO orders VALUES (?, ?)")) {
            insert.setString(1, id);
            insert.setString(2, status);
            insert.executeUpdate();
        }
    }

    private static int countOrders(Connection connection, String id) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT count(*) FROM orders WHERE id = ?")) {
            select.setString(1, id);
            try (ResultSet row = select.executeQuery()) {
                row.next();
                return row.getInt(1);
            }
        }
    }

    private static Connection connect() throws SQLException {
        return TestDatabase.dataSource(server).getConnection();
    }
}
