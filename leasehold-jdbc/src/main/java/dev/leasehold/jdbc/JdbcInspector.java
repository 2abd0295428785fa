package dev.leasehold.jdbc;

import dev.leasehold.BrokenLock;
import dev.leasehold.LockInfo;
import dev.leasehold.LockKind;
import dev.leasehold.engine.HolderIds;
import dev.leasehold.spi.Args;
import dev.leasehold.spi.Glob;
import dev.leasehold.spi.Inspector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.Collectors;

/**
 * What the lease table tells about any lock, of every kind: {@link #inspect}, {@link #list} and
 * the operator's {@link #breakLock}. Each call runs on the caller's thread in one bounded
 * transaction ({@link TransactionBounds}); names and patterns are bound as parameters.
 *
 * <p><b>Tokens.</b> Every token of the table comes from one sequence, so the table keeps no fence per
 * name: {@link LockInfo#lastToken()} is the highest token among the name's live leases (none when the
 * name is free), and a break draws the sequence's next value as its fence, which every later token
 * of every name exceeds.
 *
 * <p><b>Break records.</b> A break is recorded, with who broke it and why, in {@code <table>_break}
 * (region {@code break-table} of {@code schema.sql}), created on the first break; where the database
 * refuses that table (no CREATE privilege, a table of that name with another shape) the break still
 * happens and a warning says it went unrecorded.
 */
final class JdbcInspector implements Inspector {

    private static final Logger LOG = LoggerFactory.getLogger(JdbcInspector.class);

    /** The break records' table of the default lease table, as schema.sql names it. */
    private static final String DEFAULT_BREAKS = JdbcLocks.DEFAULT_TABLE + "_break";

    private final JdbcLockProtocol.Shared shared;
    private final String breaks;

    JdbcInspector(JdbcLockProtocol.Shared shared) {
        this.shared = shared;
        // The lease table's part is at most 57 characters, so "_break" still fits the 63.
        this.breaks = SqlIdentifier.table("table", shared.table().table() + "_break");
    }

    /** The name's snapshot: the lock family's holders if it has any, else the semaphore's. */
    @Override
    public LockInfo inspect(String name) {
        List<LeaseKind.Row> rows = read("the inspection of '" + name + "'",
                connection -> shared.table().liveRowsNow(connection, name));
        return snapshot(name, rows);
    }

    /**
     * The held names matching the {@link Glob} {@code pattern}, by name: the database selects the
     * rows by a LIKE pattern that matches at least those names ({@link LikePattern}), and the glob
     * keeps exactly its own.
     *
     * @throws IllegalArgumentException if the pattern is not a glob (a {@code [} never closed)
     */
    @Override
    public List<LockInfo> list(String pattern) {
        Glob glob = Glob.of(pattern);
        String like = LikePattern.of(pattern);
        Map<String, List<LeaseKind.Row>> byName = read("the listing of '" + pattern + "'",
                connection -> shared.table().liveRowsLike(connection, like));
        List<LockInfo> held = new ArrayList<>();
        byName.forEach((name, rows) -> {
            LockInfo info = snapshot(name, rows);
            if (info.isHeld() && glob.matches(name)) {
                held.add(info);
            }
        });
        return held;
    }

    /**
     * Deletes every live lease of {@code name}, of every kind (registered waiters stay), draws the
     * fence past every token issued, wakes the waiters, and records the break (see the class
     * comment). The broken holders are not told: a watchdog lease finds its row gone at its next
     * renewal and is lost; a fixed lease runs on until its local deadline, so only a guarded resource
     * is safe from it meanwhile.
     *
     * @throws IllegalArgumentException if reason is null, blank or longer than {@value Args#MAX_REASON_LENGTH}
     * @throws dev.leasehold.LockUnavailableException if the database cannot be reached
     */
    @Override
    public Optional<BrokenLock> breakLock(String name, String reason) {
        Args.breakReason(reason);
        String by = BrokenLock.operator();
        LeaseTable.Break result = read("the break of '" + name + "'", connection ->
                shared.table().breakLeases(connection, name, (inTransaction, broken) ->
                        record(inTransaction, name, redacted(broken.holders()), broken.fence(), by, reason)));
        if (result.holders().isEmpty()) {
            return Optional.empty();
        }
        String holders = redacted(result.holders());
        LOG.warn("Lock '{}' broken by {}: holder(s) {} deleted, fence advanced to {}; reason: {}",
                name, by, holders, result.fence(), reason);
        return Optional.of(new BrokenLock(name, holders, result.fence(), by, reason));
    }

    /**
     * Writes the break's record inside a savepoint, so a refused record (no CREATE privilege, a
     * foreign table of that name) leaves the break itself to commit.
     */
    private void record(Connection connection, String name, String holders, long fence, String by, String reason)
            throws SQLException {
        Savepoint savepoint = connection.setSavepoint();
        try (Statement create = connection.createStatement();
             PreparedStatement insert = connection.prepareStatement("INSERT INTO " + SqlIdentifier.quoted(breaks)
                     + " (name, holders, fence, broken_by, reason) VALUES (?, ?, ?, ?, ?)")) {
            for (String ddl : SchemaSql.statements("break-table", Map.of(DEFAULT_BREAKS, SqlIdentifier.quoted(breaks)))) {
                create.execute(ddl);
            }
            insert.setString(1, name);
            insert.setString(2, holders);
            insert.setLong(3, fence);
            insert.setString(4, by);
            insert.setString(5, reason);
            insert.executeUpdate();
            connection.releaseSavepoint(savepoint);
        } catch (SQLException refused) {
            connection.rollback(savepoint);
            LOG.warn("The break of lock '{}' is not recorded: table {} cannot be created or written ({}); create it "
                    + "with region break-table of leasehold-jdbc's schema.sql, or grant the client CREATE", name, breaks,
                    refused.getMessage());
        }
    }

    private static LockInfo snapshot(String name, List<LeaseKind.Row> rows) {
        List<LeaseKind.Row> leases = rows.stream().filter(row -> LeaseKind.holds(row.code())).toList();
        List<LeaseKind.Row> lockFamily = leases.stream()
                .filter(row -> LeaseKind.permitOf(row.code()).isEmpty()).toList();
        List<LeaseKind.Row> holders = lockFamily.isEmpty() ? leases : lockFamily;
        long waiters = rows.size() - leases.size();
        OptionalLong lastToken = leases.stream().mapToLong(LeaseKind.Row::token).max();
        if (holders.isEmpty()) {
            return new LockInfo(name, Optional.empty(), List.of(), Optional.empty(), lastToken, waiters,
                    Optional.empty());
        }
        LockKind kind = LeaseKind.kindOf(holders.get(0).code());
        return new LockInfo(name, Optional.of(kind), holders.stream().map(row -> HolderIds.redact(row.holder())).toList(),
                Optional.of(Duration.ofMillis(Math.max(0, holders.get(0).remainingMillis()))), lastToken, waiters,
                Optional.empty());
    }

    private static String redacted(List<LeaseKind.Row> rows) {
        return rows.stream().map(row -> HolderIds.redact(row.holder())).collect(Collectors.joining(", "));
    }

    /** What one call does on its connection. */
    private interface Statements<T> {
        T run(Connection connection) throws SQLException;
    }

    private <T> T read(String operation, Statements<T> statements) {
        try (Connection connection = shared.dataSource().getConnection()) {
            return statements.run(connection);
        } catch (SQLException | RuntimeException e) {
            throw JdbcErrors.translate(shared.database(), operation, e);
        }
    }
}
