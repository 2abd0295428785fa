package dev.leasehold.spi;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * The backend's half of one lock kind: the few server calls that the {@link dev.leasehold.engine.LeaseEngine} turns
 * into waiting, leases, renewal and release. A backend implements this once per lock kind
 * (mutex, read lock, semaphore permit, ...) and gets the whole {@code DistributedLock} API.
 *
 * <p>Every call is asynchronous and must not block the calling thread. A failure to reach the
 * backend completes the future exceptionally with a
 * {@link dev.leasehold.LockUnavailableException} naming the node; the engine bounds every call
 * with its own timeout.
 *
 * <p>The {@code holder} argument is a unique, unguessable string the engine makes per
 * acquisition; the backend stores it as the owner and compares against it in
 * {@link #renew} and {@link #release}.
 */
public interface LockProtocol {

    /** Where the backend lives, without credentials, for messages. */
    String describe();

    /**
     * Whether every call of this protocol completes by itself (if need be with a timeout error)
     * within {@code timeout}. If so, the engine sets no timer of its own per call; if not (the
     * default), it bounds each call.
     */
    default boolean boundsCallsWithin(Duration timeout) {
        return false;
    }

    /**
     * One attempt to take {@code name} for {@code holder} for {@code ttl}, in one round trip
     * where the backend allows. Must never wait for the lock.
     *
     * @param waiter a stable id for this waiting acquisition once it has subscribed to release
     *               signals, so the backend can tell that someone waits; {@code null} on a first
     *               try, when nobody needs waking
     */
    CompletableFuture<Attempt> tryAcquire(String name, String holder, Duration ttl, String waiter);

    /**
     * Extends the lease of {@code holder} to {@code ttl} from now, only if it still owns the lock.
     * The engine calls it in batches from its renewal thread and calls {@link #flushRenewals()}
     * after each batch, so a backend may buffer renewals until then.
     *
     * @return true if extended, false if another holder (or nobody) has the lock
     */
    CompletableFuture<Boolean> renew(String name, String holder, Duration ttl);

    /** Sends the renewals buffered since the last call, if the backend buffers them. */
    default void flushRenewals() {
    }

    /**
     * Releases the lock only if {@code holder} owns it, waking waiters if there are any.
     *
     * @return whether it was ours and is now free, and on how many nodes the key was still ours
     */
    CompletableFuture<ReleaseOutcome> release(String name, String holder);

    /**
     * Cleans up after an abandoned acquisition (timeout, interrupt, cancellation): releases the
     * lock if a late attempt took it for {@code holder}, and forgets {@code waiter}.
     */
    CompletableFuture<Void> abandon(String name, String holder, String waiter);

    /** Subscribes to release notifications for {@code name}; {@link ReleaseSignal#none()} if unsupported. */
    ReleaseSignal subscribe(String name);

    /**
     * A subscription to {@code name} if this client already has one in place (another waiter's, or
     * one kept after a recent wait), else {@code null}. With one, the first attempt can register
     * as a waiter at once; without, an uncontended acquire never pays for a subscription.
     */
    default ReleaseSignal subscribeIfActive(String name) {
        return null;
    }
}
