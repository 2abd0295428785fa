package dev.leasehold.jdbc;

import dev.leasehold.LockClient;
import dev.leasehold.testkit.contract.ContractBackend;

/**
 * How the contract suites reach PostgreSQL: clients on the shared HikariCP pool of the test JVM's
 * real server; freezing the backend is SIGSTOP on the server.
 */
final class JdbcContractBackend implements ContractBackend {

    @Override
    public LockClient connect() {
        return JdbcLocks.create(SharedDatabase.pool());
    }

    @Override
    public AutoCloseable pause() {
        SharedDatabase.server().pause();
        return SharedDatabase.server()::resume;
    }
}
