package dev.leasehold.jdbc;

import dev.leasehold.LockClient;
import dev.leasehold.testkit.contract.LockClientContract;

/** The shared contract for the PostgreSQL mutex, through a HikariCP pool on a real server. */
class JdbcLockContractTest extends LockClientContract {

    @Override
    protected LockClient connect() {
        return JdbcLocks.create(SharedDatabase.pool());
    }

    @Override
    protected AutoCloseable pauseBackend() {
        SharedDatabase.server().pause();
        return SharedDatabase.server()::resume;
    }
}
