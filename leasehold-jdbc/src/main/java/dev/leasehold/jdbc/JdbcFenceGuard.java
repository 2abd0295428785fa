package dev.leasehold.jdbc;

import dev.leasehold.FenceGuard;
import dev.leasehold.Lease;
import dev.leasehold.LeaseLostException;
import dev.leasehold.StaleTokenException;
import dev.leasehold.spi.Args;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;

/**
 * The fencing guard for data kept in PostgreSQL: {@link #admit(Connection, String, long)} checks a
 * lease's token inside the caller's own transaction, so the check and the caller's write commit or
 * roll back together.
 *
 * <p>The fence is one row per resource in a table ({@code leasehold_fence} by default) of two
 * columns, {@code resource text PRIMARY KEY} and {@code token bigint NOT NULL}: region
 * {@code fence-table} of this module's {@code dev/leasehold/jdbc/schema.sql}. A DBA creates it from
 * that DDL, or {@link #createTableIfMissing(Connection)} does.
 *
 * <p><b>One statement.</b> The check is a single upsert whose update only applies when the stored
 * token is not higher ({@code ... ON CONFLICT (resource) DO UPDATE SET token = excluded.token WHERE
 * fence.token <= excluded.token}), read back as a row count: never a read followed by a write. The
 * upsert also locks the fence row until the caller's transaction ends, so writers of one resource
 * are serialized from their check to their commit, and a writer admitted with a lower token cannot
 * commit after a higher one was admitted. A refusal is not an SQL error (in PostgreSQL any error
 * aborts the transaction): the transaction stays usable, and the caller rolls it back.
 *
 * <p><b>Isolation.</b> Meant for READ COMMITTED, PostgreSQL's default. Under REPEATABLE READ or
 * SERIALIZABLE a concurrent admission of the same resource makes PostgreSQL fail the statement with
 * a serialization error (SQLSTATE 40001), which the caller handles as it does any serialization
 * failure: roll back and retry.
 *
 * <p>Thread-safe and stateless apart from the table name: one instance serves every connection.
 */
public final class JdbcFenceGuard {

    /** The table used by {@link #JdbcFenceGuard()}. */
    public static final String DEFAULT_TABLE = "leasehold_fence";

    private final String table;
    private final String admitSql;
    private final String highestSql;

    /** A guard on the table {@value #DEFAULT_TABLE}. */
    public JdbcFenceGuard() {
        this(DEFAULT_TABLE);
    }

    /**
     * A guard on {@code table}.
     *
     * @param table a lower-case identifier, {@code table} or {@code schema.table}
     * @throws IllegalArgumentException if {@code table} has another shape (it becomes part of SQL text)
     */
    public JdbcFenceGuard(String table) {
        this.table = SqlIdentifier.table("table", table);
        String sql = SqlIdentifier.quoted(this.table);
        this.admitSql = "INSERT INTO " + sql + " AS fence (resource, token) VALUES (?, ?) "
                + "ON CONFLICT (resource) DO UPDATE SET token = excluded.token WHERE fence.token <= excluded.token";
        this.highestSql = "SELECT token FROM " + sql + " WHERE resource = ?";
    }

    /** The fence table's name. */
    public String table() {
        return table;
    }

    /**
     * Admits {@code token} for {@code resource} in the transaction open on {@code connection}: if no
     * higher token was admitted (and committed, or is pending in a transaction this one waits for),
     * records it as the highest and returns; the caller then writes and commits. The record commits
     * or rolls back with the caller's transaction. Blocks while another transaction holds the
     * resource's fence row (until that one ends).
     *
     * @throws StaleTokenException if a higher token was admitted; nothing was written, and the
     *     transaction is still usable: the caller should roll it back
     * @throws IllegalStateException if {@code connection} is in auto-commit mode (the check would
     *     commit alone, apart from the write it must protect)
     * @throws IllegalArgumentException if {@code resource} is null, blank, longer than {@value Args#MAX_NAME_LENGTH}
     *     characters or 2048 bytes in UTF-8, or has a NUL character; or if {@code token} is negative
     * @throws JdbcTableException if the fence table does not exist (the message says what creates it);
     *     the transaction is aborted
     * @throws SQLException from the driver
     */
    public void admit(Connection connection, String resource, long token) throws SQLException {
        IndexedText.name(resource);
        Args.token(token);
        requireTransaction(connection);
        int admitted;
        try (PreparedStatement upsert = connection.prepareStatement(admitSql)) {
            upsert.setString(1, resource);
            upsert.setLong(2, token);
            admitted = upsert.executeUpdate();
        } catch (SQLException e) {
            throw missingTableOr(e);
        }
        if (admitted == 0) {
            throw new StaleTokenException(resource, token, highestAdmitted(connection, resource));
        }
    }

