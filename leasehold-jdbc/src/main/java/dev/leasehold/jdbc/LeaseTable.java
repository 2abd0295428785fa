package dev.leasehold.jdbc;

import dev.leasehold.LockKind;
import dev.leasehold.PermitsMismatchException;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;

/**
 * The SQL of the PostgreSQL lock backend over one lease table: every statement, and the one place
 * that knows the table's columns. Times are the database's ({@code clock_timestamp()}), never the
 * client's. Each method runs one transaction on the connection it is given, and leaves it in
 * auto-commit mode. Lock names and holder ids are always bound as parameters; only the validated
 * table, sequence and channel identifiers are part of the SQL text. The table's DDL is region
 * {@code lease-table} of {@code schema.sql} ({@link SchemaSql}); its {@code kind} column holds the
 * codes of {@link LeaseKind}.
 */
final class LeaseTable {

    /**
     * What an acquire found. {@code token} when granted; else {@code remainingMillis} until the
     * blockers free it, or -1 (unknown), and the attempt's {@code arrival} number in its kind's
     * queue, or -1 for a kind without a queue.
     */
    record Acquire(boolean granted, long token, long remainingMillis, long arrival) {
    }

    /** One renewal of a batch. */
    record Renewal(String name, String holder, Duration ttl) {
    }

    private final String table;
    /** {@link #table} quoted, as SQL text. */
    private final String sql;
    private final String sequence;
    private final String channel;
    private final TransactionBounds bounds;
    private final Announcements announcements;

    /** 63 bytes, PostgreSQL's identifier limit, less the sequence's {@code _token} suffix. */
    static final int MAX_TABLE_LENGTH = 63 - "_token".length();

    /** {@code bounds}: what every transaction on this table sets first. */
    LeaseTable(String table, TransactionBounds bounds) {
        this.bounds = bounds;
        this.table = SqlIdentifier.table("table", table, MAX_TABLE_LENGTH);
        this.sql = SqlIdentifier.quoted(this.table);
        this.sequence = SqlIdentifier.quoted(this.table + "_token");
        this.channel = channelOf(this.table);
        this.announcements = new Announcements(sql, channel);
    }

    /**
     * {@code <table>_released}, the dot of a schema-qualified name as '_'; PostgreSQL refuses a
     * NOTIFY channel of 64 bytes or more (and truncates a LISTEN one), so a longer name becomes
     * {@code leasehold_<hash of the table>_released}. Two tables sharing a channel only cost spurious wakes.
     */
    private static String channelOf(String table) {
        String channel = table.replace('.', '_') + "_released";
        if (channel.length() < 64) {
            return channel;
        }
        return "leasehold_" + Long.toHexString(table.hashCode() & 0xffffffffL) + "_released";
    }

    String table() {
        return table;
    }

    TransactionBounds bounds() {
        return bounds;
    }

    /** The LISTEN/NOTIFY channel on which releases are announced, the lock name as payload. */
    String channel() {
        return channel;
    }

    /**
     * Creates the sequence and the table unless they exist (serialized by a transaction-level
     * advisory lock, so clients starting together do not race on the catalog), then checks the
     * table's shape.
     *
     * @throws JdbcTableException if the table exists with another shape
     */
    void createIfMissing(Connection connection) throws SQLException {
        connection.setAutoCommit(false);
        try (Statement statement = connection.createStatement()) {
            statement.execute("SELECT pg_advisory_xact_lock(hashtextextended('leasehold:schema:" + table + "', 0))");
            for (String ddl : SchemaSql.statements("lease-table",
                    Map.of("leasehold_lease", sql, "leasehold_lease_token", sequence))) {
                statement.execute(ddl);
            }
            TableShape.require(connection, table, List.of(new TableShape.Column("name", "text"),
                    new TableShape.Column("holder", "text"), new TableShape.Column("kind", "text"),
                    new TableShape.Column("token", "bigint"),
                    new TableShape.Column("expires_at", "timestamp with time zone")), "name, holder");
            connection.commit();
        } finally {
            endTransaction(connection);
        }
    }

