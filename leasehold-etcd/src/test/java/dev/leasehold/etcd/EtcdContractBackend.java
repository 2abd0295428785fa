package dev.leasehold.etcd;

import dev.leasehold.LockClient;
import dev.leasehold.launcher.EtcdCluster;
import dev.leasehold.testkit.contract.ContractBackend;

import java.time.Duration;

/**
 * How the contract suites reach a real etcd cluster: clients of every member; freezing the backend
 * is SIGSTOP on every member.
 */
final class EtcdContractBackend implements ContractBackend {

    private final EtcdCluster cluster;

    EtcdContractBackend(EtcdCluster cluster) {
        this.cluster = cluster;
    }

    @Override
    public LockClient connect() {
        return EtcdLocks.connect(cluster.endpoints());
    }

    @Override
    public AutoCloseable pause() {
        cluster.pauseAll();
        return cluster::resumeAll;
    }

    /** etcd leases count in whole seconds (a 600 ms lease lives 1 s) and expire on a 500 ms timer. */
    @Override
    public Duration serverExpiryGranularity() {
        return Duration.ofMillis(1_500);
    }

    /** Every handoff is a consensus write (tens of ms): 500 acquisitions keep the test well inside its limit. */
    @Override
    public int mutualExclusionAcquisitions() {
        return 500;
    }
}
