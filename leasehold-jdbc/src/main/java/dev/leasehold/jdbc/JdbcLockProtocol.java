package dev.leasehold.jdbc;

import dev.leasehold.LockClientClosedException;
import dev.leasehold.LockKind;
import dev.leasehold.spi.AcquireRequest;
import dev.leasehold.spi.Admission;
import dev.leasehold.spi.Attempt;
import dev.leasehold.spi.LockProtocol;
import dev.leasehold.spi.ReleaseOutcome;
import dev.leasehold.spi.ReleaseSignal;
import dev.leasehold.spi.SettlingFuture;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;

/**
 * One lock kind of the PostgreSQL backend as the engine's {@link LockProtocol}: each call borrows a
 * connection from the client's {@link DataSource}, runs one {@link LeaseTable} transaction on the
 * client's executor (JDBC blocks; the engine's threads must not), and returns it.
 */
final class JdbcLockProtocol implements LockProtocol {

    /** What every kind of one client shares. */
    record Shared(DataSource dataSource, LeaseTable table, ReleaseListener listener, ExecutorService executor,
                   String database, Duration waiterRegistration) {
    }

    private interface Work<T> {
        T run(Connection connection) throws SQLException;
    }

    /** A pool may hold this many connections the database has closed; each is found out on use. */
    private static final int CONNECTION_ATTEMPTS = 16;

    private final Shared backend;
    private final LeaseKind kind;
    private final Object renewalsLock = new Object();
    private List<PendingRenewal> renewals = new ArrayList<>();

    private record PendingRenewal(LeaseTable.Renewal renewal, CompletableFuture<Boolean> result) {
    }

    JdbcLockProtocol(Shared backend, LeaseKind kind) {
        this.backend = backend;
        this.kind = kind;
    }

    @Override
    public String describe() {
        return backend.database();
    }

    @Override
    public String kind() {
        return kind.tag();
    }

    @Override
    public Admission admission() {
        // Readers and permits have many holders; a fair lock's order is the database's arrival order
        // across every client's acquisitions, so none waits in a local queue.
        return kind.kind().exclusive() && !(kind.kind() instanceof LockKind.Fair) ? Admission.EXCLUSIVE : Admission.SHARED;
    }

    @Override
    public CompletableFuture<Attempt> tryAcquire(AcquireRequest request) {
        return call(kind.operation() + " of '" + request.name() + "'", connection -> {
            LeaseTable.Acquire result = backend.table().acquire(connection, kind, request.name(), request.holder(),
                    request.ttl(), backend.waiterRegistration(), request.subscribed());
            if (result.granted()) {
                return Attempt.acquired(result.token());
            }
            if (result.arrival() >= 0) {
                backend.listener().arrived(request.holder(), result.arrival());
            }
            return Attempt.held(result.remainingMillis() >= 0 ? Duration.ofMillis(result.remainingMillis()) : null);
        });
    }

    /** Queued until {@link #flushRenewals()}, which sends the batch in one transaction. */
    @Override
    public CompletableFuture<Boolean> renew(String name, String holder, Duration ttl) {
        CompletableFuture<Boolean> result = new CompletableFuture<>();
        synchronized (renewalsLock) {
            renewals.add(new PendingRenewal(new LeaseTable.Renewal(name, holder, ttl), result));
        }
        return result;
    }

    @Override
    public void flushRenewals() {
        List<PendingRenewal> batch;
        synchronized (renewalsLock) {
            if (renewals.isEmpty()) {
                return;
            }
            batch = renewals;
            renewals = new ArrayList<>();
        }
        call("the renewal of " + batch.size() + " lease(s)", connection ->
                backend.table().renew(connection, batch.stream().map(PendingRenewal::renewal).toList()))
                .whenComplete((renewed, error) -> {
                    for (int i = 0; i < batch.size(); i++) {
                        if (error != null) {
                            batch.get(i).result().completeExceptionally(error);
                        } else {
                            batch.get(i).result().complete(renewed[i]);
                        }
                    }
                });
    }

    /** Tried again on a new connection after a broken one, telling a lost commit answer from a lost lease ({@link LeaseTable#release}). */
    @Override
    public CompletableFuture<ReleaseOutcome> release(String name, String holder) {
        LeaseTable.UnansweredRelease earlier = new LeaseTable.UnansweredRelease();
        return call("the release of '" + name + "'", connection ->
                ReleaseOutcome.single(backend.table().release(connection, name, holder, earlier)));
    }

    /** Moves the lease row's expiry to the database's now + {@code keepFor}: see {@link LeaseTable#releaseHolding}. */
    @Override
    public CompletableFuture<ReleaseOutcome> releaseHolding(String name, String holder, Duration keepFor) {
        return call("the release (held " + keepFor.toMillis() + " ms more) of '" + name + "'", connection ->
                ReleaseOutcome.single(backend.table().releaseHolding(connection, name, holder, keepFor)));
    }

    /** The release's statement deletes every row of the holder: the lease and its registration as a waiting writer or queued acquirer. */
    @Override
    public CompletableFuture<Void> abandon(String name, String holder) {
        return call("the cleanup of an abandoned acquire of '" + name + "'", connection -> {
            backend.table().release(connection, name, holder, new LeaseTable.UnansweredRelease());
            return null;
        });
    }

    @Override
    public ReleaseSignal subscribe(String name, String holder) {
        // A queued acquirer waits for its turn, so a release wakes one of them, not the herd.
        return kind.queueCode() != null ? backend.listener().subscribeQueued(name, holder) : backend.listener().subscribe(name);
    }

    /**
     * Runs {@code work} on a pooled connection on the executor. A connection the database closed
     * (terminated backend, restart) is found out only when used, and a pool may hold several; so
     * the work is retried on another connection, up to {@value #CONNECTION_ATTEMPTS} times in all,
     * while the error says the connection broke (a database that cannot be reached at all fails at once).
     * Every call is idempotent for its holder (an acquire finds its own row, a release asks whether
     * its earlier attempt's commit went through), so a retry after a commit whose reply was lost is harmless.
     *
     * <p>The future may be cancelled or timed out while the transaction runs on: it says when the
     * transaction has ended ({@link SettlingFuture#workEnded()}), so the engine's clean-up after a
     * called-off acquire runs after the attempt's commit, never before.
     */
    private <T> CompletableFuture<T> call(String operation, Work<T> work) {
        SettlingFuture<T> result = new SettlingFuture<>();
        try {
            backend.executor().execute(() -> {
                try {
                    runRetried(operation, work, result);
                } finally {
                    result.workEnded();
                }
            });
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(new LockClientClosedException(backend.database()));
            result.workEnded();
        }
        return result;
    }

    private <T> void runRetried(String operation, Work<T> work, CompletableFuture<T> result) {
        for (int attempt = 1; ; attempt++) {
            try (Connection connection = backend.dataSource().getConnection()) {
                result.complete(work.run(connection));
                return;
            } catch (SQLException e) {
                if (attempt == CONNECTION_ATTEMPTS || !isClosedConnection(e) || result.isDone()) {
                    result.completeExceptionally(JdbcErrors.translate(backend.database(), operation, e));
                    return;
                }
            } catch (RuntimeException e) {
                result.completeExceptionally(JdbcErrors.translate(backend.database(), operation, e));
                return;
            }
        }
    }

    /** SQLSTATE 08003 (no connection), 08006 (connection failure) or 57P01 (the backend was terminated). */
    private static boolean isClosedConnection(SQLException e) {
        String state = e.getSQLState();
        return "08003".equals(state) || "08006".equals(state) || "57P01".equals(state);
    }
}
