package dev.leasehold;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
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
public interface DistributedLock {

    /** Longest wait accepted by the acquire methods. */
    Duration MAX_WAIT = Duration.ofDays(30);

    /** The lock name, as given to {@link LockClient#lock(String)}. */
    String name();

    /** The options every lease of this lock is held with. */
    LockOptions options();

    /**
     * Waits as long as it takes to acquire the lock.
     *
     * @throws LockUnavailableException if the backend cannot be reached
     * @throws LockInterruptedException if the thread is interrupted while waiting
     * @throws LockClientClosedException if the client was closed
     */
    Lease acquire();

    /**
     * Waits up to {@code wait} to acquire the lock. {@link Duration#ZERO} tries once. The call
     * returns or throws within {@code wait} plus the client's operation timeout (the bound on the
     * one backend call that may be in flight when the wait ends).
     *
     * @throws IllegalArgumentException if wait is null, negative or longer than {@link #MAX_WAIT}
     * @throws LockTimeoutException if another holder kept the lock for the whole wait (the
     *                              message says when it was a lease of this same client)
     * @throws LockUnavailableException if the backend cannot be reached
     * @throws LockInterruptedException if the thread is interrupted while waiting
     * @throws LockClientClosedException if the client was closed
     */
    Lease acquire(Duration wait);

    /**
     * Like {@link #acquire(Duration)}, but an elapsed wait gives an empty result instead of
     * {@link LockTimeoutException}. Backend failures still throw.
     *
     * @throws IllegalArgumentException if wait is null, negative or longer than {@link #MAX_WAIT}
     * @throws LockUnavailableException if the backend cannot be reached
     * @throws LockInterruptedException if the thread is interrupted while waiting
     * @throws LockClientClosedException if the client was closed
     */
    Optional<Lease> tryAcquire(Duration wait);

    /**
     * Acquires without blocking the caller. The future completes with the lease, or
     * exceptionally with {@link LockTimeoutException} or {@link LockUnavailableException}, on a
     * pool thread ({@link java.util.concurrent.ForkJoinPool#commonPool()}), never on a client I/O
     * thread, so its callbacks may block. The caller may complete the future itself: cancelling
     * it, completing it or bounding it ({@code orTimeout}) abandons the acquire, which then
     * releases anything it took and frees its place.
     *
     * @throws IllegalArgumentException if wait is null, negative or longer than {@link #MAX_WAIT}
     * @throws LockClientClosedException if the client was closed
     */
    CompletableFuture<Lease> acquireAsync(Duration wait);

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
