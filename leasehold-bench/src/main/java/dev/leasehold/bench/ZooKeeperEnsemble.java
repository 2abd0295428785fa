package dev.leasehold.bench;

import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * A real three-server ZooKeeper ensemble in this JVM (Curator's {@link TestingCluster}, free loopback
 * ports, data in temporary directories deleted on close). Writes skip fsync, as in the backend's
 * tests: each write costs a quorum round trip on loopback, not a disk flush.
 */
final class ZooKeeperEnsemble implements AutoCloseable {

    private final TestingCluster cluster;

    private ZooKeeperEnsemble(TestingCluster cluster) {
        this.cluster = cluster;
    }

    /** Starts the three servers and returns once they are started. */
    static ZooKeeperEnsemble start() {
        System.setProperty("zookeeper.forceSync", "no");
        List<InstanceSpec> specs = new ArrayList<>();
        for (int id = 1; id <= 3; id++) {
            specs.add(new InstanceSpec(null, -1, -1, -1, true, id, 200, -1));
        }
        TestingCluster cluster = new TestingCluster(specs);
        try {
            cluster.start();
        } catch (Exception e) {
            close(cluster);
            throw new IllegalStateException("the ZooKeeper ensemble did not start", e);
        }
        return new ZooKeeperEnsemble(cluster);
    }

    /** Every server, as a client's connect string. */
    String connectString() {
        return cluster.getConnectString();
    }

    @Override
    public void close() {
        close(cluster);
    }

    private static void close(TestingCluster cluster) {
        try {
            cluster.close();
        } catch (IOException e) {
            throw new UncheckedIOException("the ZooKeeper ensemble did not stop cleanly", e);
        }
    }
}
