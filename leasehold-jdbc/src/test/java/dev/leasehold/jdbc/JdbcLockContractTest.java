package dev.leasehold.jdbc;

import dev.leasehold.testkit.contract.ContractBackend;
import dev.leasehold.testkit.contract.ContractKinds;
import dev.leasehold.testkit.contract.LockClientContract;

/**
 * The shared contract for the PostgreSQL mutex and the write lock of its read-write lock, through a
 * HikariCP pool on a real server.
 */
@ContractKinds({"lock", "write"})
class JdbcLockContractTest extends LockClientContract {

    @Override
    protected ContractBackend backend() {
        return JdbcContractBackend.direct();
    }
}
