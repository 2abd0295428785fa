package dev.leasehold.jdbc;

import dev.leasehold.DistributedLock;
import dev.leasehold.LockClient;
import dev.leasehold.LockOptions;
import dev.leasehold.engine.EngineSemaphore;
import org.junit.jupiter.api.Tag;

/**
 * The shared contract for a one-permit PostgreSQL semaphore seen as a lock, on the mutex suite's
 * server; in the {@code faults} profile with the other backends' semaphore suites, while
 * {@link JdbcKindsTest} covers permits, their tokens and mismatches by default.
 */
@Tag("faults")
class JdbcSemaphoreContractTest extends JdbcLockContractTest {

    @Override
    protected DistributedLock lock(LockClient client, String name, LockOptions options) {
        return ((EngineSemaphore) client.semaphore(name, 1, options)).lock();
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
