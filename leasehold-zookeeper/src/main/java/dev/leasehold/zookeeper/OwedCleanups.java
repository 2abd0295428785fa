package dev.leasehold.zookeeper;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The clean-ups the client's session still owes: deletions of the nodes of acquisitions given up
 * (a timeout, an interrupt, a close) that have not yet succeeded. Such a node is an ephemeral node
 * of a live session, so nothing but this client deletes it before the session ends, and until then
 * it stands in the queue, never granted, ahead of every later waiter. The engine retries a clean-up
 * only until the given-up attempt's ttl has passed, and Curator gives a call up after its
 * connection timeout and a few retries; a connection down longer than both, but back within the
 * session timeout, would leave the node behind. So a clean-up still owed is sent again each time
 * the connection comes back (RECONNECTED), until one succeeds. The session's loss (LOST) settles
 * every debt: the servers delete the session's nodes with it. A lock client closed over a framework
 * its owner keeps ({@link ZooKeeperLocks#using}) leaves the session alive, so its debts stay owed:
 * this listener stays registered on that framework until they are paid ({@link #closeWithin}).
 */
final class OwedCleanups implements ConnectionStateListener {

    private final Map<String, Supplier<CompletableFuture<Void>>> owed = new ConcurrentHashMap<>();
    /** The framework whose connection events this listens to, and which it leaves once closed and paid up. */
    private volatile CuratorFramework leaveWhenPaid;

    /**
     * Runs {@code cleanup} of the acquisition of {@code holder} now, and again on every
     * reconnection of the session until a run completes normally.
     *
     * @return this run's outcome
     */
    CompletableFuture<Void> run(String holder, Supplier<CompletableFuture<Void>> cleanup) {
        owed.put(holder, cleanup);
        return attempt(holder, cleanup);
    }

    /** How many clean-ups are still owed. */
    int size() {
        return owed.size();
    }

    private CompletableFuture<Void> attempt(String holder, Supplier<CompletableFuture<Void>> cleanup) {
        CompletableFuture<Void> done;
        try {
            done = cleanup.get();
        } catch (RuntimeException closing) {
            return CompletableFuture.failedFuture(closing);
        }
        // Only this very clean-up is paid: an engine retry may have put an equal one in its place.
        done.thenRun(() -> {
            owed.remove(holder, cleanup);
            leaveIfPaid();
        });
        return done;
    }

    /**
     * The lock client closes. Over a framework whose session ends with it, the debts end too and
     * this stops listening now; over one whose session lives on (its owner's), it listens on until
     * every debt is paid, or the session is lost.
     */
    void closeWithin(CuratorFramework curator, boolean sessionEnds) {
        if (sessionEnds) {
            owed.clear();
        }
        leaveWhenPaid = curator;
        leaveIfPaid();
    }

    private void leaveIfPaid() {
        CuratorFramework curator = leaveWhenPaid;
        if (curator != null && owed.isEmpty()) {
            curator.getConnectionStateListenable().removeListener(this);
        }
    }

    @Override
    public void stateChanged(CuratorFramework client, ConnectionState state) {
        switch (state) {
            case RECONNECTED -> owed.forEach(this::attempt);
            case LOST -> {
                owed.clear();
                leaveIfPaid();
            }
            default -> {
            }
        }
    }
}
