package dev.leasehold.jdbc;

import dev.leasehold.DistributedLock;
import dev.leasehold.LockClient;
import dev.leasehold.LockOptions;

/** The shared contract for the write lock of the PostgreSQL read-write lock, on the mutex suite's server. */
class JdbcWriteLockContractTest extends JdbcLockContractTest {

    @Override
    protected DistributedLock lock(LockClient client, String name, LockOptions options) {
        return client.readWriteLock(name, options).writeLock();
    }
}
