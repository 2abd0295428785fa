package dev.leasehold.jdbc;

import dev.leasehold.DistributedLock;
import dev.leasehold.LockClient;
import dev.leasehold.LockOptions;
import org.junit.jupiter.api.Tag;

/**
 * The shared contract for the PostgreSQL fair lock, on the mutex suite's server. It runs in the
 * {@code faults} profile with the other backends' fair-lock suites; {@link JdbcKindsTest} covers the
 * arrival order and lapsed waiters by default.
 */
@Tag("faults")
class JdbcFairLockContractTest extends JdbcLockContractTest {

    @Override
    protected DistributedLock lock(LockClient client, String name, LockOptions options) {
        return client.fairLock(name, options);
    }

    /**
     * Every handoff crosses clients through the database (a release, its NOTIFY, the next queued
     * attempt), as etcd's cross a consensus write: 500 acquisitions still interleave all 32 threads.
     */
    @Override
    protected int mutualExclusionAcquisitions() {
        return 500;
    }
}
