package dev.leasehold.zookeeper;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The client's ZooKeeper session as its leases see it: every held lease registers a loss signal
 * here, and the session's trouble completes all of them at once.
 *
 * <ul>
 *   <li><b>LOST</b> (the session expired, or Curator gave it up after a session timeout without a
 *   connection): every lease is lost at once; the servers have deleted, or will delete, the
 *   ephemeral nodes.</li>
 *   <li><b>SUSPENDED</b> (no answer for two thirds of the session timeout): the leases are lost
 *   once the connection stays suspended for {@link #suspendedGrace()} more, unless it is
 *   RECONNECTED first. The grace is a sixth of the negotiated session timeout, so a lease is lost
 *   at most about five sixths of the session timeout after the client last heard from the
 *   ensemble, before the servers can expire the session (a full session timeout after they last
 *   heard from it) and hand the lock to another client.</li>
 * </ul>
 *
 * <p>While suspended, renewals fail at once, so a watchdog lease can also end at its local deadline.
 */
final class SessionWatch implements ConnectionStateListener {

    private static final Logger LOG = LoggerFactory.getLogger(SessionWatch.class);

    private final CuratorFramework curator;
    private final ScheduledExecutorService timers;
    private final Duration requestedSessionTimeout;
    private final Map<String, CompletableFuture<String>> signals = new ConcurrentHashMap<>();
    private volatile boolean suspended;
    private volatile ScheduledFuture<?> pendingLoss;

    SessionWatch(CuratorFramework curator, ScheduledExecutorService timers, Duration requestedSessionTimeout) {
        this.curator = curator;
        this.timers = timers;
        this.requestedSessionTimeout = requestedSessionTimeout;
    }

    /** The loss signal of a new lease of {@code holder}, completed by the next session trouble. */
    CompletableFuture<String> register(String holder) {
        CompletableFuture<String> signal = new CompletableFuture<>();
        signals.put(holder, signal);
        return signal;
    }

    /** The lease of {@code holder} ended: its signal will not fire. */
    void forget(String holder) {
        signals.remove(holder);
    }

    /** Whether the connection is suspended right now (renewals are refused then). */
    boolean suspended() {
        return suspended;
    }

    /** How long a suspended connection may last before the leases are lost. */
    Duration suspendedGrace() {
        return sessionTimeout().dividedBy(6);
    }

    /** The negotiated session timeout, or the requested one before the first connection. */
    Duration sessionTimeout() {
        try {
            int negotiated = curator.getZookeeperClient().getZooKeeper().getSessionTimeout();
            if (negotiated > 0) {
                return Duration.ofMillis(negotiated);
            }
        } catch (Exception notConnectedYet) {
            // Fall back to the requested timeout.
        }
        return requestedSessionTimeout;
    }

    @Override
    public void stateChanged(CuratorFramework client, ConnectionState state) {
        switch (state) {
            case SUSPENDED -> {
                suspended = true;
                Duration grace = suspendedGrace();
                try {
                    pendingLoss = timers.schedule(() -> loseAll("the ZooKeeper connection stayed suspended for "
                            + grace.toMillis() + " ms (a sixth of the session timeout), so the session may expire"),
                            grace.toNanos(), TimeUnit.NANOSECONDS);
                } catch (RejectedExecutionException closed) {
                    // The client closed while this event was on its way: it holds no lease any more.
                }
            }
            case LOST -> {
                suspended = true;
                cancelPendingLoss();
                loseAll("the ZooKeeper session was lost");
            }
            case CONNECTED, RECONNECTED -> {
                cancelPendingLoss();
                suspended = false;
            }
            default -> {
            }
        }
    }

    private void cancelPendingLoss() {
        ScheduledFuture<?> pending = pendingLoss;
        if (pending != null) {
            pending.cancel(false);
        }
    }

    private void loseAll(String reason) {
        if (!signals.isEmpty()) {
            LOG.warn("{}: {} lease(s) lost", reason, signals.size());
        }
        signals.keySet().forEach(holder -> {
            CompletableFuture<String> signal = signals.remove(holder);
            if (signal != null) {
                signal.complete(reason);
            }
        });
    }
}
