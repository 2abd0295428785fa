package dev.leasehold;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * At most {@link #permits()} leases on one name at once, across every client. Each permit is a
 * {@link Lease} of its own, with its own ttl, renewal, token and {@link Lease#lost()}: a holder
 * that crashes gives its permit back when its lease expires, so no permit leaks (unlike a counting
 * semaphore whose holders must remember to give back).
 *
 * <p>The acquire methods behave like {@link DistributedLock}'s: each returns a lease for one
 * permit or throws, and cleans up what it took when it fails, times out or is interrupted.
 */
public interface DistributedSemaphore {

    /** The semaphore's name. */
    String name();

    /** How many leases may be held at once. */
    int permits();

    /** The options every permit's lease is held with. */
    LockOptions options();

    /**
     * Permits free right now: {@link #permits()} minus the leases held and not expired. Only a
     * snapshot: it may have changed by the time the caller acts on it.
     *
     * @throws LockUnavailableException if the backend cannot be reached
     */
    int available();

    /**
     * Waits as long as it takes for a permit.
     *
     * @throws LockUnavailableException if the backend cannot be reached
     * @throws LockInterruptedException if the thread is interrupted while waiting
     */
    Lease acquire();

    /**
     * Waits up to {@code wait} for a permit. {@link Duration#ZERO} tries once.
     *
     * @throws IllegalArgumentException if wait is null, negative or longer than {@link DistributedLock#MAX_WAIT}
     * @throws LockTimeoutException if no permit came free during the wait
     * @throws LockUnavailableException if the backend cannot be reached
     * @throws LockInterruptedException if the thread is interrupted while waiting
     */
    Lease acquire(Duration wait);

    /** Like {@link #acquire(Duration)}, but an elapsed wait gives an empty result. */
    Optional<Lease> tryAcquire(Duration wait);

    /** Like {@link DistributedLock#acquireAsync(Duration)}, for one permit. */
    CompletableFuture<Lease> acquireAsync(Duration wait);
}
