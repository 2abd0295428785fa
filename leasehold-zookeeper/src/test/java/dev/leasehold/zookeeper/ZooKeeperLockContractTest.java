package dev.leasehold.zookeeper;

import dev.leasehold.testkit.contract.ContractBackend;
import dev.leasehold.testkit.contract.ContractKinds;
import dev.leasehold.testkit.contract.LockClientContract;

/**
 * The whole shared contract for the ZooKeeper mutex, against a real three-server ensemble; the
 * other kinds are in {@link ZooKeeperKindsContractTest}.
 */
@ContractKinds({"lock"})
class ZooKeeperLockContractTest extends LockClientContract {

    @Override
    protected ContractBackend backend() {
        return new ZooKeeperContractBackend();
    }
}
