package dev.leasehold.redlock;

import dev.leasehold.spi.ReleaseSignal;
import dev.leasehold.spi.Wake;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Release notifications of one lock across all nodes: a waiter wakes at the first notification
 * from any node.
 *
 * <p>Ready once a majority of the node subscriptions are active (or every node has answered). A
 * releasing holder held a majority and deletes its key, publishing, on each of those nodes where
 * waiters are registered; a waiter registers on every node that answered "held" to its attempt,
 * and two majorities share a node, so a release is heard without waiting for a frozen minority.
 * Best effort, like every {@link ReleaseSignal}: the engine's re-check covers a lost message.
 */
final class QuorumReleaseSignal implements ReleaseSignal {

    private final List<ReleaseSignal> signals;
    private final CompletableFuture<Void> ready = new CompletableFuture<>();

    QuorumReleaseSignal(List<ReleaseSignal> signals, int quorum) {
        this.signals = signals;
        AtomicInteger active = new AtomicInteger();
        AtomicInteger answered = new AtomicInteger();
        for (ReleaseSignal signal : signals) {
            signal.ready().whenComplete((ignored, error) -> {
                boolean majorityActive = error == null && active.incrementAndGet() == quorum;
                boolean allAnswered = answered.incrementAndGet() == signals.size();
                if (majorityActive || allAnswered) {
                    ready.complete(null);
                }
            });
        }
    }

    @Override
    public CompletableFuture<Void> ready() {
        return ready;
    }

    @Override
    public CompletableFuture<Wake> next() {
        List<CompletableFuture<Wake>> parked = signals.stream().map(ReleaseSignal::next).toList();
        CompletableFuture<Wake> first = new CompletableFuture<>();
        // A node never hands a Redlock over by itself: any message means "try again".
        parked.forEach(one -> one.whenComplete((ignored, error) -> {
            if (error == null) {
                first.complete(Wake.RETRY);
            }
        }));
        // Woken (or cancelled by the engine's timer): drop the other nodes' parked futures.
        first.whenComplete((ignored, error) -> parked.forEach(one -> one.cancel(false)));
        return first;
    }

    @Override
    public CompletableFuture<Void> unsubscribe() {
        return CompletableFuture.allOf(signals.stream().map(ReleaseSignal::unsubscribe).toArray(CompletableFuture[]::new));
    }
}
