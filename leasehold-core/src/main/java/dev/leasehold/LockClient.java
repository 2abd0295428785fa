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
     * Stops renewal, closes the connections and every thread this client started. Leases still
     * held are not released: their keys expire by their ttl and their {@link Lease#lost()}
     * stages complete. Idempotent.
     */
    @Override
    void close();
}
