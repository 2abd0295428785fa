package dev.leasehold.etcd;

import dev.leasehold.launcher.EtcdCluster;
import dev.leasehold.testkit.contract.ContractBackend;
import dev.leasehold.testkit.contract.ContractKinds;
import dev.leasehold.testkit.contract.HoldAtLeastContract;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;

/**
 * The hold-at-least contract for the mutex and a one-permit semaphore on a real three-member etcd
 * cluster. The kept key lives on a new etcd lease, so whole seconds rounded up and etcd's expiry
 * timer may free it a little later.
 */
@Tag("faults")
@ContractKinds({"lock", "semaphore"})
class EtcdHoldAtLeastContractTest extends HoldAtLeastContract {

    @RegisterExtension
    static final TestServer<EtcdCluster> etcd = TestServer.perClass(() -> EtcdCluster.start(3));

    @Override
    protected ContractBackend backend() {
        return new EtcdContractBackend(etcd.get());
    }

    /** Whole seconds rounded up, etcd's minimum lease TTL and its 500 ms expiry timer. */
    @Override
    protected Duration serverExpiryGranularity() {
        return Duration.ofMillis(2_500);
    }
}
