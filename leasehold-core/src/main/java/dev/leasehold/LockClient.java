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
     * @throws IllegalArgumentException if the name is null, blank or too long
     */
    DistributedLock lock(String name);

    /**
     * The lock with this name, held with the given options.
     *
     * @throws IllegalArgumentException if the name is unusable or options is null
     */
    DistributedLock lock(String name, LockOptions options);

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
