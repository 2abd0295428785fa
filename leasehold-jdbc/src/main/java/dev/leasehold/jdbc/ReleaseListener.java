package dev.leasehold.jdbc;

import dev.leasehold.spi.ReleaseSignal;
import dev.leasehold.spi.Wake;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One dedicated connection per client that {@code LISTEN}s on the lease table's channel and wakes
 * the waiters of the released name. Notifications are best effort: while the connection is down
 * (database restart, connection killed) the thread reconnects, and waiters fall back on the
 * engine's capped re-check; after each reconnect every waiter is woken once, since releases may
 * have been missed meanwhile. The connection is held for the client's lifetime: behind a
 * transaction-pooling PgBouncer, give the client a DataSource that reaches PostgreSQL directly.
 */
final class ReleaseListener implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ReleaseListener.class);
    private static final int POLL_MILLIS = 250;

    private final DataSource dataSource;
    private final LeaseTable table;
    private final Duration reconnectDelay;
    private final ConcurrentMap<String, Set<Subscription>> waiters = new ConcurrentHashMap<>();
    private final CompletableFuture<Void> firstListen = new CompletableFuture<>();
    private final Thread thread;
    private volatile boolean closed;

    ReleaseListener(DataSource dataSource, LeaseTable table, Duration reconnectDelay) {
        this.dataSource = dataSource;
        this.table = table;
        this.reconnectDelay = reconnectDelay;
        this.thread = new Thread(this::run, "leasehold-jdbc-listener");
        thread.setDaemon(true);
    }

    /**
     * Starts listening and waits until the first {@code LISTEN} is in place.
     *
     * @throws SQLException the first connection's error, if it fails within {@code timeout}
     */
    void start(Duration timeout) throws SQLException {
        thread.start();
        try {
            firstListen.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            close();
            throw e.getCause() instanceof SQLException sql ? sql : new SQLException(e.getCause());
        } catch (java.util.concurrent.TimeoutException e) {
            // Still waiting for a connection (an exhausted pool): the interrupt ends that wait now,
            // rather than when the pool's own timeout would.
            thread.interrupt();
            close();
            throw new java.sql.SQLTransientConnectionException("no LISTEN connection within " + timeout);
        } catch (InterruptedException e) {
            close();
            Thread.currentThread().interrupt();
            throw new SQLException("interrupted while opening the LISTEN connection", e);
        }
    }

    ReleaseSignal subscribe(String name) {
        Subscription subscription = new Subscription(name);
        waiters.computeIfAbsent(name, key -> ConcurrentHashMap.newKeySet()).add(subscription);
        return subscription;
    }

    /** Subscriptions currently open, for tests and diagnostics. */
    int subscriptions() {
        return waiters.values().stream().mapToInt(Set::size).sum();
    }

    @Override
    public void close() {
        closed = true;
        if (Thread.currentThread() != thread) {
            try {
                thread.join(TimeUnit.SECONDS.toMillis(2));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void run() {
        while (!closed) {
            try (Connection connection = dataSource.getConnection()) {
                table.listen(connection);
                firstListen.complete(null);
                wakeAll(); // releases while we were not listening were missed
                PGConnection postgres = connection.unwrap(PGConnection.class);
                while (!closed) {
                    PGNotification[] notifications = postgres.getNotifications(POLL_MILLIS);
                    if (notifications != null) {
                        for (PGNotification notification : notifications) {
                            wake(notification.getParameter());
                        }
                    }
                }
            } catch (SQLException | RuntimeException e) {
                if (!firstListen.isDone()) {
                    firstListen.completeExceptionally(e);
                    return;
                }
                if (!closed) {
                    LOG.debug("the LISTEN connection failed; waiters re-check on their timer until it is back", e);
                    sleep(reconnectDelay);
                }
            }
        }
    }

    private void wake(String name) {
        Set<Subscription> subscriptions = waiters.get(name);
        if (subscriptions != null) {
            subscriptions.forEach(Subscription::fire);
        }
    }

    private void wakeAll() {
        waiters.values().forEach(set -> set.forEach(Subscription::fire));
    }

    private static void sleep(Duration delay) {
        try {
            Thread.sleep(delay.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** One waiting acquisition's interest in one name. */
    private final class Subscription implements ReleaseSignal {

        private final String name;
        private final AtomicReference<CompletableFuture<Wake>> pending = new AtomicReference<>();

        Subscription(String name) {
            this.name = name;
        }

        /** Ready at once: the client's one LISTEN is in place from its creation on. */
        @Override
        public CompletableFuture<Void> ready() {
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletableFuture<Wake> next() {
            CompletableFuture<Wake> fresh = new CompletableFuture<>();
            CompletableFuture<Wake> current = pending.updateAndGet(old -> old != null && !old.isDone() ? old : fresh);
            return current;
        }

        void fire() {
            CompletableFuture<Wake> current = pending.get();
            if (current != null) {
                current.complete(Wake.RETRY);
            }
        }

        @Override
        public CompletableFuture<Void> unsubscribe() {
            waiters.computeIfPresent(name, (key, set) -> {
                set.remove(this);
                return set.isEmpty() ? null : set;
            });
            return CompletableFuture.completedFuture(null);
        }
    }
}
