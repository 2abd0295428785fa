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
 * The shared contract for a one-permit etcd semaphore seen as a lock, against a real three-member
 * cluster; in the {@code faults} profile with the other kinds' suites (each takes about a minute).
 */
@Tag("faults")
class EtcdSemaphoreContractTest extends LockClientContract {

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
        return ((EtcdSemaphore) client.semaphore(name, 1, options)).lock();
    }
}
