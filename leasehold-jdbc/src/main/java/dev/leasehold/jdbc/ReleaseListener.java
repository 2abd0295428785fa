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
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One dedicated connection per client that {@code LISTEN}s on the lease table's channel and wakes
 * the waiters of the released name (a queued fair or permit acquirer only when its turn is
 * announced, see {@link Announcements}). Notifications are best effort: while the connection is down
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
    /** {@link Announcements}' turn payload: an arrival number, a space, the lock name. */
    private static final Pattern TURN = Pattern.compile("(\\d{1,18}) (.+)", Pattern.DOTALL);

    private final ConcurrentMap<String, Set<Subscription>> waiters = new ConcurrentHashMap<>();
    /** The queued acquirers' subscriptions, by holder. */
    private final ConcurrentMap<String, Subscription> queued = new ConcurrentHashMap<>();
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

    /** A waiter without a queue: woken by every release of {@code name} (the plain payload). */
    ReleaseSignal subscribe(String name) {
        return register(new Subscription(name, null));
    }

    /**
     * A queued acquirer ({@code holder}): woken only when a turn payload of {@code name} reaches its
     * arrival number (see {@link Announcements}); until {@link #arrived} says that number, by every turn.
     */
    ReleaseSignal subscribeQueued(String name, String holder) {
        Subscription subscription = register(new Subscription(name, holder));
        queued.put(holder, subscription);
        return subscription;
    }

    /** The arrival number of {@code holder}'s queue registration, from its last attempt. */
    void arrived(String holder, long arrival) {
        Subscription subscription = queued.get(holder);
        if (subscription != null) {
            subscription.arrival = arrival;
        }
    }

    private Subscription register(Subscription subscription) {
        waiters.computeIfAbsent(subscription.name, key -> ConcurrentHashMap.newKeySet()).add(subscription);
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

    /** A plain payload wakes the name's waiters without a queue; a turn payload, the queued ones whose turn it is. */
    private void wake(String payload) {
        Set<Subscription> plain = waiters.get(payload);
        if (plain != null) {
            plain.stream().filter(subscription -> subscription.holder == null).forEach(Subscription::fire);
        }
        Matcher turn = TURN.matcher(payload);
        if (turn.matches()) {
            long upTo = Long.parseLong(turn.group(1));
            Set<Subscription> queuedOnName = waiters.get(turn.group(2));
            if (queuedOnName != null) {
                queuedOnName.stream().filter(subscription -> subscription.holder != null && subscription.arrival <= upTo)
                        .forEach(Subscription::fire);
            }
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
        /** A queued acquirer's holder id; null for a waiter without a queue. */
        private final String holder;
        /** A queued acquirer's arrival number; unknown (every turn wakes it) until its attempt says. */
        private volatile long arrival = -1;
        private final AtomicReference<CompletableFuture<Wake>> pending = new AtomicReference<>();

        Subscription(String name, String holder) {
            this.name = name;
            this.holder = holder;
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
            if (holder != null) {
                queued.remove(holder, this);
            }
            return CompletableFuture.completedFuture(null);
        }
    }
}
