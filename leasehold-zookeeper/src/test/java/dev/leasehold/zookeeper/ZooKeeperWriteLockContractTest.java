package dev.leasehold.zookeeper;

import dev.leasehold.DistributedLock;
import dev.leasehold.LockClient;
import dev.leasehold.LockOptions;
import org.junit.jupiter.api.Tag;

/** The whole shared contract for the ZooKeeper write kind, against a real three-server ensemble.
 *
 * <p>In the {@code faults} profile: the same queue rule as the mutex's passes the suite in the
 * default build, and each run of the suite costs half a minute here.
 */
@Tag("faults")
class ZooKeeperWriteLockContractTest extends ZooKeeperContract {

    @Override
    protected DistributedLock lock(LockClient client, String name, LockOptions options) {
        return client.readWriteLock(name, options).writeLock();
    }
}
