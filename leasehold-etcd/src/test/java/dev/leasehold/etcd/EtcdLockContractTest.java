package dev.leasehold.etcd;

import dev.leasehold.launcher.EtcdCluster;
import dev.leasehold.testkit.contract.ContractBackend;
import dev.leasehold.testkit.contract.ContractKinds;
import dev.leasehold.testkit.contract.LockClientContract;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The shared contract for the etcd mutex, against a real three-member etcd cluster; the other kinds
 * are in {@link EtcdKindsContractTest}.
 */
@ContractKinds({"lock"})
class EtcdLockContractTest extends LockClientContract {

    @RegisterExtension
    static final TestServer<EtcdCluster> etcd = TestServer.perClass(() -> EtcdCluster.start(3));

    @Override
    protected ContractBackend backend() {
        return new EtcdContractBackend(etcd.get());
    }
}
