package dev.leasehold.etcd;

import dev.leasehold.LockClient;
import dev.leasehold.launcher.EtcdCluster;
import dev.leasehold.testkit.contract.LockClientContract;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The shared contract for the etcd mutex, against a real three-member etcd cluster. */
class EtcdLockContractTest extends LockClientContract {

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

    @Override
    protected AutoCloseable pauseBackend() {
        cluster.pauseAll();
        return cluster::resumeAll;
    }
}
