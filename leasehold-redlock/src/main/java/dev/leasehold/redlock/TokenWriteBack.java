package dev.leasehold.redlock;

import dev.leasehold.redis.internal.LockKeys;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The fencing step Redlock itself lacks: after a majority granted, each with its own advanced
 * counter, the lease's token is the maximum M, and every granting node whose counter is below M
 * gets {@code counter = max(counter, M)} (fence.lua), all in parallel, in one extra round trip.
 *
 * <p>Why it works: the next lease needs a majority too, and two majorities share a node. That node
 * stores at least M, so it returns more than M, and so does the next token. This holds only if no
 * node loses an acknowledged write: see the package documentation for the two ways to ensure it.
 */
final class TokenWriteBack {

    private TokenWriteBack() {
    }

    /**
     * Writes {@code token} back to the granting nodes.
     *
     * @param granted  the nodes that granted, each with the counter it returned
     * @return how many of them now store at least {@code token}: those whose own counter was the
     *         maximum (their acquire already stored it) plus those whose write-back was acknowledged
     *         within {@code timeout}
     */
    static CompletableFuture<Integer> write(List<Grant> granted, long token, LockKeys keys, Duration fenceRetention,
                                            Duration timeout) {
        AtomicInteger stored = new AtomicInteger();
        CompletableFuture<?>[] writes = granted.stream()
                .map(grant -> {
                    if (grant.counter() >= token) {
                        stored.incrementAndGet();
                        return CompletableFuture.completedFuture(null);
                    }
                    return grant.node().writeBack(keys, token, fenceRetention, timeout)
                            .handle((counter, error) -> error == null && counter >= token ? stored.incrementAndGet() : 0);
                })
                .toArray(CompletableFuture[]::new);
        return CompletableFuture.allOf(writes).thenApply(ignored -> stored.get());
    }

    /** A node that granted the lock, and the counter it returned. */
    record Grant(RedlockNode node, long counter) {
    }
}
