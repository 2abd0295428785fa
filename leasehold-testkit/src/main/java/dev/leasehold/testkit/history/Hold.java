package dev.leasehold.testkit.history;

/**
 * One critical section as its holder saw it: from the moment its acquire returned to the last
 * moment it checked that it still held the lock (for Leasehold, {@code Lease.isValid()}; for a
 * naive lock, the moment it called release). The lock was granted somewhere in the window between
 * the send of the attempt that took it and the return. Times are {@code System.nanoTime()} of one
 * JVM.
 *
 * @param holder            who held it, e.g. "client-2/thread-5"
 * @param token             the fencing token of the lease
 * @param sentNanos         when the attempt that was granted was sent: the earliest possible grant
 * @param acquiredNanos     when the acquire returned
 * @param claimedUntilNanos the last time the holder confirmed it held the lock
 */
public record Hold(String holder, long token, long sentNanos, long acquiredNanos, long claimedUntilNanos) {

    /** A hold whose grant window is unknown: it starts when the acquire returned. */
    public Hold(String holder, long token, long acquiredNanos, long claimedUntilNanos) {
        this(holder, token, acquiredNanos, acquiredNanos, claimedUntilNanos);
    }

    /** Whether the two holders' claimed intervals intersect: both ran as holders at once. */
    boolean overlaps(Hold other) {
        return acquiredNanos < other.claimedUntilNanos && other.acquiredNanos < claimedUntilNanos;
    }

    /** Whether {@code later} may have been granted while this holder still claimed the lock. */
    boolean mayHaveBeenGrantedDuring(Hold later) {
        return later.sentNanos < claimedUntilNanos && sentNanos < later.sentNanos;
    }
}
