package dev.leasehold.jdbc;

import java.time.Duration;

/**
 * The server-side bounds of every lease-table transaction, set at its start by one statement of
 * {@code set_config(..., true)} calls, PostgreSQL's {@code SET LOCAL} (transaction-scoped, so a
 * transaction-pooling PgBouncer carries nothing over to another client), all within the engine's
 * operation timeout {@code T}:
 * <ul>
 *   <li>{@code idle_in_transaction_session_timeout = T/3}: a client frozen or cut off inside its
 *       transaction (it holds the name's advisory lock) has its session ended by the database, which
 *       rolls the transaction back and frees the lock; otherwise that lock stays until TCP
 *       keepalive notices a crashed host, about two hours;</li>
 *   <li>{@code lock_timeout = 2T/3}: a wait for the name's advisory lock (or a row lock) ends with an
 *       error before the client gives up, so the error can say what held it; it is longer than the
 *       idle bound, so an attempt queued behind a frozen client outlives that client's transaction
 *       and goes on to succeed;</li>
 *   <li>{@code statement_timeout = T}: no statement outlives the client's wait for it.</li>
 * </ul>
 * Each bound is at least {@value #FLOOR_MILLIS} ms, so a tiny operation timeout does not end
 * healthy transactions on a loaded machine.
 */
final class TransactionBounds {

    static final long FLOOR_MILLIS = 50;

    private final long idleMillis;
    private final long lockMillis;
    private final String sql;

    TransactionBounds(Duration operationTimeout) {
        long timeout = Math.max(3 * FLOOR_MILLIS, operationTimeout.toMillis());
        this.idleMillis = Math.max(FLOOR_MILLIS, timeout / 3);
        this.lockMillis = Math.max(2 * FLOOR_MILLIS, 2 * timeout / 3);
        // One statement instead of three SET LOCALs: each statement costs the server a parse, a
        // plan and a log line, and a lock+release ran six of them.
        this.sql = "SELECT set_config('idle_in_transaction_session_timeout', '" + idleMillis + "', true), "
                + "set_config('lock_timeout', '" + lockMillis + "', true), "
                + "set_config('statement_timeout', '" + timeout + "', true)";
    }

    /**
     * The one {@code SELECT} that sets the bounds, returning one row (no trailing ';'): run it first in
     * each transaction, on its own, or as a subquery that a statement reads before it waits for anything
     * (a bound takes effect as it is set, except {@code statement_timeout}, which starts with the next statement).
     */
    String sql() {
        return sql;
    }

    /** How long the database lets a transaction sit idle: the longest a frozen client keeps a name's advisory lock. */
    long idleMillis() {
        return idleMillis;
    }

    /** How long an attempt waits for a name's advisory lock before it fails. */
    long lockMillis() {
        return lockMillis;
    }
}
