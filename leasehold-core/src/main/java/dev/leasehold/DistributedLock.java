package dev.leasehold;

import java.util.concurrent.locks.Lock;

/**
 * A named lock shared by every client of the same backend. Cheap to create, thread-safe and
 * reusable: each acquisition returns a new {@link Lease}, and the lease (not the thread) owns it.
 *
 * <p>Every acquire either returns a lease that holds the lock or throws; none returns without
 * the lock, and an error is never turned into {@code false}. An acquire that fails, times out
 * or is interrupted cleans up whatever it took on the server before it returns.
 *
 * <p>This lock is <b>not reentrant</b>: a second acquire by the same thread waits like any
 * other client. Use {@link #asJavaLock()} for per-thread reentrancy.
 */
public interface DistributedLock extends LeaseSource {

    /**
     * A {@link Lock} view for drop-in use, reentrant per thread: the hold count is kept locally,
     * so re-entry costs no round trip and issues no new token. The view is shared by every lock
     * object of the same client, kind and name, so a method that locks {@code lock("x")} and calls
     * another that locks a new {@code lock("x")} re-enters instead of waiting for itself; the view
     * acquires with the options of the lock object that first asked for it. A thread that waits
     * for a lock another thread of the same client holds times out with a message saying so.
     * {@link Lock#newCondition()} is not supported.
     */
    ReentrantLeaseLock asJavaLock();
}
