package dev.leasehold.shedlock;

import dev.leasehold.LockClient;

/** The provider contract on a consensus backend: a real ZooKeeper server (Curator's {@code TestingServer}). */
class ZooKeeperLockProviderTest extends LockProviderContract {

    @Override
    protected LockClient newClient() {
        return Backends.zookeeperClient();
    }
}
