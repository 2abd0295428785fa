package dev.leasehold.zookeeper;

import dev.leasehold.testkit.contract.ContractBackend;
import dev.leasehold.testkit.contract.ContractKinds;
import dev.leasehold.testkit.contract.LockClientContract;
import org.junit.jupiter.api.Tag;

/**
 * The whole shared contract for the ZooKeeper fair, write and semaphore kinds, against a real
 * three-server ensemble.
 *
 * <p>In the {@code faults} profile: the same queue rule as the mutex's passes the suite in the
 * default build, each run of the suite costs half a minute here, and the semaphore's herd wake-ups
 * make its contended acquisitions cost more; {@code ZooKeeperKindsTest} covers the semaphore in the
 * default build.
 */
@Tag("faults")
@ContractKinds({"fair_lock", "write", "semaphore"})
class ZooKeeperKindsContractTest extends LockClientContract {

    @Override
    protected ContractBackend backend() {
        return new ZooKeeperContractBackend();
    }
}
