package dev.leasehold;

/**
 * A pair of locks on one name: many holders of the read lock at once, or one holder of the write
 * lock and no reader. Each is a full {@link DistributedLock}: its leases are renewed, lost and
 * released like any lease, and carry tokens from the name's one sequence, so a writer's token
 * exceeds every token issued before it.
 *
 * <p><b>No writer starvation.</b> Once a writer waits, new readers wait behind it; the readers
 * already holding finish (or lose their leases) and the writer goes next.
 *
 * <p><b>No upgrade.</b> A read lease is never turned into a write lease: acquiring the write lock
 * while holding the read lock through the same {@link ReentrantLeaseLock} thread is refused with
 * an {@link IllegalStateException}, since two readers upgrading at once deadlock. Release the read
 * lease first, then acquire the write lock, and re-check what you read.
 */
public interface DistributedReadWriteLock {

    /** The name both locks share. */
    String name();

    /** The shared lock: held by many readers at once, never while a writer holds the write lock. */
    DistributedLock readLock();

    /** The exclusive lock: held by one writer, never while a reader holds the read lock. */
    DistributedLock writeLock();
}
