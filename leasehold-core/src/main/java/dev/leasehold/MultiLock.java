package dev.leasehold;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * All or nothing over several locks (of any kinds and names): {@link #acquire(Duration)} returns a
 * {@link MultiLease} holding every part, or throws holding none.
 *
 * <p><b>No deadlock between multi-locks.</b> Parts are always taken in one order, sorted by lock
 * name, whatever order they were given in, so two multi-locks over overlapping sets never wait for
 * each other in a cycle.
 *
 * <p><b>No partial hold.</b> If a part cannot be taken within what is left of the wait, or its
 * backend fails, the parts already taken are released before the call throws.
 */
public interface MultiLock {

    /** The parts' names, in acquisition order. */
    List<String> names();

    /**
     * Takes every part, waiting up to {@code wait} in total.
     *
     * @throws IllegalArgumentException if wait is null, negative or longer than {@link DistributedLock#MAX_WAIT}
     * @throws LockTimeoutException if a part stayed held by another holder until the wait ran out
     * @throws LockUnavailableException if a part's backend cannot be reached
     * @throws LockInterruptedException if the thread is interrupted while waiting
     */
    MultiLease acquire(Duration wait);

    /** Like {@link #acquire(Duration)}, but an elapsed wait gives an empty result. */
    Optional<MultiLease> tryAcquire(Duration wait);

    /**
     * A multi-lock over these locks.
     *
     * @throws IllegalArgumentException if the list is null or empty, holds null, or holds two locks
     *                                  of the same name (a part would wait for the other)
     */
    static MultiLock of(List<DistributedLock> locks) {
        return new SortedMultiLock(locks);
    }
}
