package dev.leasehold;

/**
 * A connection to one lock backend (a Redis server, a Redlock quorum, ...). Thread-safe;
 * create one per application and share it. It owns the connections and the single renewal
 * scheduler that keeps every watchdog lease alive.
 */
public interface LockClient extends AutoCloseable {

    /**
     * The lock with this name, held with {@link LockOptions#defaults()}.
     *
     * @throws IllegalArgumentException if the name is null, blank, longer than
     *                                  {@link dev.leasehold.spi.Args#MAX_NAME_LENGTH}, not
     *                                  well-formed UTF-16, or one the backend refuses because its
     *                                  keys would be another lock's (on Redis: a {@code '}'}
     *                                  without a hash tag, a tagged name ending in an auxiliary
     *                                  key's ending such as {@code :fence}, a name that is one
     *                                  hash tag as a whole); the message says which and why
     * @throws LockClientClosedException if the client was closed
     */
    DistributedLock lock(String name);

    /**
     * The lock with this name, held with the given options.
     *
     * @throws IllegalArgumentException if the name is unusable (see {@link #lock(String)}) or
     *                                  options is null
     * @throws LockClientClosedException if the client was closed
     */
    DistributedLock lock(String name, LockOptions options);

    /**
     * A fair lock: exclusive like {@link #lock(String)}, and granted in the order the backend saw
     * the acquisitions arrive, across every client. A waiter that died is skipped once its
     * registration expires.
     *
     * @throws IllegalArgumentException      if the name is unusable or options is null
     * @throws UnsupportedOperationException if this backend offers no fair lock
     */
    default DistributedLock fairLock(String name, LockOptions options) {
        throw new UnsupportedOperationException("fair locks are not offered by " + describe());
    }

    /** {@link #fairLock(String, LockOptions)} with {@link LockOptions#defaults()}. */
    default DistributedLock fairLock(String name) {
        return fairLock(name, LockOptions.defaults());
    }

    /**
     * A read-write lock: many readers or one writer; a waiting writer blocks new readers.
     *
     * @throws IllegalArgumentException      if the name is unusable or options is null
     * @throws UnsupportedOperationException if this backend offers no read-write lock
     */
    default DistributedReadWriteLock readWriteLock(String name, LockOptions options) {
        throw new UnsupportedOperationException("read-write locks are not offered by " + describe());
    }

    /** {@link #readWriteLock(String, LockOptions)} with {@link LockOptions#defaults()}. */
    default DistributedReadWriteLock readWriteLock(String name) {
        return readWriteLock(name, LockOptions.defaults());
    }

    /**
     * A semaphore of {@code permits} leases on {@code name}.
     *
     * @throws IllegalArgumentException      if the name is unusable, options is null, permits is
     *                                       outside [1, {@link DistributedSemaphore#MAX_PERMITS}],
     *                                       or the name is already a semaphore with another number
     *                                       of permits
     * @throws UnsupportedOperationException if this backend offers no semaphore
     */
    default DistributedSemaphore semaphore(String name, int permits, LockOptions options) {
        throw new UnsupportedOperationException("semaphores are not offered by " + describe());
    }

    /** {@link #semaphore(String, int, LockOptions)} with {@link LockOptions#defaults()}. */
    default DistributedSemaphore semaphore(String name, int permits) {
        return semaphore(name, permits, LockOptions.defaults());
    }

    /**
     * All or nothing over the exclusive locks of these names ({@link #lock(String)}); see
     * {@link MultiLock}. For other kinds, use {@link MultiLock#of(java.util.List)}.
     *
     * @throws IllegalArgumentException if no name is given, or a name is unusable or repeated
     */
    default MultiLock multiLock(String... names) {
        if (names == null || names.length == 0) {
            throw new IllegalArgumentException("a multi-lock needs at least one lock name");
        }
        return MultiLock.of(java.util.Arrays.stream(names).map(this::lock).toList());
    }

    /**
     * A candidate in the leader election of {@code name}, with {@link LeadershipOptions#defaults()};
     * see {@link Leadership}. It does nothing until {@link Leadership#start started}, and can read
     * {@link Leadership#currentLeader()} without ever starting.
     *
     * @throws IllegalArgumentException if the name is unusable (see {@link #lock(String)})
     * @throws LockClientClosedException if the client was closed
     */
    default Leadership leadership(String name) {
        return leadership(name, LeadershipOptions.defaults());
    }

    /**
     * A candidate in the leader election of {@code name}, each term a lease of
     * {@code lock(name, options.lockOptions())}; see {@link Leadership}.
     *
     * @throws IllegalArgumentException if the name is unusable or options is null
     * @throws LockClientClosedException if the client was closed
     */
    default Leadership leadership(String name, LeadershipOptions options) {
        return new LeaderCandidate(this, name, options);
    }

    /** Where this client connects, without credentials, for messages and logs. */
    String describe();

    /**
     * Ends this client's leases, then closes its connections and every thread it started.
     * Idempotent.
     *
     * <p>Each lease still held is lost from this call on: its {@link Lease#lost()} stage completes
     * with "the client was closed", and its key is deleted (compare-and-delete, waiting at most the
     * operation timeout), so other clients get the lock at once rather than after the ttl, as
     * etcd and ZooKeeper free a session's locks when it closes. A later {@link Lease#release()} of
     * such a lease returns {@link ReleaseStatus#ALREADY_LOST} without calling the backend.
     * Acquisitions still waiting fail with a {@link LeaseholdException}.
     */
    @Override
    void close();
}
