package dev.leasehold.engine;

/**
 * The send times of an acquisition's most recent attempts, which double as their
 * {@link dev.leasehold.spi.AcquireRequest#stamp() stamps}. A handoff names the stamp of the
 * waiter's last attempt the backend processed before it; only a stamp this acquisition really
 * sent is trusted as the start of the lease, since the lease's deadline is counted from it.
 */
final class SendStamps {

    /** More than the attempts that can be in flight at once; older ones are never echoed back. */
    private static final int KEPT = 8;

    private final long[] stamps = new long[KEPT];
    private int next;
    private int size;

    synchronized void record(long stamp) {
        stamps[next] = stamp;
        next = (next + 1) % KEPT;
        size = Math.min(size + 1, KEPT);
    }

    synchronized boolean contains(long stamp) {
        for (int i = 0; i < size; i++) {
            if (stamps[i] == stamp) {
                return true;
            }
        }
        return false;
    }
}
