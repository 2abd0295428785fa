package dev.leasehold.redis;

import dev.leasehold.LockClient;
import dev.leasehold.launcher.RedisClusterGroup;
import dev.leasehold.launcher.RedisSentinelGroup;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.testkit.contract.ContractBackend;
import dev.leasehold.testkit.junit.TestServer;

import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

/** How the contract suites reach each Redis deployment: one server, Sentinel, Cluster. */
final class RedisContractBackend implements ContractBackend {

    private final Supplier<LockClient> connect;
    private final Supplier<AutoCloseable> pause;

    private RedisContractBackend(Supplier<LockClient> connect, Supplier<AutoCloseable> pause) {
        this.connect = connect;
        this.pause = pause;
    }

    /** One redis-server; freezing it is SIGSTOP. */
    static ContractBackend single(RedisServer server) {
        return new RedisContractBackend(() -> RedisLocks.connect(server.uri()), () -> {
            server.pause();
            return server::resume;
        });
    }

    /** Through {@code redis-sentinel://}; freezing it freezes the master. */
    static ContractBackend sentinel(RedisSentinelGroup group) {
        return new RedisContractBackend(() -> RedisLocks.connect(group.uri()), () -> {
            RedisServer master = group.master();
            master.pause();
            return master::resume;
        });
    }

    /** A Cluster client over every seed; freezing it freezes every node at once. */
    static ContractBackend cluster(RedisClusterGroup cluster) {
        return new RedisContractBackend(() -> RedisLocks.connectCluster(cluster.seedUris().toArray(String[]::new)), () -> {
            // All at once: a lease's master frozen a moment after the others could still renew it.
            List<RedisServer> nodes = cluster.nodes();
            nodes.parallelStream().forEach(RedisServer::pause);
            return () -> nodes.parallelStream().forEach(RedisServer::resume);
        });
    }

    /**
     * The contract suites' Sentinel deployment, one per test JVM: a master with a replica behind
     * three Sentinels that wait 5 s before calling the master down, so the contract's brief freezes
     * of the master cause no failover.
     */
    static TestServer<RedisSentinelGroup> sentinelGroup() {
        return TestServer.perJvm("redis-sentinel-contract",
                () -> RedisSentinelGroup.start(1, "contract-secret", Duration.ofSeconds(5)));
    }

    /**
     * The contract suites' Cluster, one per test JVM: three masters and no replicas (the contract
     * freezes every master at once, and a replica must not take over meanwhile).
     */
    static TestServer<RedisClusterGroup> clusterGroup() {
        return TestServer.perJvm("redis-cluster-contract", () -> RedisClusterGroup.start(3, 0, Duration.ofSeconds(5)));
    }

    @Override
    public LockClient connect() {
        return connect.get();
    }

    @Override
    public AutoCloseable pause() {
        return pause.get();
    }
}
