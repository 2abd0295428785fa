package dev.leasehold.etcd;

import dev.leasehold.DistributedLock;
import dev.leasehold.LockClient;
import dev.leasehold.LockOptions;
import dev.leasehold.launcher.EtcdCluster;
import dev.leasehold.testkit.contract.LockClientContract;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/**
 * The shared contract for the etcd fair lock, against a real three-member cluster. It runs in the
 * {@code faults} profile, not by default: it shares the mutex's queue and rule (only the local
 * admission differs), and its 2,000 handoffs take about half a minute on etcd.
 */
@Tag("faults")
class EtcdFairLockContractTest extends LockClientContract {

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

    @Override
    protected DistributedLock lock(LockClient client, String name, LockOptions options) {
        return client.fairLock(name, options);
    }
}
