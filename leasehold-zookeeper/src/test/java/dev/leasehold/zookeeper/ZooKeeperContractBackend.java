package dev.leasehold.zookeeper;

import dev.leasehold.LockClient;
import dev.leasehold.testkit.contract.ContractBackend;

/**
 * How the contract suites reach ZooKeeper: the shared three-server ensemble, clients through the
 * fault proxies; a paused backend is every proxy black-holing.
 */
final class ZooKeeperContractBackend implements ContractBackend {

    @Override
    public LockClient connect() {
        return TestClients.connect(Ensemble.shared());
    }

    @Override
    public AutoCloseable pause() {
        return Ensemble.shared().partitionClients();
    }

    /** Every handoff is a consensus write (tens of ms): 500 acquisitions keep the test well inside its limit. */
    @Override
    public int mutualExclusionAcquisitions() {
        return 500;
    }
}
