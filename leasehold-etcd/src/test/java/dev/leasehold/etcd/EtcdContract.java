package dev.leasehold.etcd;

import dev.leasehold.LockClient;
import dev.leasehold.launcher.EtcdCluster;
import dev.leasehold.testkit.contract.LockClientContract;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.time.Duration;

/**
 * The shared contract against a real three-member etcd cluster, started per suite; freezing the
 * backend is SIGSTOP on every member. Each kind's suite overrides only the contract's lock hook.
 */
abstract class EtcdContract extends LockClientContract {

    private static EtcdCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = EtcdCluster.start(3);
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    @Override
    protected LockClient connect() {
        return EtcdLocks.connect(cluster.endpoints());
    }

    /** etcd leases count in whole seconds (a 600 ms lease lives 1 s) and expire on a 500 ms timer. */
    @Override
    protected Duration serverExpiryGranularity() {
        return Duration.ofMillis(1_500);
    }

    @Override
    protected AutoCloseable pauseBackend() {
        cluster.pauseAll();
        return cluster::resumeAll;
    }

    /** Every handoff is a consensus write (tens of ms): 500 acquisitions keep the test well inside its limit. */
    @Override
    protected int mutualExclusionAcquisitions() {
        return 500;
    }
}
