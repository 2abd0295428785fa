package dev.leasehold.jdbc;

import dev.leasehold.testkit.contract.ContractBackend;
import dev.leasehold.testkit.contract.ContractKinds;
import dev.leasehold.testkit.contract.LockClientContract;
import org.junit.jupiter.api.Tag;

/**
 * The shared contract for the PostgreSQL fair lock and a one-permit semaphore seen as a lock, on the
 * mutex suite's server. It runs in the {@code faults} profile with the other backends' fair-lock and
 * semaphore suites; {@link JdbcKindsTest} covers the arrival order, lapsed waiters, permits, their
 * tokens and mismatches by default.
 */
@Tag("faults")
@ContractKinds({"fair_lock", "semaphore"})
class JdbcKindsContractTest extends LockClientContract {

    @Override
    protected ContractBackend backend() {
        return JdbcContractBackend.queued();
    }
}
