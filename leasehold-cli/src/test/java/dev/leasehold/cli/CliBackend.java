package dev.leasehold.cli;

import dev.leasehold.LockClient;
import dev.leasehold.etcd.EtcdLocks;
import dev.leasehold.launcher.EtcdCluster;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.redis.RedisLocks;
import dev.leasehold.zookeeper.ZooKeeperLocks;
import org.apache.curator.test.TestingServer;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * A backend as the command line reaches it (its options) and a library client on the same
 * servers, for tests that run one scenario on each backend.
 *
 * @param name    the {@code --backend} value, also the test's display name
 * @param options the options that select it
 * @param client  connects a library client to it
 */
record CliBackend(String name, List<String> options, Supplier<LockClient> client) {

    static CliBackend redis(RedisServer server) {
        return new CliBackend("redis", List.of("--redis", server.uri()), () -> RedisLocks.connect(server.uri()));
    }

    static CliBackend zookeeper(TestingServer server) {
        return new CliBackend("zookeeper", List.of("--backend", "zookeeper", "--endpoints", server.getConnectString()),
                () -> ZooKeeperLocks.connect(server.getConnectString()));
    }

    static CliBackend etcd(EtcdCluster cluster) {
        return new CliBackend("etcd", List.of("--backend", "etcd", "--endpoints", cluster.endpoints()),
                () -> EtcdLocks.connect(cluster.endpoints()));
    }

    /** {@code subcommand NAME rest...} with this backend's options after the name, so before any {@code --}. */
    String[] args(String subcommand, String name, String... rest) {
        List<String> all = new ArrayList<>(List.of(subcommand, name));
        all.addAll(options);
        all.addAll(List.of(rest));
        return all.toArray(String[]::new);
    }

    @Override
    public String toString() {
        return name;
    }
}
