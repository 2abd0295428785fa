package dev.leasehold.jdbc;

import dev.leasehold.engine.EngineLockClient;
import dev.leasehold.engine.LeaseEngine;

/**
 * Locks kept in a PostgreSQL lease table: see {@link JdbcLocks} for the guarantees, the table and
 * how to create one. Every kind: the mutex, the fair lock, the read-write lock and the semaphore;
 * every lease of a name, of any kind, draws its token from one sequence. Names are at most 2048
 * bytes in UTF-8 (a primary key entry), without NUL. {@link #inspect}, {@link #list} and
 * {@link #breakLock} read and break every kind.
 */
public final class JdbcLockClient extends EngineLockClient {

    private final JdbcBackend backend;

    JdbcLockClient(JdbcBackend backend, LeaseEngine.Settings settings) {
        super(backend, settings);
        this.backend = backend;
    }

    /** Release subscriptions of waiting acquisitions open now. */
    public int activeSubscriptions() {
        return backend.activeSubscriptions();
    }
}
