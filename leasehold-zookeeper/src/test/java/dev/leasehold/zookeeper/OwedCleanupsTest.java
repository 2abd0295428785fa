package dev.leasehold.zookeeper;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.listen.ListenerManager;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The bookkeeping of {@link OwedCleanups}: a clean-up stays owed until a run of it succeeds, each
 * reconnection runs it again, the session's loss settles it, and a client closed over a framework
 * whose session lives on keeps listening until it is paid. (The real outage is
 * {@code ZooKeeperKindsTest.anAbandonedNodeIsDeletedWhenTheConnectionComesBackAfterItsTtl}.) The
 * framework is never started: only its listener registry is used.
 */
class OwedCleanupsTest {

    private final CuratorFramework framework = CuratorFrameworkFactory.newClient("127.0.0.1:1", new RetryOneTime(1));
    private final OwedCleanups owed = new OwedCleanups();

    @AfterEach
    void close() {
        framework.close();
    }

    @Test
    void aCleanupIsRunAgainOnEachReconnectionUntilARunSucceeds() {
        Runs runs = new Runs(false, false, true);
        owed.run("h1", runs);
        assertThat(owed.size()).isEqualTo(1);
        owed.stateChanged(framework, ConnectionState.SUSPENDED);
        assertThat(runs.count.get()).as("only a reconnection runs it again").isEqualTo(1);
        owed.stateChanged(framework, ConnectionState.RECONNECTED);
        assertThat(owed.size()).isEqualTo(1);
        owed.stateChanged(framework, ConnectionState.RECONNECTED);
        assertThat(runs.count.get()).isEqualTo(3);
        assertThat(owed.size()).as("paid").isZero();
        owed.stateChanged(framework, ConnectionState.RECONNECTED);
        assertThat(runs.count.get()).as("never run once paid").isEqualTo(3);
    }

    @Test
    void theSessionsLossSettlesEveryDebt() {
        owed.run("h1", new Runs(false));
        owed.run("h2", new Runs(false));
        owed.stateChanged(framework, ConnectionState.LOST);
        assertThat(owed.size()).isZero();
    }

    @Test
    void closedOverAFrameworkWhoseSessionLivesOnItListensUntilPaid() {
        listeners().addListener(owed);
        Runs runs = new Runs(false, true);
        owed.run("h1", runs);
        owed.closeWithin(framework, false);
        assertThat(listenerCount()).as("still owed: still listening").isEqualTo(1);
        owed.stateChanged(framework, ConnectionState.RECONNECTED);
        assertThat(runs.count.get()).isEqualTo(2);
        assertThat(listenerCount()).as("paid: gone").isZero();
    }

    @Test
    void closedOverAFrameworkWhoseSessionEndsItStopsAtOnce() {
        listeners().addListener(owed);
        owed.run("h1", new Runs(false));
        owed.closeWithin(framework, true);
        assertThat(owed.size()).isZero();
        assertThat(listenerCount()).isZero();
    }

    @Test
    void closedWithNothingOwedItStopsAtOnce() {
        listeners().addListener(owed);
        owed.closeWithin(framework, false);
        assertThat(listenerCount()).isZero();
    }

    @SuppressWarnings("unchecked")
    private ListenerManager<ConnectionStateListener, ConnectionStateListener> listeners() {
        return (ListenerManager<ConnectionStateListener, ConnectionStateListener>) framework.getConnectionStateListenable();
    }

    private int listenerCount() {
        return listeners().size();
    }

    /** A clean-up whose runs succeed or fail in the order given (the last outcome repeats). */
    private static final class Runs implements Supplier<CompletableFuture<Void>> {

        final AtomicInteger count = new AtomicInteger();
        private final Queue<Boolean> outcomes;
        private final boolean last;

        Runs(Boolean... outcomes) {
            this.outcomes = new ArrayDeque<>(List.of(outcomes));
            this.last = outcomes[outcomes.length - 1];
        }

        @Override
        public CompletableFuture<Void> get() {
            count.incrementAndGet();
            Boolean succeeds = outcomes.isEmpty() ? last : outcomes.poll();
            return succeeds ? CompletableFuture.completedFuture(null)
                    : CompletableFuture.failedFuture(new IllegalStateException("connection loss"));
        }
    }
}
