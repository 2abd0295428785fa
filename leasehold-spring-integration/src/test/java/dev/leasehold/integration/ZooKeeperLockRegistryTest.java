package dev.leasehold.integration;

import dev.leasehold.LockClient;
import dev.leasehold.zookeeper.ZooKeeperLocks;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The registry contract on a consensus backend: a real ZooKeeper server (Curator's {@link TestingServer}). */
class ZooKeeperLockRegistryTest extends LockRegistryContract {

    private static TestingServer server;

    @BeforeAll
    static void startServer() throws Exception {
        // Test data need not survive a power cut: skipping fsync keeps each write a loopback round trip.
        System.setProperty("zookeeper.forceSync", "no");
        server = new TestingServer(true);
    }

    @AfterAll
    static void stopServer() throws Exception {
        server.close();
    }

    @Override
    protected LockClient connect() {
        return ZooKeeperLocks.connect(server.getConnectString());
    }
}
