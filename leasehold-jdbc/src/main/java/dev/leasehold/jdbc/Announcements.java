package dev.leasehold.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;

/**
 * The {@code NOTIFY}s of one lease table, sent inside a transaction and delivered at its commit:
 * the plain payload, the lock name, wakes every waiter of the name that waits without a queue
 * (mutex, readers, writers); a turn payload, {@code "<arrival> <name>"}, wakes only the queued
 * acquirers of the name whose arrival number is at most {@code arrival}: those who may be granted
 * now. So a release wakes one fair acquirer, or as many permit acquirers as permits are free,
 * instead of every queued one ({@link ReleaseListener} tells the payloads apart; a name that looks
 * like a turn payload costs only a spurious wake).
 */
final class Announcements {

    private final String channel;
    private final String turnSql;
    private final String permitsHeldSql;

    /** {@code table}: the quoted lease table, SQL text. */
    Announcements(String table, String channel) {
        this.channel = channel;
        this.turnSql = "SELECT pg_notify(?, max(token) || ' ' || ?) FROM (SELECT token FROM " + table
                + " WHERE name = ? AND kind = ? AND expires_at > clock_timestamp() ORDER BY token LIMIT ?) AS queued"
                + " HAVING count(*) > 0";
        this.permitsHeldSql = "SELECT count(*) FROM " + table
                + " WHERE name = ? AND kind = ? AND expires_at > clock_timestamp()";
    }

    /**
     * Announces that rows of {@code codes} went from {@code name}: the plain payload, and the turns
     * of the queues those rows may have held up (the fair queue for a lock-family row, a semaphore's
     * queue for its permit or registration).
     */
    void released(Connection connection, String name, Collection<String> codes) throws SQLException {
        if (codes.stream().anyMatch(code -> !LeaseKind.semaphoreFamily(code))) {
            // Both in one statement: the plain payload, and the fair queue's head (no row when none queues).
            try (PreparedStatement notify = connection.prepareStatement("SELECT pg_notify(?, ?), (" + turnSql + ")")) {
                notify.setString(1, channel);
                notify.setString(2, name);
                bindTurn(notify, 3, name, LeaseKind.FAIR_WAITER, 1);
                notify.execute();
            }
        } else {
            try (PreparedStatement notify = connection.prepareStatement("SELECT pg_notify(?, ?)")) {
                notify.setString(1, channel);
                notify.setString(2, name);
                notify.execute();
            }
        }
        Set<Integer> semaphores = new TreeSet<>();
        for (String code : codes) {
            OptionalInt permits = LeaseKind.permitOf(code.startsWith(LeaseKind.FAIR_WAITER) ? code.substring(1) : code);
            permits.ifPresent(semaphores::add);
        }
        for (int permits : semaphores) {
            permitTurns(connection, name, permits);
        }
    }

    /** Wakes as many queued acquirers of the semaphore of {@code permits} permits on {@code name} as permits are free. */
    void permitTurns(Connection connection, String name, int permits) throws SQLException {
        String permit = "p" + permits;
        int held;
        try (PreparedStatement count = connection.prepareStatement(permitsHeldSql)) {
            count.setString(1, name);
            count.setString(2, permit);
            try (ResultSet row = count.executeQuery()) {
                row.next();
                held = row.getInt(1);
            }
        }
        if (held < permits) {
            turn(connection, name, LeaseKind.FAIR_WAITER + permit, permits - held);
        }
    }

    /** Wakes the first {@code turns} live registrations of {@code queueCode} on {@code name}, if any. */
    private void turn(Connection connection, String name, String queueCode, int turns) throws SQLException {
        try (PreparedStatement notify = connection.prepareStatement(turnSql)) {
            bindTurn(notify, 1, name, queueCode, turns);
            notify.execute();
        }
    }

    private void bindTurn(PreparedStatement notify, int first, String name, String queueCode, int turns)
            throws SQLException {
        notify.setString(first, channel);
        notify.setString(first + 1, name);
        notify.setString(first + 2, name);
        notify.setString(first + 3, queueCode);
        notify.setInt(first + 4, turns);
    }
}
