package dev.leasehold.integration;

import dev.leasehold.LockClient;
import dev.leasehold.testkit.junit.TestServer;
import dev.leasehold.zookeeper.ZooKeeperLocks;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The registry contract on a consensus backend: a real ZooKeeper server (Curator's {@link TestingServer}). */
class ZooKeeperLockRegistryTest extends LockRegistryContract {

    @RegisterExtension
    static final TestServer<TestingServer> server = TestServer.perClass(() -> {
        // Test data need not survive a power cut: skipping fsync keeps each write a loopback round trip.
        System.setProperty("zookeeper.forceSync", "no");
        return new TestingServer(true);
    });

    @Override
    protected LockClient connect() {
        return ZooKeeperLocks.connect(server.get().getConnectString());
    }
}
