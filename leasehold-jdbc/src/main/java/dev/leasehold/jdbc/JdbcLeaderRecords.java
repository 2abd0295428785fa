package dev.leasehold.jdbc;

import dev.leasehold.LeaderInfo;
import dev.leasehold.LockClientClosedException;
import dev.leasehold.spi.LeaderRecords;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;

/**
 * Leader records on PostgreSQL: one row per election in {@code <table>_leader} (created on first
 * use, beside the lease table), with an expiry in database time. A publish writes only while the
 * term's lease row (kind {@code x}, the term's token) is live, and never over a row of a higher
 * token; a read returns the row only while its term's lease row is live, so a record that outlived
 * its term reads as nobody leading. The table's DDL is region {@code leader-table} of
 * {@code schema.sql} ({@link SchemaSql}).
 */
final class JdbcLeaderRecords implements LeaderRecords {

    private final JdbcLockProtocol.Shared backend;
    private final String leases;
    private final String leaders;
    private final String leadersName;
    private volatile boolean created;

    JdbcLeaderRecords(JdbcLockProtocol.Shared backend) {
        LeaseTable table = backend.table();
        this.backend = backend;
        this.leases = SqlIdentifier.quoted(table.table());
        this.leadersName = SqlIdentifier.table("table", table.table() + "_leader");
        this.leaders = SqlIdentifier.quoted(leadersName);
    }

    @Override
    public CompletableFuture<Boolean> publish(String name, LeaderInfo info, Duration ttl) {
        String lockName = IndexedText.name(name);
        return call("publishing the leader of '" + name + "'", connection -> {
            ensureTable(connection);
            try (PreparedStatement upsert = connection.prepareStatement("INSERT INTO " + leaders
                    + " (name, token, leader_id, value, expires_at) SELECT ?, ?, ?, ?, clock_timestamp() + ? * interval "
                    + "'1 millisecond' WHERE EXISTS (SELECT 1 FROM " + leases + " WHERE name = ? AND kind = 'x' AND "
                    + "token = ? AND expires_at > clock_timestamp()) ON CONFLICT (name) DO UPDATE SET token = "
                    + "EXCLUDED.token, leader_id = EXCLUDED.leader_id, value = EXCLUDED.value, expires_at = "
                    + "EXCLUDED.expires_at WHERE " + leaders + ".token <= EXCLUDED.token")) {
                upsert.setString(1, lockName);
                upsert.setLong(2, info.token());
                upsert.setString(3, info.leaderId());
                upsert.setString(4, info.value().orElse(null));
                upsert.setLong(5, ttl.toMillis());
                upsert.setString(6, lockName);
                upsert.setLong(7, info.token());
                return upsert.executeUpdate() == 1;
            }
        });
    }

    @Override
    public CompletableFuture<Void> clear(String name, long token) {
        String lockName = IndexedText.name(name);
        return call("clearing the leader of '" + name + "'", connection -> {
            ensureTable(connection);
            try (PreparedStatement delete = connection.prepareStatement("DELETE FROM " + leaders
                    + " WHERE name = ? AND (token = ? OR expires_at <= clock_timestamp())")) {
                delete.setString(1, lockName);
                delete.setLong(2, token);
                delete.executeUpdate();
            }
            return null;
        });
    }

    @Override
    public CompletableFuture<Optional<LeaderInfo>> read(String name) {
        String lockName = IndexedText.name(name);
        return call("reading the leader of '" + name + "'", connection -> {
            ensureTable(connection);
            try (PreparedStatement select = connection.prepareStatement("SELECT l.token, l.leader_id, l.value FROM "
                    + leaders + " l JOIN " + leases + " x ON x.name = l.name AND x.token = l.token AND x.kind = 'x' "
                    + "AND x.expires_at > clock_timestamp() WHERE l.name = ? AND l.expires_at > clock_timestamp()")) {
                select.setString(1, lockName);
                try (ResultSet row = select.executeQuery()) {
                    if (!row.next()) {
                        return Optional.empty();
                    }
                    return Optional.of(new LeaderInfo(row.getString(2), row.getLong(1),
                            Optional.ofNullable(row.getString(3))));
                }
            }
        });
    }

    /** What one call does on its connection. */
    private interface Statements<T> {
        T run(Connection connection) throws SQLException;
    }

    /**
     * Runs {@code statements} on a pooled connection on the client's executor, once: a failed
     * publish is retried by the next refresh, a failed read is the caller's to retry.
     */
    private <T> CompletableFuture<T> call(String operation, Statements<T> statements) {
        CompletableFuture<T> result = new CompletableFuture<>();
        try {
            backend.executor().execute(() -> {
                try (Connection connection = backend.dataSource().getConnection()) {
                    result.complete(statements.run(connection));
                } catch (SQLException | RuntimeException e) {
                    result.completeExceptionally(JdbcErrors.translate(backend.database(), operation, e));
                }
            });
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(new LockClientClosedException(backend.database()));
        }
        return result;
    }

    /** Creates the table once per client, serialized like the lease table's creation. */
    private void ensureTable(Connection connection) throws SQLException {
        if (created) {
            return;
        }
        connection.setAutoCommit(false);
        try (Statement statement = connection.createStatement()) {
            statement.execute("SELECT pg_advisory_xact_lock(hashtextextended('leasehold:schema:" + leadersName + "', 0))");
            for (String ddl : SchemaSql.statements("leader-table", Map.of("leasehold_lease_leader", leaders))) {
                statement.execute(ddl);
            }
            connection.commit();
        } catch (SQLException e) {
            connection.rollback();
            throw e;
        } finally {
            connection.setAutoCommit(true);
        }
        created = true;
    }
}
