package dev.leasehold.redis;

import dev.leasehold.LockClient;
import dev.leasehold.launcher.RedisClusterGroup;
import dev.leasehold.launcher.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.time.Duration;
import java.util.List;

/**
 * Every lock kind's contract on a Redis Cluster of three masters (no replicas: the contract
 * freezes every master at once, and a replica must not take over meanwhile; failovers are in
 * {@link ClusterFailoverTest}).
 */
class ClusterContractTest extends DeploymentContract {

    private static RedisClusterGroup cluster;

    @BeforeAll
    static void startCluster() {
        cluster = RedisClusterGroup.start(3, 0, Duration.ofSeconds(5));
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    @Override
    LockClient connectDeployment() {
        return RedisLocks.connectCluster(cluster.seedUris().toArray(String[]::new));
    }

    @Override
    AutoCloseable pauseDeployment() {
        List<RedisServer> nodes = cluster.nodes();
        nodes.forEach(RedisServer::pause);
        return () -> nodes.forEach(RedisServer::resume);
    }
}
