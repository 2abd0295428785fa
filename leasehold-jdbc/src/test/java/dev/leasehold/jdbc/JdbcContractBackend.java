package dev.leasehold.jdbc;

import dev.leasehold.LockClient;
import dev.leasehold.testkit.contract.ContractBackend;

/**
 * How the contract suites reach PostgreSQL: clients on the shared HikariCP pool of the test JVM's
 * real server; freezing the backend is SIGSTOP on the server.
 */
final class JdbcContractBackend implements ContractBackend {

    private final boolean queuedHandoffs;

    private JdbcContractBackend(boolean queuedHandoffs) {
        this.queuedHandoffs = queuedHandoffs;
    }

    /** For the mutex and the write lock, with the contract's default number of contended acquisitions. */
    static ContractBackend direct() {
        return new JdbcContractBackend(false);
    }

    /**
     * For the fair lock and the semaphore, whose every handoff crosses clients through the database
     * (a release, its NOTIFY, the next queued attempt), as etcd's cross a consensus write: 500
     * contended acquisitions still interleave all 32 threads.
     */
    static ContractBackend queued() {
        return new JdbcContractBackend(true);
    }

    @Override
    public LockClient connect() {
        return JdbcLocks.create(SharedDatabase.pool());
    }

    @Override
    public AutoCloseable pause() {
        SharedDatabase.server().pause();
        return SharedDatabase.server()::resume;
    }

    @Override
    public int mutualExclusionAcquisitions() {
        return queuedHandoffs ? 500 : ContractBackend.super.mutualExclusionAcquisitions();
    }
}