    /**
     * One attempt of {@code holder} to take {@code name} as {@code kind}, in one transaction that
     * holds the name's advisory transaction lock, so attempts on one name are serialized (its waits
     * and idle time are bounded, see {@link TransactionBounds}; the bounds, the isolation level and
     * the advisory lock go out in one round trip, and the purge and the read of the live rows in
     * another): expired rows go, a live row of the holder's own (a retried attempt whose reply was
     * lost) is kept and its token returned, and otherwise a new lease row takes the next token of the sequence. The
     * transaction is READ COMMITTED whatever the connection's default, so each statement after the
     * advisory lock sees every grant committed before it.
     * A blocked write, fair or permit attempt, or a mutex one that is {@code subscribed}, registers for {@code registration} (a queued one, fair
     * or permit, keeps its arrival number while it re-registers); {@link LeaseKind#decide} says which
     * rows keep it out. A release announces at commit ({@link Announcements}).
     *
     * @throws dev.leasehold.PermitsMismatchException if a permit is asked with another number than the live ones
     */
    Acquire acquire(Connection connection, LeaseKind kind, String name, String holder, Duration ttl,
                    Duration registration, boolean subscribed) throws SQLException {
        connection.setAutoCommit(false);
        try {
            begin(connection, name);
            LeaseKind.Decision decision = kind.decide(name, holder, purgeAndReadLiveRows(connection, name), subscribed);
            Acquire result;
            if (decision instanceof LeaseKind.Decision.Own own) {
                extend(connection, name, holder, ttl);
                result = new Acquire(true, own.token(), -1, -1);
            } else if (decision instanceof LeaseKind.Decision.Blocked blocked) {
                long arrival = blocked.arrival();
                if (arrival >= 0) {
                    refreshRegistration(connection, name, holder, registration);
                } else if (LeaseKind.WAITING_WRITER.equals(blocked.register())
                        || LeaseKind.WAITING_MUTEX.equals(blocked.register())) {
                    upsert(connection, name, holder, blocked.register(), "0", registration);
                } else if (blocked.register() != null) {
                    // A queued acquirer's token is its arrival number, drawn from the fence like every token.
                    arrival = upsert(connection, name, holder, blocked.register(), "nextval('" + sequence + "')", registration);
                }
                result = new Acquire(false, 0, blocked.remainingMillis(), arrival);
            } else {
                result = new Acquire(true, upsert(connection, name, holder, kind.code(), "nextval('" + sequence + "')", ttl), -1, -1);
                if (((LeaseKind.Decision.Grant) decision).queued() && kind.kind() instanceof LockKind.Permits permits) {
                    announcements.permitTurns(connection, name, permits.permits()); // more permits may be free
                }
            }
            connection.commit();
            return result;
        } finally {
            endTransaction(connection);
        }
    }

    /**
     * Opens the transaction on {@code name} in one round trip of two statements: READ COMMITTED, then
     * one that sets the {@link TransactionBounds} and takes the name's advisory transaction lock.
     */
    private void begin(Connection connection, String name) throws SQLException {
        // Under REPEATABLE READ (a pool's or database's default) the snapshot would be taken as the
        // advisory lock is awaited, hiding the grant committed by the attempt waited behind.
        // The bounds are a subquery in FROM, so they are set before the select list takes the lock:
        // lock_timeout then bounds the wait (statement_timeout starts with the next statement, and
        // the wait is this statement's only one), and idle_in_transaction_session_timeout the rest.
        // OFFSET 0 keeps the planner from folding the subquery away; it keeps volatile outputs.
        try (PreparedStatement begin = connection.prepareStatement("SET TRANSACTION ISOLATION LEVEL READ COMMITTED; "
                + "SELECT pg_advisory_xact_lock(hashtextextended(?, 0)) FROM (" + bounds.sql() + " OFFSET 0) AS bounds")) {
            begin.setString(1, table + ":" + name);
            begin.execute();
        }
    }

    /** {@link #begin}, then drops the name's expired rows. */
    void lockName(Connection connection, String name) throws SQLException {
        begin(connection, name);
        try (PreparedStatement purge = connection.prepareStatement(
                "DELETE FROM " + sql + " WHERE name = ? AND expires_at <= clock_timestamp()")) {
            purge.setString(1, name);
            purge.executeUpdate();
        }
    }

