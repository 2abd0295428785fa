package dev.leasehold;

/**
 * At most {@link #permits()} leases on one name at once, across every client. Each permit is a
 * {@link Lease} of its own, with its own ttl, renewal, token and {@link Lease#lost()}: a holder
 * that crashes gives its permit back when its lease expires, so no permit leaks (unlike a counting
 * semaphore whose holders must remember to give back).
 *
 * <p>The acquire methods ({@link LeaseSource}) behave like a {@link DistributedLock}'s: each
 * returns a lease for one permit or throws, and cleans up what it took when it fails, times out or
 * is interrupted.
 *
 * <p><b>The number of permits</b> is a property of the name while any permit of it is held:
 * every client must then use the same number, and an acquire (or {@link #available()}) with
 * another one throws {@link PermitsMismatchException}, naming both numbers. Once no permit is
 * held, the next grant sets the number afresh.
 */
public interface DistributedSemaphore extends LeaseSource {

    /**
     * Most permits a semaphore may have. Each permit held is one lease, renewed on its own; a
     * limit larger than this is a counter, not a semaphore.
     */
    int MAX_PERMITS = 100_000;

    /** How many leases may be held at once. */
    int permits();

    /**
     * Permits free right now: {@link #permits()} minus the leases held and not expired. Only a
     * snapshot: it may have changed by the time the caller acts on it.
     *
     * @throws PermitsMismatchException if live leases hold the name with another number of permits
     * @throws LockUnavailableException if the backend cannot be reached
     */
    int available();
}
