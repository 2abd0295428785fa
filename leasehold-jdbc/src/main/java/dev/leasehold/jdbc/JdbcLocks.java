package dev.leasehold.jdbc;

import dev.leasehold.LockUnavailableException;
import dev.leasehold.NodeFailure;
import dev.leasehold.engine.EngineBuilder;
import dev.leasehold.engine.LeaseEngine;
import dev.leasehold.spi.Args;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Locks in PostgreSQL, for applications that have a database and no Redis: the same
 * {@link dev.leasehold.LockClient} API, leases as rows of a lease table.
 *
 * <pre>{@code
 * try (JdbcLockClient locks = JdbcLocks.create(dataSource)) {   // e.g. a HikariDataSource
 *     try (Lease lease = locks.lock("order:123").acquire(Duration.ofSeconds(5))) {
 *         orders.update(id, change, lease.token());
 *     }
 * }
 * }</pre>
 *
 * <p><b>What it guarantees.</b> A lease is a row whose expiry is computed by the database
 * ({@code clock_timestamp() + ttl}), never from the client's clock, so a client whose clock steps
 * changes nothing. Every attempt on a name runs in one READ COMMITTED transaction (whatever the
 * connections' default isolation) under that name's transaction advisory lock, so two attempts never
 * both grant. Tokens come from one database sequence, taken in
 * the granting transaction: strictly increasing for every name and every kind. The engine renews
 * held leases (batched, one transaction per renewal round) and marks a lease lost at its local
 * deadline when renewals fail, e.g. while the database restarts; a lease's row outlives that local
 * deadline on the database, so nothing is granted twice. No session state is used except the one
 * {@code LISTEN} connection (see below), so connections may come from any pool.
 *
 * <p><b>Kinds.</b> The mutex, the fair lock, the read-write lock and the semaphore, each lease a row
 * (see {@link LeaseKind} for the rows and which keep each kind out). A blocked fair acquirer
 * registers a row whose token is its arrival number, re-registered at each re-check for the engine's
 * {@link dev.leasehold.engine.LeaseEngine.Settings#waiterRegistration() waiter registration}; fair
 * acquirers are granted in arrival order across clients, and one whose registration lapsed (its
 * client died) stops blocking. A semaphore of {@code n} permits is at most {@code n} permit rows
 * of the name, each a lease with its own token; blocked permit acquirers queue by arrival the same
 * way. The rows carry {@code n}, so a client asking another number while permits are held gets a
 * {@link dev.leasehold.PermitsMismatchException}. A release wakes only the queued acquirers whose
 * turn it is, not every one. The lock family and the semaphore family of one name never exclude
 * each other; clients of a version before these kinds, on the same table, see their rows as
 * exclusive holders (they wait, and never grant against them).
 *
 * <p><b>Bounded transactions.</b> Every transaction sets, before it waits for anything and
 * transaction-scoped ({@code set_config(..., true)}, which is {@code SET LOCAL}, so a pooler carries
 * nothing over), {@code idle_in_transaction_session_timeout} to a third of the operation timeout,
 * {@code lock_timeout} to two thirds and {@code statement_timeout} to all of it. A client
 * frozen or cut off in the middle of its acquire therefore holds the name's advisory lock at most a
 * third of the operation timeout: the database then ends its session, its attempt grants nothing,
 * and the attempts queued behind it go on. An attempt that still waits past {@code lock_timeout}
 * fails with a {@link LockUnavailableException} saying that another client is stuck mid-acquire.
 * An acquire called off while its attempt runs (cancelled, interrupted, timed out) is cleaned up
 * only after that attempt's transaction ended, so it leaves no lease behind.
 *
 * <p><b>Waiting.</b> A release announces itself with {@code NOTIFY} on the channel
 * {@code <table>_released}; each client keeps one dedicated connection that {@code LISTEN}s and wakes
 * its waiters. Lost notifications (that connection down, a lease that expired instead of being
 * released) cost at most the engine's capped re-check interval.
 *
 * <p><b>The table</b> ({@value #DEFAULT_TABLE}, and the sequence {@code <table>_token}) is created on
 * first use if missing, or by a DBA from {@code dev/leasehold/jdbc/schema.sql} in this jar. Behind PgBouncer in transaction
 * pooling, turn off pgjdbc's named server-side statements ({@code prepareThreshold=0}). Connections should have a socket
 * timeout (pgjdbc's {@code socketTimeout}), so a call to a frozen database ends; the engine gives up
 * on it after its operation timeout either way.
 */
public final class JdbcLocks {

    /** The lease table's default name. */
    public static final String DEFAULT_TABLE = "leasehold_lease";

    private JdbcLocks() {
    }

    /**
     * A client on {@code dataSource}, with the table {@value #DEFAULT_TABLE} and default settings.
     *
     * @throws IllegalArgumentException if {@code dataSource} is null
     * @throws LockUnavailableException if the database cannot be reached, rejects the credentials or
     *     is read-only (the message says which and what to do)
     * @throws JdbcTableException if the table exists with another shape
     */
    public static JdbcLockClient create(DataSource dataSource) {
        return builder(dataSource).build();
    }

    /**
     * A builder for a client on {@code dataSource}.
     *
     * @throws IllegalArgumentException if {@code dataSource} is null
     */
    public static Builder builder(DataSource dataSource) {
        return new Builder(Args.notNull("dataSource", dataSource));
    }

    /**
     * Settings of a {@link JdbcLockClient}; each setter validates its argument at once. The
     * engine's settings come from {@link EngineBuilder}.
     */
    public static final class Builder extends EngineBuilder<Builder> {

        private final DataSource dataSource;
        private String table = DEFAULT_TABLE;
        private int threads = 8;

        private Builder(DataSource dataSource) {
            this.dataSource = dataSource;
        }

        @Override
        protected Builder self() {
            return this;
        }

        /**
         * The lease table: a lower-case identifier, {@code table} or {@code schema.table}, the table
         * part at most 57 characters (its sequence {@code <table>_token} must fit PostgreSQL's 63).
         *
         * @throws IllegalArgumentException otherwise (it becomes part of SQL text, so it is checked)
         */
        public Builder table(String table) {
            this.table = new LeaseTable(table, new TransactionBounds(operationTimeout())).table();
            return this;
        }

        /**
         * Threads that run the blocking JDBC calls (each borrows one connection); default 8.
         *
         * @throws IllegalArgumentException if outside [1, 256]
         */
        public Builder threads(int threads) {
            this.threads = Args.within("threads", threads, 1, 256);
            return this;
        }

        /**
         * Connects, creates the table if missing, opens the {@code LISTEN} connection, and returns the client.
         *
         * @throws LockUnavailableException if the database cannot be reached, rejects the
         *     credentials or is read-only, or the DataSource cannot lend two connections at once
         *     (a pool of one, or one the application exhausts: the LISTEN connection would take the
         *     last one); nothing is left open
         * @throws JdbcTableException if the table exists with another shape
         */
        public JdbcLockClient build() {
            LeaseTable leases = new LeaseTable(table, new TransactionBounds(operationTimeout()));
            String database = "the DataSource";
            ReleaseListener listener = new ReleaseListener(dataSource, leases, maxRecheck());
            Duration listenTimeout = operationTimeout().plusSeconds(5);
            try (Connection connection = dataSource.getConnection()) {
                database = describe(connection);
                leases.createIfMissing(connection);
                // Opened while this connection is still held: a pool that cannot lend two at once
                // would give the LISTEN connection its last one and starve every attempt after it.
                try {
                    listener.start(listenTimeout);
                } catch (SQLTransientConnectionException e) {
                    throw new LockUnavailableException("PostgreSQL at " + database + ": the DataSource lent no second "
                            + "connection while the client held one (it waited up to " + listenTimeout + ", or the "
                            + "pool's own timeout if shorter). Each JdbcLockClient "
                            + "keeps one connection for LISTEN as long as it is open, and its attempts need others: "
                            + "give the pool at least 2 connections more than the application holds at once",
                            new NodeFailure(database, NodeFailure.Kind.TIMED_OUT, e));
                } catch (SQLException e) {
                    throw JdbcErrors.translate(database, "opening the LISTEN connection", e);
                }
            } catch (SQLException e) {
                listener.close();
                throw JdbcErrors.translate(database, "connecting and creating table " + table, e);
            }
            ExecutorService executor = Executors.newFixedThreadPool(threads, daemonThreads());
            LeaseEngine.Settings settings = engineSettings();
            return new JdbcLockClient(new JdbcBackend(new JdbcLockProtocol.Shared(dataSource, leases, listener, executor,
                    database, settings.waiterRegistration())), settings);
        }

        /** The URL without its parameters, where a password may hide. */
        private static String describe(Connection connection) throws SQLException {
            String url = connection.getMetaData().getURL();
            int query = url.indexOf('?');
            return query < 0 ? url : url.substring(0, query);
        }

        private static ThreadFactory daemonThreads() {
            AtomicInteger count = new AtomicInteger();
            return task -> {
                Thread thread = new Thread(task, "leasehold-jdbc-" + count.incrementAndGet());
                thread.setDaemon(true);
                return thread;
            };
        }
    }
}
