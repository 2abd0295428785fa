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
 * The shared contract for the write lock of the etcd read-write lock, against a real three-member
 * cluster. It runs in the {@code faults} profile, not by default: on etcd the write lock is the
 * mutex's rule with another key letter (readers only look at the letter), and its 2,000 handoffs take
 * about half a minute; the read side is tested by {@link EtcdLockTest}.
 */
@Tag("faults")
class EtcdWriteLockContractTest extends LockClientContract {

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
        return client.readWriteLock(name, options).writeLock();
    }
}
