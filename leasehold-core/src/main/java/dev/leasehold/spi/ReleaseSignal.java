package dev.leasehold.spi;

import java.util.concurrent.CompletableFuture;

/**
 * One waiting acquisition's subscription to "this lock was released" notifications, so it wakes
 * when a holder lets go instead of polling. Best effort: a notification may be lost, which is why
 * the engine also re-checks on a capped interval.
 */
public interface ReleaseSignal extends AutoCloseable {

    /** Completes once the subscription is active, so no release after it can be missed. */
    CompletableFuture<Void> ready();

    /**
     * Completes at the next notification for this waiter received after this call: a release
     * ({@link Wake#RETRY}) or a handoff to it ({@link Wake.Granted}). Take it <em>before</em>
     * sending an attempt: a release that lands between the attempt and the wait then completes it
     * at once.
     */
    CompletableFuture<Wake> next();

    /** Ends this subscriber's interest; the last one out unsubscribes. Completes when done. */
    CompletableFuture<Void> unsubscribe();

    /**
     * Ends this subscriber's interest after it got the lock. A backend may keep the subscription a
     * short while for the next waiter on the same lock (see {@link LockProtocol#subscribeIfActive}),
     * which saves a subscribe and an attempt per handoff. By default the same as {@link #unsubscribe()}.
     */
    default CompletableFuture<Void> unsubscribeLater() {
        return unsubscribe();
    }

    @Override
    default void close() {
        unsubscribe();
    }

    /** A signal that never fires, for backends without notifications: waiters re-check on a timer. */
    static ReleaseSignal none() {
        return NoReleaseSignal.INSTANCE;
    }
}
