package dev.leasehold.zookeeper;

import dev.leasehold.testkit.contract.ContractBackend;
import dev.leasehold.testkit.contract.ContractKinds;
import dev.leasehold.testkit.contract.HoldAtLeastContract;
import org.junit.jupiter.api.Tag;

/**
 * The hold-at-least contract for the mutex and a one-permit semaphore on the shared three-server
 * ensemble, through the fault proxies. The kept lease is a {@link KeptMarker}: a persistent node,
 * ended by server time.
 */
@Tag("faults")
@ContractKinds({"lock", "semaphore"})
class ZooKeeperHoldAtLeastContractTest extends HoldAtLeastContract {

    @Override
    protected ContractBackend backend() {
        return new ZooKeeperContractBackend();
    }
}
