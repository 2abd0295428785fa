package dev.leasehold.zookeeper;

import dev.leasehold.LockClient;
import dev.leasehold.testkit.contract.LockClientContract;

/**
 * The shared contract against the shared three-server ensemble: clients through the fault proxies,
 * a paused backend is every proxy black-holing. Each kind's suite says which lock it tests.
 */
abstract class ZooKeeperContract extends LockClientContract {

    @Override
    protected LockClient connect() {
        return TestClients.connect(Ensemble.shared());
    }

    @Override
    protected AutoCloseable pauseBackend() {
        return Ensemble.shared().partitionClients();
    }

    /** Every handoff is a consensus write (tens of ms): 500 acquisitions keep the test well inside its limit. */
    @Override
    protected int mutualExclusionAcquisitions() {
        return 500;
    }
}