    /**
     * Drops the expired rows of {@code name} and returns the live ones, oldest token first, in one
     * statement of the connection's current transaction. Both sides are split by one instant read
     * once: a row the purge deletes is never returned as live (the statement's parts run in no set
     * order), so a holder's own row seen live is still there for the rest of the transaction.
     */
    private List<LeaseKind.Row> purgeAndReadLiveRows(Connection connection, String name) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("WITH instant AS (SELECT clock_timestamp() AS at), "
                + "purged AS (DELETE FROM " + sql + " WHERE name = ? AND expires_at <= (SELECT at FROM instant)) "
                + "SELECT holder, kind, token, ceil(extract(epoch FROM expires_at - instant.at) * 1000)::bigint FROM "
                + sql + ", instant WHERE name = ? AND expires_at > instant.at ORDER BY token")) {
            select.setString(1, name);
            select.setString(2, name);
            return rows(select);
        }
    }

    /** The live rows of {@code name}, oldest token first, in the connection's current transaction. */
    List<LeaseKind.Row> liveRows(Connection connection, String name) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT holder, kind, token, "
                + "ceil(extract(epoch FROM expires_at - clock_timestamp()) * 1000)::bigint FROM " + sql
                + " WHERE name = ? AND expires_at > clock_timestamp() ORDER BY token")) {
            select.setString(1, name);
            return rows(select);
        }
    }

    /** The rows {@code select} returns: holder, kind, token and remaining milliseconds. */
    private static List<LeaseKind.Row> rows(PreparedStatement select) throws SQLException {
        List<LeaseKind.Row> rows = new ArrayList<>();
        try (ResultSet row = select.executeQuery()) {
            while (row.next()) {
                rows.add(new LeaseKind.Row(row.getString(1), row.getString(2), row.getLong(3), row.getLong(4)));
            }
        }
        return rows;
    }

    /**
     * How many of {@code permits} permits of {@code name} no live lease holds, in one bounded
     * read-only transaction.
     *
     * @throws dev.leasehold.PermitsMismatchException if live permits were taken with another number
     */
    int availablePermits(Connection connection, String name, int permits) throws SQLException {
        int taken = 0;
        for (LeaseKind.Row row : readOnly(connection, () -> liveRows(connection, name))) {
            OptionalInt heldWith = LeaseKind.permitOf(row.code());
            if (heldWith.isPresent() && heldWith.getAsInt() != permits) {
                throw new PermitsMismatchException(name, heldWith.getAsInt(), permits);
            }
            taken += heldWith.isPresent() ? 1 : 0;
        }
        return Math.max(0, permits - taken);
    }

    /** {@link #liveRows} in a bounded read-only transaction of its own. */
    List<LeaseKind.Row> liveRowsNow(Connection connection, String name) throws SQLException {
        return readOnly(connection, () -> liveRows(connection, name));
    }

    /**
     * Extends each live lease of the batch to its ttl from now, never shortening it, in one
     * statement over arrays of the batch's names, holders and ttls (a lease named twice gets the
     * longer ttl). One statement, not a JDBC batch: the driver's error for a failed batch entry
     * quotes the entry's parameters, holder ids included, and pools log such errors.
     *
     * @return per renewal, whether the lease was still the holder's and live
     */
    boolean[] renew(Connection connection, List<Renewal> renewals) throws SQLException {
        String[] names = new String[renewals.size()];
        String[] holders = new String[renewals.size()];
        Long[] ttls = new Long[renewals.size()];
        for (int i = 0; i < renewals.size(); i++) {
            names[i] = renewals.get(i).name();
            holders[i] = renewals.get(i).holder();
            ttls[i] = renewals.get(i).ttl().toMillis();
        }
        Set<List<String>> renewedLeases = new HashSet<>();
        connection.setAutoCommit(false);
        try (PreparedStatement update = connection.prepareStatement(bounds.sql() + "; UPDATE " + sql + " AS l"
                + " SET expires_at = greatest(l.expires_at, clock_timestamp() + r.ttl * interval '1 millisecond')"
                + " FROM (SELECT name, holder, max(ttl) AS ttl FROM unnest(?::text[], ?::text[], ?::bigint[])"
                + " AS u(name, holder, ttl) GROUP BY name, holder) AS r"
                + " WHERE l.name = r.name AND l.holder = r.holder AND NOT " + LeaseKind.WAITING_SQL + " AND l.expires_at > clock_timestamp()"
                + " RETURNING l.name, l.holder")) {
            update.setArray(1, connection.createArrayOf("text", names));
            update.setArray(2, connection.createArrayOf("text", holders));
            update.setArray(3, connection.createArrayOf("bigint", ttls));
            try (ResultSet rows = rowsAfterBounds(update)) {
                while (rows.next()) {
                    renewedLeases.add(List.of(rows.getString(1), rows.getString(2)));
                }
            }
            connection.commit();
        } finally {
            endTransaction(connection);
        }
        boolean[] renewed = new boolean[renewals.size()];
        for (int i = 0; i < renewals.size(); i++) {
            renewed[i] = renewedLeases.contains(List.of(names[i], holders[i]));
        }
        return renewed;
    }

    /**
     * Deletes every row of {@code holder} on {@code name} (its lease, its registration as a waiting
     * writer or a queued acquirer) and, if one went, announces on {@link #channel()} at commit.
     *
     * <p>A commit whose answer was lost (the connection broke during it) may have gone through: the
     * attempt tried again on a new connection then finds no row, which is no loss. So a deleting
     * attempt's transaction id is kept in {@code earlier} when its commit fails, and an attempt that
     * deletes nothing asks the database whether that transaction committed: its DELETE waited for the
     * earlier one's row lock, so the earlier one has ended by then.
     *
     * @param earlier what the earlier attempts of this release left: a fresh one for a first attempt
     * @return whether a live lease of {@code holder} was deleted, by this attempt or by an earlier
     *         one whose commit went through unanswered
     */
    boolean release(Connection connection, String name, String holder, UnansweredRelease earlier) throws SQLException {
        connection.setAutoCommit(false);
        try {
            boolean released = false;
            long transaction = -1;
            List<String> deleted = new ArrayList<>();
            try (PreparedStatement delete = connection.prepareStatement(bounds.sql() + "; DELETE FROM " + sql
                    + " WHERE name = ? AND holder = ? RETURNING kind, expires_at > clock_timestamp(), txid_current()")) {
                delete.setString(1, name);
                delete.setString(2, holder);
                try (ResultSet row = rowsAfterBounds(delete)) {
                    while (row.next()) {
                        deleted.add(row.getString(1));
                        released |= LeaseKind.holds(row.getString(1)) && row.getBoolean(2);
                        transaction = row.getLong(3);
                    }
                }
            }
            if (!deleted.isEmpty()) {
                announcements.released(connection, name, deleted);
            } else {
                released = earlier.committedARelease(connection);
            }
            try {
                connection.commit();
            } catch (SQLException e) {
                if (transaction >= 0) {
                    earlier.unanswered(transaction, released);
                }
                throw e;
            }
            return released;
        } finally {
            endTransaction(connection);
        }
    }

    /**
     * The deleting attempt of one release whose commit failed, if any: its transaction id and whether
     * it deleted a live lease. Its attempts run one after another, so it needs no locking.
     */
    static final class UnansweredRelease {

        private long transaction = -1;
        private boolean released;

        private void unanswered(long transaction, boolean released) {
            this.transaction = transaction;
            this.released = released;
        }

        /** Whether an earlier attempt deleted a live lease and its commit went through. */
        private boolean committedARelease(Connection connection) throws SQLException {
            if (transaction < 0 || !released) {
                return false;
            }
            try (PreparedStatement status = connection.prepareStatement("SELECT txid_status(?)")) {
                status.setLong(1, transaction);
                try (ResultSet row = status.executeQuery()) {
                    return row.next() && "committed".equals(row.getString(1));
                }
            }
        }
    }

    /**
     * Ends {@code holder}'s lease on {@code name} but keeps its row live until the database's
     * {@code clock_timestamp()} + {@code keepFor} (rounded up to whole ms), earlier or later than
     * its expiry was, instead of deleting it: {@link dev.leasehold.LockOptions#holdAtLeast}. Only a
     * live lease row of the holder's is kept; a registration of the holder's (waiting writer, queued acquirer) goes.
     * One transaction, bounded as every other ({@link TransactionBounds}), no announcement: the
     * lock is not free. Every acquire purges expired rows, so the kept row frees the lock by the
     * database's clock even if this process dies.
     *
     * @return whether a live lease of {@code holder} was kept
     */
    boolean releaseHolding(Connection connection, String name, String holder, Duration keepFor) throws SQLException {
        long millis = Math.max(1, (keepFor.toNanos() + 999_999) / 1_000_000);
        connection.setAutoCommit(false);
        try {
            int kept = 0;
            try (PreparedStatement update = connection.prepareStatement(bounds.sql() + "; UPDATE " + sql
                    + " SET expires_at = clock_timestamp() + ? * interval '1 millisecond'"
                    + " WHERE name = ? AND holder = ? AND NOT " + LeaseKind.WAITING_SQL + " AND expires_at > clock_timestamp() RETURNING 1")) {
                update.setLong(1, millis);
                update.setString(2, name);
                update.setString(3, holder);
                try (ResultSet rows = rowsAfterBounds(update)) {
                    while (rows.next()) {
                        kept++;
                    }
                }
            }
            try (PreparedStatement delete = connection.prepareStatement("DELETE FROM " + sql
                    + " WHERE name = ? AND holder = ? AND " + LeaseKind.WAITING_SQL)) {
                delete.setString(1, name);
                delete.setString(2, holder);
                delete.executeUpdate();
            }
            connection.commit();
            return kept > 0;
        } finally {
            endTransaction(connection);
        }
    }

    /** Live rows of the names matching {@code like} (an escaped LIKE pattern, bound as a parameter), by name. */
    Map<String, List<LeaseKind.Row>> liveRowsLike(Connection connection, String like) throws SQLException {
        Map<String, List<LeaseKind.Row>> rows = new TreeMap<>();
        return readOnly(connection, () -> {
            try (PreparedStatement select = connection.prepareStatement("SELECT name, holder, kind, token, "
                    + "ceil(extract(epoch FROM expires_at - clock_timestamp()) * 1000)::bigint FROM " + sql
                    + " WHERE name LIKE ? ESCAPE '\\' AND expires_at > clock_timestamp() ORDER BY name, token")) {
                select.setString(1, like);
                try (ResultSet row = select.executeQuery()) {
                    while (row.next()) {
                        rows.computeIfAbsent(row.getString(1), name -> new ArrayList<>()).add(
                                new LeaseKind.Row(row.getString(2), row.getString(3), row.getLong(4), row.getLong(5)));
                    }
                }
            }
            return rows;
        });
    }

    /** Reads of one transaction. */
    private interface Read<T> {
        T run() throws SQLException;
    }

    /** Runs {@code read} in one transaction under the {@link TransactionBounds}, and commits. */
    private <T> T readOnly(Connection connection, Read<T> read) throws SQLException {
        connection.setAutoCommit(false);
        try {
            try (Statement begin = connection.createStatement()) {
                begin.execute(bounds.sql());
            }
            T result = read.run();
            connection.commit();
            return result;
        } finally {
            endTransaction(connection);
        }
    }

    /** What a break deleted, and the fence it drew: every later token of the table exceeds it. */
    record Break(List<LeaseKind.Row> holders, long fence) {
    }

    /**
     * Deletes every live lease of {@code name} (registrations stay: their acquirers are still
     * waiting), under the name's advisory lock as an attempt would, draws the next value of the
     * sequence as the fence, and announces the release; then runs {@code record} with the break in
     * the same transaction (it may write a record), and commits. Nothing is written when no lease
     * was live.
     */
    Break breakLeases(Connection connection, String name, BreakRecord record) throws SQLException {
        connection.setAutoCommit(false);
        try {
            lockName(connection, name);
            List<LeaseKind.Row> deleted = new ArrayList<>();
            try (PreparedStatement delete = connection.prepareStatement("DELETE FROM " + sql + " WHERE name = ? AND "
                    + "NOT " + LeaseKind.WAITING_SQL + " RETURNING holder, kind, token, "
                    + "ceil(extract(epoch FROM expires_at - clock_timestamp()) * 1000)::bigint")) {
                delete.setString(1, name);
                try (ResultSet row = delete.executeQuery()) {
                    while (row.next()) {
                        deleted.add(new LeaseKind.Row(row.getString(1), row.getString(2), row.getLong(3), row.getLong(4)));
                    }
                }
            }
            if (deleted.isEmpty()) {
                return new Break(deleted, 0);
            }
            deleted.sort(Comparator.comparingLong(LeaseKind.Row::token));
            long fence;
            try (PreparedStatement next = connection.prepareStatement("SELECT nextval('" + sequence + "')");
                 ResultSet row = next.executeQuery()) {
                row.next();
                fence = row.getLong(1);
            }
            announcements.released(connection, name, deleted.stream().map(LeaseKind.Row::code).toList());
            Break result = new Break(deleted, fence);
            record.write(connection, result);
            connection.commit();
            return result;
        } finally {
            endTransaction(connection);
        }
    }

    /** Writes the record of a break inside its transaction. */
    interface BreakRecord {
        void write(Connection connection, Break result) throws SQLException;
    }

    /** Opens the notification subscription on a dedicated connection (auto-commit). */
    void listen(Connection connection) throws SQLException {
        connection.setAutoCommit(true);
        try (Statement statement = connection.createStatement()) {
            statement.execute("LISTEN " + channel);
        }
    }

    /**
     * Runs {@code statement}, {@link TransactionBounds#sql()} followed by one statement that returns
     * rows, and returns those rows.
     */
    private static ResultSet rowsAfterBounds(PreparedStatement statement) throws SQLException {
        statement.execute();
        if (!statement.getMoreResults()) {
            throw new SQLException("the statement after the transaction bounds returned no rows");
        }
        return statement.getResultSet();
    }

    private void extend(Connection connection, String name, String holder, Duration ttl) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement("UPDATE " + sql
                + " SET expires_at = greatest(expires_at, clock_timestamp() + ? * interval '1 millisecond') "
                + "WHERE name = ? AND holder = ?")) {
            update.setLong(1, ttl.toMillis());
            update.setString(2, name);
            update.setString(3, holder);
            update.executeUpdate();
        }
    }

    /** Moves the holder's registration's expiry to now + {@code registration}, keeping its arrival number. */
    private void refreshRegistration(Connection connection, String name, String holder, Duration registration)
            throws SQLException {
        try (PreparedStatement update = connection.prepareStatement("UPDATE " + sql
                + " SET expires_at = clock_timestamp() + ? * interval '1 millisecond' WHERE name = ? AND holder = ?")) {
            update.setLong(1, registration.toMillis());
            update.setString(2, name);
            update.setString(3, holder);
            update.executeUpdate();
        }
    }

    /** Inserts or replaces the holder's row; {@code tokenSql} is a constant SQL expression. Returns the token. */
    private long upsert(Connection connection, String name, String holder, String kind, String tokenSql,
                        Duration ttl) throws SQLException {
        try (PreparedStatement upsert = connection.prepareStatement("INSERT INTO " + sql
                + " (name, holder, kind, token, expires_at) VALUES (?, ?, ?, " + tokenSql
                + ", clock_timestamp() + ? * interval '1 millisecond') ON CONFLICT (name, holder) DO UPDATE "
                + "SET kind = excluded.kind, token = excluded.token, expires_at = excluded.expires_at RETURNING token")) {
            upsert.setString(1, name);
            upsert.setString(2, holder);
            upsert.setString(3, kind);
            upsert.setLong(4, ttl.toMillis());
            try (ResultSet row = upsert.executeQuery()) {
                row.next();
                return row.getLong(1);
            }
        }
    }

    /**
     * Rolls back whatever did not commit, and hands the connection back in auto-commit mode. A broken
     * connection fails here too; that error is dropped, so the one that broke the transaction surfaces
     * (and the pool discards the connection).
     */
    private static void endTransaction(Connection connection) {
        try {
            if (!connection.getAutoCommit()) {
                connection.rollback();
                connection.setAutoCommit(true);
            }
        } catch (SQLException e) {
            // see above
        }
    }
}
