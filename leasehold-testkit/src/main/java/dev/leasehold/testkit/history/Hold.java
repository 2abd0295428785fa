package dev.leasehold.testkit.history;

/**
 * One critical section as its holder saw it: from the moment its acquire returned to the last
 * moment it checked that it still held the lock (for Leasehold, {@code Lease.isValid()}; for a
 * naive lock, the moment it called release). Times are {@code System.nanoTime()} of one JVM.
 *
 * @param holder        who held it, e.g. "client-2/thread-5"
 * @param token         the fencing token of the lease
 * @param acquiredNanos when the acquire returned
 * @param claimedUntilNanos the last time the holder confirmed it held the lock
 */
public record Hold(String holder, long token, long acquiredNanos, long claimedUntilNanos) {

    /** Whether the two holders' claimed intervals intersect. */
    boolean overlaps(Hold other) {
        return acquiredNanos < other.claimedUntilNanos && other.acquiredNanos < claimedUntilNanos;
    }
}
