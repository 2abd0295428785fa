package dev.leasehold.jdbc;

import dev.leasehold.testkit.contract.ContractBackend;
import dev.leasehold.testkit.contract.ContractKinds;
import dev.leasehold.testkit.contract.HoldAtLeastContract;
import org.junit.jupiter.api.Tag;

/**
 * The hold-at-least contract for the mutex, the write lock, the fair lock and a one-permit semaphore
 * on a real PostgreSQL server, through the shared pool. The kept row's expiry is the database's clock.
 */
@Tag("faults")
@ContractKinds({"lock", "write", "fair_lock", "semaphore"})
class JdbcHoldAtLeastContractTest extends HoldAtLeastContract {

    @Override
    protected ContractBackend backend() {
        return JdbcContractBackend.direct();
    }
}