    /**
     * {@link #admit(Connection, String, long)} with {@code lease}'s token, refusing a lease that its
     * client already knows is lost or released (see {@link FenceGuard} on why a
     * {@link LeaseLostException} and on the window that remains): checked before the upsert, and
     * again after it, since the upsert may have waited for another transaction that held the
     * resource's fence row while the lease was lost. The caller's own write and commit come after this
     * call: a lease lost in between is inside the remaining window, so check {@link Lease#ensureValid()}
     * once more right before committing where that matters.
     *
     * @throws LeaseLostException if the lease is no longer valid; nothing was written if it was found
     *     before the upsert, else the transaction holds an admission that the caller must roll back
     * @throws StaleTokenException as {@link #admit(Connection, String, long)}
     * @throws IllegalStateException as {@link #admit(Connection, String, long)}
     * @throws IllegalArgumentException if {@code lease} is null, or as {@link #admit(Connection, String, long)}
     * @throws JdbcTableException as {@link #admit(Connection, String, long)}
     * @throws SQLException from the driver
     */
    public void admit(Connection connection, String resource, Lease lease) throws SQLException {
        admit(connection, resource, FenceGuard.tokenOf(lease));
        FenceGuard.tokenOf(lease);
    }

    /**
     * The highest token admitted for {@code resource} as this transaction sees it, or
     * {@code Long.MIN_VALUE} if none.
     *
     * @throws JdbcTableException if the fence table does not exist (the message says what creates it)
     * @throws SQLException from the driver
     */
    public long highestAdmitted(Connection connection, String resource) throws SQLException {
        IndexedText.name(resource);
        try (PreparedStatement select = connection.prepareStatement(highestSql)) {
            select.setString(1, resource);
            try (ResultSet row = select.executeQuery()) {
                return row.next() ? row.getLong(1) : Long.MIN_VALUE;
            }
        } catch (SQLException e) {
            throw missingTableOr(e);
        }
    }

    /**
     * Creates the fence table unless it exists, then checks that it has the expected columns.
     * Runs in {@code connection}'s current mode: in a transaction, the caller commits.
     *
     * @throws JdbcTableException if a table of that name exists with another shape
     * @throws SQLException from the driver, e.g. a read-only database or no CREATE privilege
     */
    public void createTableIfMissing(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            for (String ddl : ddl()) {
                statement.execute(ddl);
            }
        }
        TableShape.require(connection, table, List.of(
                new TableShape.Column("resource", "text"), new TableShape.Column("token", "bigint")), "resource");
    }

    /**
     * This guard bound to {@code connection}'s open transaction, as the core {@link FenceGuard}: its
     * {@code admit(resource, token, write)} (or {@code admit(resource, lease, write)}, as
     * {@link #admit(Connection, String, Lease)}) admits the token, then runs {@code write} (which should
     * use the same connection); the caller still commits or rolls back. A driver error surfaces as
     * {@link JdbcTableException}, since {@link FenceGuard} allows no checked exception.
     */
    public FenceGuard on(Connection connection) {
        return new ConnectionFenceGuard(this, connection);
    }

    /**
     * {@code e} itself, or, when it says the fence table does not exist (SQLSTATE 42P01), a
     * {@link JdbcTableException} naming the table and what creates it. Either way the caller's
     * transaction is aborted, as after any failed statement.
     */
    private SQLException missingTableOr(SQLException e) {
        if ("42P01".equals(e.getSQLState())) {
            throw new JdbcTableException("the fence table " + table + " does not exist: call createTableIfMissing("
                    + "connection) on this JdbcFenceGuard once (e.g. at startup), or have a DBA run: " + String.join("; ", ddl())
                    + "; then roll this transaction back and retry", e);
        }
        return e;
    }

    private List<String> ddl() {
        return SchemaSql.statements("fence-table", Map.of(DEFAULT_TABLE, SqlIdentifier.quoted(table)));
    }

    private static void requireTransaction(Connection connection) throws SQLException {
        if (connection.getAutoCommit()) {
            throw new IllegalStateException("JdbcFenceGuard.admit needs the caller's transaction, but the connection is in "
                    + "auto-commit mode: call connection.setAutoCommit(false), admit, write, then commit");
        }
    }
}
