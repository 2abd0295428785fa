package dev.leasehold.zookeeper;

import dev.leasehold.DistributedLock;
import dev.leasehold.LockClient;
import dev.leasehold.LockOptions;

/** The whole shared contract for the ZooKeeper semaphore kind, against a real three-server ensemble. */
class ZooKeeperSemaphoreContractTest extends ZooKeeperContract {

    @Override
    protected DistributedLock lock(LockClient client, String name, LockOptions options) {
        return ((ZooKeeperSemaphore) client.semaphore(name, 1, options)).lock();
    }
}
